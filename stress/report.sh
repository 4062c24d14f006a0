#!/bin/bash
# stress/report.sh [NAME]: the counts of each kernel's full `make stress`
# run, from what it kept in stress/results/runs/ (QUICK=1: of the last QUICK
# runs, from build/out), side by side in stress/results/NAME.md (NAME:
# today's date), followed by stress/results/NAME.notes.md where there is
# one (the reading of the results, written by hand).
set -eu
. "$(dirname "$0")/../scripts/common.sh"
name=${1:-$(date +%F)}
res=$TOP/stress/results/$name.md
mkdir -p "$(dirname "$res")"
kept() { if [ "${QUICK:-0}" = 1 ]; then echo "$OUT/stress-$1-quick/kept"; else echo "$TOP/stress/results/runs/$1"; fi; }
all() { [ -d "$(kept "$1")" ] && "$TOP/stress/counts.sh" "$(kept "$1")" "$1" || echo "(not run)"; }
counts() { all "$1" | grep -vE '^(not )?ok'; }
results() { all "$1" | tr -d '\r' | grep -E '^(not )?ok' || true; }
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
	notes=${res%.md}.notes.md
	[ ! -f "$notes" ] || { echo; cat "$notes"; }
} > "$res"
echo "$res"
