#!/bin/bash
# Power-cut loop: powercut.sh BZIMAGE RUNDIR CYCLES
# Boots CYCLES times on the same two disks (QEMU cache=none: what the guest
# flushed is on the host's disk) running stress/powercut-guest.sh, and kills
# QEMU (SIGKILL, no shutdown) 2-10 s after the guest's writers start; each
# boot first checks what the previous one recorded as durable. A last boot
# only checks. Resumes: with RUNDIR from an interrupted run it goes on after
# the last cycle that started (an interrupted cycle is one more power cut).
# Prints one line per cycle, the counts, and "ok" or "not ok".
set -eu
. "$(dirname "$0")/../scripts/common.sh"
image=$1 run=$2 cycles=$3
export KEEP_DISKS=1 DISK_CACHE=none DISKS=2 DISKDIR=$run/disks QUIET=1 TIMEOUT=900
# the last cycle that wrote (durable-N is created as its writers start)
last=$({ ls "$run" 2>/dev/null || true; } | sed -n 's/^durable-\([0-9]*\)$/\1/p' | sort -n | tail -n1)
if [ -z "$last" ]; then
	rm -rf "$run"; mkdir -p "$run"; last=0
fi
# a stopped run leaves no guest behind to write on the disks
trap 'pkill -KILL -f "path=$run,mount_tag=out" || true' EXIT
SECONDS=0
for c in $(seq $((last + 1)) $((cycles + 1))); do
	[ "$c" -gt "$cycles" ] && grep -q "^cycle $cycles:" "$run/checks" 2>/dev/null && break
	rm -f "$run/started"
	mode=write; [ "$c" -gt "$cycles" ] && mode=check
	"$TOP/scripts/boot.sh" "$image" "$run" "bash stress/powercut-guest.sh $c $mode" >/dev/null 2>&1 &
	boot=$!
	if [ $mode = write ]; then
		# wait for the writers, then cut the power at a random moment
		for _ in $(seq 600); do
			[ -f "$run/started" ] || ! kill -0 $boot 2>/dev/null && break
			sleep 1
		done
		if [ -f "$run/started" ]; then
			sleep $((RANDOM % 9 + 2))
			pkill -KILL -f "path=$run,mount_tag=out" || true
		else
			echo "cycle $c: writers did not start" | tee -a "$run/failed-boots"
		fi
	fi
	wait $boot || true
	cp "$run/console.log" "$run/console-$c.log"
	if grep -qE "$KERNEL_COMPLAINTS" "$run/console-$c.log"; then
		echo "cycle $c: kernel complaints:"; grep -E "$KERNEL_COMPLAINTS" "$run/console-$c.log" | head -5
	fi
	[ $mode = check ] && [ "$(cat "$run/status" 2>/dev/null)" != 0 ] &&
		{ echo "last boot: check failed" | tee -a "$run/failed-boots"; tail -5 "$run/console.log"; }
	tail -n1 "$run/checks" 2>/dev/null | grep "^cycle $((c - 1)):" || true
done
echo $(( $(cat "$run/minutes" 2>/dev/null || echo 0) + SECONDS / 60 )) > "$run/minutes"

read -r checked lost unclean < <(awk '{d += $4; l += $8; u += $10} END {print d + 0, l + 0, u + 0}' "$run/checks" 2>/dev/null)
nchecks=$(grep -c '^cycle' "$run/checks" 2>/dev/null || true)
cuts=$(find "$run" -maxdepth 1 -name 'durable-*' | wc -l)
complaints=$(grep -lE "$KERNEL_COMPLAINTS" "$run"/console-*.log 2>/dev/null | wc -l)
noboot=$(cat "$run/failed-boots" 2>/dev/null | wc -l)
echo "counts: power cuts $cuts, cycles checked $nchecks, durable files checked $checked, lost or corrupt $lost, unclean filesystems $unclean, boots with kernel complaints $complaints, failed boots $noboot"
if [ "$nchecks" = "$cycles" ] && [ $((lost + unclean + complaints + noboot)) = 0 ]; then
	echo "ok powercut"
else
	echo "not ok powercut"
fi
