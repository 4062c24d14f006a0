#!/bin/bash
# `make bench`: build a non-debug stock and a non-debug patched kernel
# (same config otherwise), boot each in turn with the same twelve disks and
# run bench/guest.sh, REPS times, alternating which kernel goes first;
# then bench/report.sh writes bench/results/NAME.md and its plots.
#   QUICK=1: quarter sizes, one pass each (a smoke check of a few minutes)
#   REPS (3, QUICK: 1), NAME (the date, QUICK: quick), W (workloads, e.g.
#   W="W4 W4.cg"; default all)
set -eu
. "$(dirname "$0")/../scripts/common.sh"
quick=${QUICK:-0} div=1 reps=${REPS:-3} name=${NAME:-$(date +%F)} workloads=${W:-}
# make passes its command-line variables on to the kernel's make, whose W=
# is the warning level: keep `make bench W=...` out of the kernel builds
unset W MAKEFLAGS MAKEOVERRIDES MFLAGS
if [ "$quick" = 1 ]; then div=4 reps=${REPS:-1} name=${NAME:-quick}; fi

"$TOP/scripts/tree.sh" patched
"$TOP/scripts/tree.sh" vanilla
stock=$("$TOP/scripts/build.sh" vanilla bench | tail -n1)
patched=$("$TOP/scripts/build.sh" patched bench | tail -n1)

# vd[a-j]: a SATA drive's limits; vdk, vdl: as fast as QEMU goes
export SATA="throttling.bps-total=$((40 << 20)),throttling.iops-total=150"
for i in 0 1 2 3 4 5 6 7 8 9; do export "DISK${i}_OPTS=$SATA"; done
export DISKS=12 DISK_SIZE=4G DISKDIR=$BUILD/disks-bench QUIET=1 SMP=${SMP:-2} MEM=${MEM:-2G}
runs=$OUT/bench-$name
rm -rf "$runs"; mkdir -p "$runs"
{
	echo "debian=$(cat "$BUILD/debian-version")"
	echo "patches=$(git -C "$TREE" rev-list --count base..HEAD)"
	echo "series_head=$(git -C "$TREE" log -1 --format='%h %s')"
	echo "reps=$reps div=$div smp=$SMP mem=$MEM accel=${ACCEL:-tcg} workloads=${workloads:-all}"
	echo "throttle=$SATA"
	echo "host=$(nproc) cpus, $(awk '/MemTotal/ {print int($2 / 1048576) " GiB"}' /proc/meminfo)"
} > "$runs/setup.txt"

for r in $(seq 1 "$reps"); do
	order="stock patched"; [ $((r % 2)) = 0 ] && order="patched stock"
	for k in $order; do
		image=$stock; [ "$k" = patched ] && image=$patched
		log "bench pass $r/$reps: $k"
		"$TOP/scripts/boot.sh" "$image" "$runs/$k-$r" "W='$workloads' DIV=$div bash bench/guest.sh" ||
			die "bench pass $k-$r failed: see $runs/$k-$r/console.log"
		grep -q '^bench.done ' "$runs/$k-$r/results.txt" || die "$k-$r: incomplete results"
	done
done
rm -rf "$BUILD/disks-bench"
"$TOP/bench/report.sh" "$runs" "$name"
