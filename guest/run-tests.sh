#!/bin/bash
# Guest side of `make test`: run tests/*.sh one by one, write TAP to
# /run/out/tap.txt and each test's output to /run/out/logs/NAME.log.
#   run-tests.sh [--vanilla] [NAME...]
# A test exits 0 (pass), 77 (skip, reason on its last line) or else (fail).
# Tests marked "# needs: series" are skipped on the stock kernel.
top=$(cd "$(dirname "$0")/.." && pwd)
vanilla=0
[ "${1:-}" = --vanilla ] && { vanilla=1; shift; }
tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do tests+=("$top/tests/${t%.sh}.sh"); done
else
	tests=("$top"/tests/*.sh)
fi
out=/run/out
mkdir -p "$out/logs"
tap=$out/tap.txt
echo "TAP version 13" > "$tap"
echo "1..${#tests[@]}" >> "$tap"
vm_saved=$(mktemp)
for f in /proc/sys/vm/dirty_* /proc/sys/vm/laptop_mode /proc/sys/vm/flusher_idle_centisecs; do
	[ -e "$f" ] && echo "$f $(cat "$f")"
done > "$vm_saved"

n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	log=$out/logs/$name.log
	if [ $vanilla = 1 ] && grep -q '^# needs: series' "$t"; then
		echo "ok $n - $name # SKIP needs the series" >> "$tap"
		continue
	fi
	limit=$(sed -n 's/^# timeout: //p' "$t"); limit=${limit:-300}
	echo "guest: test $name" > /dev/kmsg
	start=$(date +%s)
	timeout -k 5 "$limit" bash "$t" > "$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) echo "ok $n - $name (${secs}s)" >> "$tap" ;;
	77) echo "ok $n - $name # SKIP $(tail -n1 "$log")" >> "$tap" ;;
	124) echo "not ok $n - $name # timed out after ${limit}s" >> "$tap" ;;
	*) echo "not ok $n - $name # exit $rc: $(tail -n1 "$log")" >> "$tap" ;;
	esac
	tail -n1 "$tap"
	# leave a clean slate: no mounts on the scratch disks, stock sysctls
	for m in $(awk '$2 ~ "^/mnt/" {print $2}' /proc/mounts | sort -r); do umount -l "$m"; done
	while read -r f v; do
		case $f:$v in *_bytes:0) continue ;; esac	# the ratio is in force
		echo "$v" > "$f"
	done < "$vm_saved"
	for f in /sys/class/bdi/*/min_ratio; do echo 0 > "$f"; done
	for f in /sys/class/bdi/*/flushers; do	# back to the default
		[ -f "$f" ] && echo 0 > "$f"
	done
	fi=/sys/kernel/debug/fail_flusher_create
	[ -f $fi/probability ] && echo 0 > $fi/probability
	[ -f $fi/delay_ms ] && echo 0 > $fi/delay_ms
	echo none > /sys/power/pm_test 2>/dev/null
	echo 0 > /sys/kernel/tracing/tracing_on 2>/dev/null
	echo > /sys/kernel/tracing/set_event 2>/dev/null
done
