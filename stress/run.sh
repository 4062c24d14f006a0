#!/bin/bash
# `make stress`: fault loops on the debug kernel (KERNEL=patched|vanilla).
# Each guest loop (stress/loops/*.sh and the invalid-input test) gets a boot
# of its own, judged like `make test`; then POWERCUTS boots (100; QUICK=1:
# 10) are each killed at a random moment while files are written and
# recorded as durable, and one last boot checks the last cycle.
# A full run takes longer than one machine session here, so it resumes:
# every finished loop, and every finished batch of power cuts
# (POWERCUT_BATCH, default all that are left), is kept in git under
# stress/results/runs/KERNEL/ and not run again while the kernel's code
# and the stress scripts stay the same; an unfinished batch goes on from its
# last cycle on the same disks when they are still there (build/out).
# FRESH=1 starts over. The counts go to build/out/stress-KERNEL[-quick]/
# counts.txt (stress/report.sh puts both kernels side by side); ends with
# "N passed, N failed" and exits 1 on a failure.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
kernel=${KERNEL:-patched} quick=${QUICK:-0}
cycles=${POWERCUTS:-100}; [ "$quick" = 1 ] && cycles=${POWERCUTS:-10}
loops=${LOOPS:-"removal mem-pressure soak flusher-bad-input"}
"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh" "$kernel"
image=$("$TOP/scripts/build.sh" "$kernel" test | tail -n1)
run=$OUT/stress-$kernel keep=$TOP/stress/results/runs/$kernel
[ "$quick" = 1 ] && run=$run-quick keep=$run/kept
sum=$(md5sum < "$image" | cut -c1-12)
if [ "${FRESH:-0}" = 1 ] || [ "$(cat "$run/image" 2>/dev/null)" != "$sum" ]; then
	rm -rf "$run"
fi
mkdir -p "$run"; echo "$sum" > "$run/image"
# what the kept results depend on: the kernel's code (not its changelogs or
# Documentation/) and configs, and the guest side of the loops
ident=$({
	cat "$BUILD/debian-version" "$TOP"/config/base.config "$TOP"/config/debug.config
	[ "$kernel" = patched ] && series_code && cat "$TOP"/config/series.config
	cat "$TOP"/stress/loops/*.sh "$TOP"/stress/powercut-guest.sh "$TOP"/guest/*.sh "$TOP"/tests/flusher-bad-input*
} | md5sum | cut -c1-16)
if [ "${FRESH:-0}" = 1 ] || [ "$(cat "$keep/ident" 2>/dev/null)" != "$ident" ]; then
	rm -rf "$keep"
fi
mkdir -p "$keep"; echo "$ident" > "$keep/ident"
# loop disks are sparse, but up to GiBs; the power cuts keep theirs
trap 'for l in $loops; do rm -rf "$run/$l/disks"; done' EXIT
series=; [ "$kernel" = patched ] && series=--series

for l in $loops; do
	dir=$run/$l
	if [ -f "$keep/$l.txt" ]; then
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
	{
		echo "minutes: $(cat "$dir/minutes")"
		grep '^counts: ' "$dir/logs/$l.log" 2>/dev/null || true
		cat "$dir/judge.txt"
	} > "$keep/$l.txt"
done

# power cuts in batches, each a complete run of its own disks
cuts_kept() { cat "$keep"/powercut-*.txt 2>/dev/null | sed -n 's/^counts: power cuts \([0-9]*\),.*/\1/p' | awk '{n += $1} END {print n + 0}'; }
while [ "$(cuts_kept)" -lt "$cycles" ]; do
	b=$(($(find "$keep" -name 'powercut-*.txt' | wc -l) + 1))
	n=$((cycles - $(cuts_kept))); [ "$n" -gt "${POWERCUT_BATCH:-$n}" ] && n=$POWERCUT_BATCH
	log "power cuts: batch $b, $n cycles"
	"$TOP/stress/powercut.sh" "$image" "$run/powercut-$b" "$n" > "$run/powercut-$b.txt" || true
	# only a batch that got to its verdict is kept (and counts its cuts)
	grep -qE '^(not )?ok powercut' "$run/powercut-$b.txt" ||
		die "power-cut batch $b stopped early: see $run/powercut-$b.txt"
	{ echo "minutes: $(cat "$run/powercut-$b/minutes")"; cat "$run/powercut-$b.txt"; } > "$keep/powercut-$b.txt"
done

# counts and results of everything kept
"$TOP/stress/counts.sh" "$keep" "$kernel$([ "$quick" = 1 ] && echo ' (QUICK)')" > "$run/all.txt"
grep -E '^(not )?ok' "$run/all.txt" > "$run/results.txt" || true
grep -vE '^(not )?ok' "$run/all.txt" > "$run/counts.txt" || true
cat "$run/all.txt"
pass=$(grep -c '^ok' "$run/results.txt" || true) fail=$(grep -c '^not ok' "$run/results.txt" || true)
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
