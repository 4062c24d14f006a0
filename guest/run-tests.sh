#!/bin/bash
# Guest side of `make test`: run tests/*.sh one by one, write TAP to
# /run/out/tap.txt and each test's output to /run/out/logs/NAME.log.
#   run-tests.sh [--series] [NAME|NAME:FS...]
# A test exits 0 (pass), 77 (skip, reason on its last line) or else (fail);
# it checks what it needs itself (require_* in guest/lib.sh). A test with a
# "# per-fs" line runs once per filesystem of FSTYPES, each its own result
# (stock-sync:ext4, stock-sync:xfs). "guest: test NAME" on the console marks
# where each test starts, for the host's judge.
top=$(cd "$(dirname "$0")/.." && pwd)
# --series: the kernel has the series, so a probe that finds a part of it
# missing fails the test instead of skipping it
[ "${1:-}" = --series ] && { export SERIES=1; shift; }
[ "${1:-}" = --vanilla ] && shift	# accepted for old callers; tests probe
fstypes=${FSTYPES:-"ext4 xfs"}
# TESTDIRS: where tests are looked up by name, the first holds the default
# list (make stress: "stress/loops tests")
read -ra dirs <<< "${TESTDIRS:-tests}"
path_of() {	# path_of NAME: the test's script, or nothing
	local d
	for d in "${dirs[@]}"; do [ -f "$top/$d/$1.sh" ] && { echo "$top/$d/$1.sh"; return; }; done
}
names=()
# by default all tests but those that need a boot of their own ("# boot:",
# which the host gives them: scripts/test.sh)
[ $# -gt 0 ] || set -- $(cd "$top/${dirs[0]}" && grep -L '^# boot: ' -- *.sh | sed 's/\.sh$//')
for t in "$@"; do
	t=${t%.sh} fs=
	case $t in *:*) fs=${t#*:} t=${t%%:*} ;; esac
	p=$(path_of "$t")
	[ -n "$p" ] || { names+=("$t"); continue; }
	if [ -z "$fs" ] && grep -q '^# per-fs' "$p"; then
		for fs in $fstypes; do names+=("$t:$fs"); done
	else
		names+=("$t${fs:+:$fs}")
	fi
done
out=/run/out
mkdir -p "$out/logs"
tap=$out/tap.txt
echo "TAP version 13" > "$tap"
echo "1..${#names[@]}" >> "$tap"
vm_saved=$(mktemp)
for f in /proc/sys/vm/dirty_* /proc/sys/vm/laptop_mode; do
	echo "$f $(cat "$f")"
done > "$vm_saved"

n=0
for name in "${names[@]}"; do
	n=$((n + 1))
	t=$(path_of "${name%%:*}") fs=
	case $name in *:*) fs=${name#*:} ;; esac
	log=$out/logs/$name.log
	if [ -z "$t" ]; then
		echo "not ok $n - $name # no such test" >> "$tap"
		continue
	fi
	limit=$(sed -n 's/^# timeout: //p' "$t"); limit=${limit:-300}
	echo "guest: test $name" > /dev/kmsg
	start=$(date +%s)
	FSTYPES=${fs:-$fstypes} timeout -k 5 "$limit" bash "$t" > "$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) echo "ok $n - $name (${secs}s)" >> "$tap" ;;
	77) echo "ok $n - $name # SKIP $(tail -n1 "$log")" >> "$tap" ;;
	124) echo "not ok $n - $name # timed out after ${limit}s" >> "$tap" ;;
	*) echo "not ok $n - $name # exit $rc: $(tail -n1 "$log")" >> "$tap" ;;
	esac
	tail -n1 "$tap"
	# a generic reset, should a test not have cleaned up after itself: no
	# mounts on the scratch disks, the writeback sysctls of boot
	for m in $(awk '$2 ~ "^/mnt/" {print $2}' /proc/mounts | sort -r); do umount -l "$m"; done
	# and no device-mapper, md or loop device left on the scratch disks
	dmsetup remove_all --force >/dev/null 2>&1
	for m in /dev/md[0-9]*; do [ -b "$m" ] && mdadm --stop "$m" >/dev/null 2>&1; done
	losetup -D 2>/dev/null
	while read -r f v; do
		case $f:$v in *_bytes:0) continue ;; esac	# the ratio is in force
		echo "$v" > "$f"
	done < "$vm_saved"
done
echo "guest: tests done" > /dev/kmsg
