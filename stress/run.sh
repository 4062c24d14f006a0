#!/bin/bash
# `make stress`: fault loops on the debug kernel (KERNEL=patched|vanilla).
# Each guest loop (stress/loops/*.sh and the invalid-input test) gets a boot
# of its own, judged like `make test`; then POWERCUTS boots (100; QUICK=1:
# 10) are each killed at a random moment while files are written and
# recorded as durable, and one last boot checks the last cycle.
# A full run takes hours, so it resumes: a loop whose boot finished is not
# run again, and the power cuts go on from the last cycle that started, on
# the same disks. FRESH=1, or a different kernel image, starts over.
# Counts go to build/out/stress-KERNEL[-quick]/counts.txt (stress/report.sh
# puts both kernels side by side); ends with "N passed, N failed" and exits
# 1 on a failure.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
kernel=${KERNEL:-patched} quick=${QUICK:-0}
cycles=${POWERCUTS:-100}; [ "$quick" = 1 ] && cycles=${POWERCUTS:-10}
loops=${LOOPS:-"removal mem-pressure soak flusher-bad-input"}
"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh" "$kernel"
image=$("$TOP/scripts/build.sh" "$kernel" test | tail -n1)
run=$OUT/stress-$kernel; [ "$quick" = 1 ] && run=$run-quick
sum=$(md5sum < "$image" | cut -c1-12)
if [ "${FRESH:-0}" = 1 ] || [ "$(cat "$run/image" 2>/dev/null)" != "$sum" ]; then
	rm -rf "$run"
fi
mkdir -p "$run"; echo "$sum" > "$run/image"
# loop disks are sparse, but up to GiBs; the power cuts keep theirs
trap 'for l in $loops; do rm -rf "$run/$l/disks"; done' EXIT
series=; [ "$kernel" = patched ] && series=--series

for l in $loops; do
	dir=$run/$l
	if [ -f "$dir/judge.txt" ]; then
		log "loop $l: done in an earlier run, kept"; continue
	fi
	log "loop $l"
	rm -rf "$dir"
	set +e
	SECONDS=0
	DISKDIR=$dir/disks TIMEOUT=${TIMEOUT:-10800} QUIET=1 "$TOP/scripts/boot.sh" "$image" "$dir" \
		"QUICK=$quick TESTDIRS='stress/loops tests' bash guest/run-tests.sh $series $l"
	echo $? > "$dir/boot-status"
	echo "$((SECONDS / 60))" > "$dir/minutes"
	"$TOP/scripts/judge.sh" "$dir" > "$dir/judge.txt"
	set -e
done

[ "$cycles" -gt 0 ] && "$TOP/stress/powercut.sh" "$image" "$run/powercut" "$cycles" > "$run/powercut.txt"

# counts and results of everything there is
pass=0 fail=0 minutes=0
: > "$run/results.txt"
for l in $loops; do
	sed -n "s/^counts: /$l: /p" "$run/$l/logs/$l.log" 2>/dev/null || true
	minutes=$((minutes + $(cat "$run/$l/minutes" 2>/dev/null || echo 0)))
	grep -E '^(not )?ok ' "$run/$l/judge.txt" | sed "s/^\(\(not \)\?ok\) [0-9]* /\1 $l: /" >> "$run/results.txt"
done > "$run/counts.txt"
if [ "$cycles" -gt 0 ]; then
	sed -n 's/^counts: /powercut: /p' "$run/powercut.txt" >> "$run/counts.txt"
	tail -n1 "$run/powercut.txt" >> "$run/results.txt"
	minutes=$((minutes + $(cat "$run/powercut/minutes" 2>/dev/null || echo 0)))
fi
pass=$(grep -c '^ok' "$run/results.txt" || true) fail=$(grep -c '^not ok' "$run/results.txt" || true)
echo "kernel: $kernel$([ "$quick" = 1 ] && echo ' (QUICK)'), $minutes min of boots" >> "$run/counts.txt"
cat "$run/results.txt" "$run/counts.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
