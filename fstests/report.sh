#!/bin/bash
# Summarise a kept fstests run: fstests/report.sh RUNDIR > report.md
# Per file KERNEL-FLAVOUR-FSTYP-fN.txt: passed, failed, not run, crashed;
# then every test whose status differs between stock (vanilla, f0) and a
# setting of the series, with where its output is kept.
set -eu
runs=$1
echo "# fstests: $(basename "$runs")"
echo
echo "| kernel, fs, flushers | tests | pass | fail | not run | crash |"
echo "|---|---|---|---|---|---|"
for f in "$runs"/*.txt; do
	[ -f "$f" ] || continue
	awk -v n="$(basename "$f" .txt)" '!/^#/ {c[$2]++; t++}
		END {printf "| %s | %d | %d | %d | %d | %d |\n", n, t, c["pass"], c["fail"], c["notrun"], c["crash"]}' "$f"
done
echo
echo "## Differences from stock"
echo
found=0
for stock in "$runs"/vanilla-*-f0.txt; do
	[ -f "$stock" ] || continue
	rest=${stock#"$runs"/vanilla-}; rest=${rest%-f0.txt}	# FLAVOUR-FSTYP
	for series in "$runs"/patched-"$rest"-f*.txt; do
		[ -f "$series" ] || continue
		while read -r t a b; do
			found=1
			echo "- $(basename "$series" .txt) \`$t\`: stock $a, series $b (logs/$(basename "$series" .txt)/$t.*)"
		done < <(awk 'FNR == 1 {file++} /^#/ {next}
			file == 1 {s[$1] = $2} file == 2 && ($1 in s) && s[$1] != $2 {print $1, s[$1], $2}' "$stock" "$series")
	done
done
[ $found = 1 ] || echo "None among the tests both kernels ran."
