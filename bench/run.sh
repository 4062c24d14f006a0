#!/bin/bash
# `make bench`: build a non-debug stock and a non-debug patched kernel
# (same config otherwise), boot each in turn with the same twelve disks
# (fresh each boot) and run bench/guest.sh, REPS times, alternating which
# kernel goes first; each pass also boots both kernels at SMP=1 for the
# scaling workload W4S (the SMP=2 passes run it too). Then bench/report.sh
# writes bench/results/NAME.md and its plots.
#   QUICK=1: quarter sizes, one pass each (a smoke check of a few minutes)
#   REPS (6, QUICK: 1), NAME (of the report; the date, QUICK: quick), W
#   (workloads, e.g. W="W1 W4"; default all)
# A full run takes longer than one machine session here: the results of
# every finished boot are kept in git (bench/results/runs/full/, with W=
# runs/<workloads>/; QUICK: build/out/bench-quick), and `make bench` with
# the same kernel sources, configs, workloads and sizes goes on with the
# boots that are missing, also on another machine; both kernels of one
# pass always run on the same machine (a half-finished pass from another
# one is run again). FRESH=1 starts over. The report is built from the
# passes there are.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
quick=${QUICK:-0} div=1 reps=${REPS:-6} name=${NAME:-$(date +%F)} workloads=${W:-}
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
export DISKS=12 DISK_SIZE=4G DISKDIR=$BUILD/disks-bench QUIET=1 MEM=${MEM:-2G}
smp=${SMP:-2}
# kept per selection: a W= run neither reuses nor removes the full run's
runs=$TOP/bench/results/runs/$(echo "${workloads:-full}" | tr ' ' '+') boots=$OUT/bench
[ "$quick" = 1 ] && runs=$OUT/bench-quick
# what the kept results depend on: the two kernels' sources and configs,
# the guest side and the disks
sources=$({
	cat "$BUILD/debian-version"; series_code; cat "$TOP"/config/base.config "$TOP"/config/bench.config
	cat "$TOP"/bench/guest.sh "$TOP"/bench/measure.sh "$TOP"/guest/*.sh
	echo "$SATA $DISKS $DISK_SIZE $MEM"
} | md5sum | cut -c1-16)
machine=$(cat /proc/sys/kernel/random/boot_id)
if [ "${FRESH:-0}" = 1 ] || [ "$(sed -n 's/^sources=//p' "$runs/setup.txt" 2>/dev/null)" != "$sources" ] ||
	[ "$(sed -n 's/^reps=.* div=\([0-9]*\) .*workloads=\(.*\)/\1 \2/p' "$runs/setup.txt" 2>/dev/null)" != "$div ${workloads:-all}" ]; then
	rm -rf "$runs"
fi
mkdir -p "$runs"
read -r load _ < /proc/loadavg
if awk -v l="$load" 'BEGIN {exit !(l > 0.3)}'; then
	log "the host is busy (load average $load): timings will be noisy"
fi
echo "$(date +%FT%T) load $load" >> "$runs/host-load.txt"
[ -f "$runs/setup.txt" ] || {
	echo "debian=$(cat "$BUILD/debian-version")"
	echo "patches=$(git -C "$TREE" rev-list --count base..HEAD)"
	echo "series_head=$(git -C "$TREE" log -1 --format='%h %s')"
	echo "reps=$reps div=$div smp=$smp mem=$MEM accel=${ACCEL:-tcg} workloads=${workloads:-all}"
	echo "sources=$sources"
	echo "throttle=$SATA"
	echo "host=$(nproc) cpus, $(awk '/MemTotal/ {print int($2 / 1048576) " GiB"}' /proc/meminfo)"
} > "$runs/setup.txt"
sed -i "s/^reps=[0-9]*/reps=$reps/" "$runs/setup.txt"

# pass KERNEL DIR SMP W: one boot, unless DIR already holds its results;
# keeps its results, the W2 series, the host's load and the machine in DIR,
# the rest of the boot (console, logs) in build/out/bench/
pass() {
	local image=$stock boot=$boots/$(basename "$2")
	[ "$1" = patched ] && image=$patched
	grep -qs '^bench.done ' "$2/results.txt" && return 0
	log "bench $(basename "$2") (SMP=$3)"
	read -r load _ < /proc/loadavg
	rm -rf "$2" "$boot"
	SMP=$3 "$TOP/scripts/boot.sh" "$image" "$boot" "W='$4' DIV=$div bash bench/guest.sh" ||
		die "bench boot $boot failed: see $boot/console.log"
	grep -q '^bench.done ' "$boot/results.txt" || die "$boot: incomplete results"
	mkdir -p "$2"
	cp "$boot/results.txt" "$2/"
	cp "$boot/kernel.txt" "$2/"
	[ -f "$boot/w2-series.txt" ] && cp "$boot/w2-series.txt" "$2/"
	echo "$load" > "$2/host-load"
	echo "$machine" > "$2/machine"
}
# same_machine DIR...: drop the kept boots of DIRs unless all of them ran on
# this machine or none ran yet (a pass's paired boots share a machine)
same_machine() {
	local d other=0
	for d in "$@"; do
		grep -qs '^bench.done ' "$d/results.txt" && [ "$(cat "$d/machine" 2>/dev/null)" != "$machine" ] && other=1
	done
	[ $other = 0 ] && return 0
	for d in "$@"; do grep -qs '^bench.done ' "$d/results.txt" || { rm -rf "$@"; return 0; }; done
}
scale=yes
[ -z "$workloads" ] || case " $workloads " in *" W4S "*) ;; *) scale=no ;; esac
for r in $(seq 1 "$reps"); do
	order="stock patched"; [ $((r % 2)) = 0 ] && order="patched stock"
	same_machine "$runs/stock-$r" "$runs/patched-$r"
	[ $scale = yes ] && same_machine "$runs/stock-$r.smp1" "$runs/patched-$r.smp1"
	for k in $order; do
		pass "$k" "$runs/$k-$r" "$smp" "${workloads:-W6 W1 W2 W3 W4 W4.cg W5 L W4S}"
	done
	[ $scale = yes ] || continue
	for k in $order; do
		pass "$k" "$runs/$k-$r.smp1" 1 W4S
	done
done
rm -rf "$BUILD/disks-bench"
"$TOP/bench/report.sh" "$runs" "$name"
