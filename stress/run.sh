#!/bin/bash
# `make stress`: fault loops on the debug kernel (KERNEL=patched|vanilla).
# One boot runs the guest loops (stress/loops/*.sh and the invalid-input
# test), judged like `make test`; then POWERCUTS boots (100; QUICK=1: 10)
# are each killed at a random moment while files are written and recorded
# as durable, and one last boot checks the last cycle. Counts go to
# build/out/stress-KERNEL/counts.txt (stress/report.sh puts both kernels
# side by side); ends with "N passed, N failed" and exits 1 on a failure.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
kernel=${KERNEL:-patched} quick=${QUICK:-0}
cycles=${POWERCUTS:-100}; [ "$quick" = 1 ] && cycles=${POWERCUTS:-10}
loops=${LOOPS:-"removal mem-pressure soak flusher-bad-input"}
"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh" "$kernel"
image=$("$TOP/scripts/build.sh" "$kernel" test | tail -n1)
run=$OUT/stress-$kernel
rm -rf "$run"; mkdir -p "$run"
trap 'rm -rf "$run/disks" "$run/powercut/disks"' EXIT	# sparse, but up to GiBs
start=$(date +%s)
series=; [ "$kernel" = patched ] && series=--series

log "guest loops: $loops"
set +e
DISKDIR=$run/disks TIMEOUT=${TIMEOUT:-10800} QUIET=1 "$TOP/scripts/boot.sh" "$image" "$run/loops" \
	"QUICK=$quick TESTDIRS='stress/loops tests' bash guest/run-tests.sh $series $loops"
echo $? > "$run/loops/boot-status"
"$TOP/scripts/judge.sh" "$run/loops" | tee "$run/loops/judge.txt"
set -e
read -r pass fail _ < <(tail -n1 "$run/loops/judge.txt" | awk '{print $1, $3}')
for l in $loops; do
	sed -n "s/^counts: /$l: /p" "$run/loops/logs/$l.log" 2>/dev/null
done > "$run/counts.txt"

[ "$cycles" -gt 0 ] && "$TOP/stress/powercut.sh" "$image" "$run/powercut" "$cycles" | tee "$run/powercut.txt"
if [ "$cycles" -gt 0 ]; then
	if tail -n1 "$run/powercut.txt" | grep -q '^ok'; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	sed -n 's/^counts: /powercut: /p' "$run/powercut.txt" >> "$run/counts.txt"
fi
echo "kernel: $kernel$([ "$quick" = 1 ] && echo ' (QUICK)'), $(( ($(date +%s) - start) / 60 )) min" >> "$run/counts.txt"
cat "$run/counts.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
