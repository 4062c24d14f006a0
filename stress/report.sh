#!/bin/bash
# stress/report.sh [NAME]: the counts of the last `make stress` of each
# kernel (QUICK=1: of the last QUICK ones) side by side in
# stress/results/NAME.md (NAME: today's date).
set -eu
. "$(dirname "$0")/../scripts/common.sh"
name=${1:-$(date +%F)}
res=$TOP/stress/results/$name.md
mkdir -p "$(dirname "$res")"
dir() { if [ "${QUICK:-0}" = 1 ]; then echo "$OUT/stress-$1-quick"; else echo "$OUT/stress-$1"; fi; }
counts() { cat "$(dir "$1")/counts.txt" 2>/dev/null || echo "(not run)"; }
results() { cat "$(dir "$1")/results.txt" 2>/dev/null || true; }
{
	echo "# make stress, $name"
	echo
	echo "Debug kernels (lockdep, KASAN, hung-task), TCG guests, 2 vCPUs."
	echo "Counts per loop, as each loop printed them; then each kernel's results."
	echo
	echo "| loop | stock 6.12 | series |"
	echo "|---|---|---|"
	for l in removal mem-pressure soak powercut kernel; do
		v=$(counts vanilla | sed -n "s/^$l: //p") p=$(counts patched | sed -n "s/^$l: //p")
		echo "| $l | ${v:--} | ${p:--} |"
	done
	for k in vanilla patched; do
		echo
		echo "## $k"
		echo
		echo '```'
		results $k
		echo '```'
	done
} > "$res"
echo "$res"
