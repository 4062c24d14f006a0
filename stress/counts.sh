#!/bin/bash
# stress/counts.sh KEPT [KERNEL]: the results and counts of a `make stress`
# run from what stress/run.sh kept of it: one "ok"/"not ok" line per check,
# then one "LOOP: counts" line per loop (the power-cut batches added up,
# field by field) and the minutes of boots.
set -eu
keep=$1 kernel=${2:-}
minutes=0 results= counts=
for f in "$keep"/*.txt; do
	[ -f "$f" ] || continue
	l=$(basename "$f" .txt)
	m=$(sed -n 's/^minutes: //p' "$f") minutes=$((minutes + ${m:-0}))
	case $l in powercut-*) continue ;; esac
	results+=$(grep -E '^(not )?ok ' "$f" | sed "s/^\(\(not \)\?ok\) [0-9]* /\1 $l: /")$'\n'
	counts+=$(sed -n "s/^counts: /$l: /p" "$f")$'\n'
done
batches=$(find "$keep" -name 'powercut-*.txt' | wc -l)
if [ "$batches" -gt 0 ]; then
	if grep -q '^not ok' "$keep"/powercut-*.txt; then
		results+="not ok powercut ($batches batches)"$'\n'
	else
		results+="ok powercut ($batches batches)"$'\n'
	fi
	counts+=$(cat "$keep"/powercut-*.txt | sed -n 's/^counts: //p' | tr ',' '\n' |
		awk '{n = $NF; $NF = ""; sub(/ $/, ""); sub(/^ /, ""); if (!($0 in t)) o[k++] = $0; t[$0] += n}
		     END {printf "powercut: "; for (i = 0; i < k; i++) printf "%s%s %d", i ? ", " : "", o[i], t[o[i]]; print ""}')$'\n'
fi
printf '%s' "$results" "$counts" | grep .
echo "kernel: ${kernel:-$(basename "$keep")}, $minutes min of boots"
