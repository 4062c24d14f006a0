#!/bin/bash
# Boot a kernel in QEMU and run a command of the host's filesystem in it.
#   boot.sh BZIMAGE RUNDIR CMD...     (CMD empty: interactive shell)
# The guest sees RUNDIR as /run/out; the console goes to RUNDIR/console.log
# and to stdout unless QUIET=1. Exit status: the command's, or 124 on timeout, 125 on crash.
# Env: ACCEL (tcg|kvm), SMP (2), MEM (2G), DISKS (4), DISK_SIZE (4G),
# TIMEOUT (seconds, 1800), QEMU_DISK_OPTS (extra -drive options of every
# disk, e.g. throttling), DISK<n>_OPTS (of disk n alone, instead), DISKDIR
# (where the disk images go, build/disks), KEEP_DISKS=1 (keep the images
# of the last boot instead of fresh ones), DISK_CACHE (QEMU cache mode,
# unsafe), NUMA (a number of NUMA nodes sharing the CPUs and the memory
# evenly), APPEND (kernel parameters), QEMU_EXTRA.
set -eu
. "$(dirname "$0")/common.sh"
image=$1 rundir=$2; shift 2
accel=${ACCEL:-tcg} smp=${SMP:-2} mem=${MEM:-2G}
ndisks=${DISKS:-4} size=${DISK_SIZE:-4G} limit=${TIMEOUT:-1800}
mkdir -p "$rundir"
rm -f "$rundir/status" "$rundir/interactive" "$rundir/console.log"
if [ $# -gt 0 ]; then
	printf '%s\n' "cd '$TOP'" "$*" > "$rundir/cmd"
else
	touch "$rundir/interactive"
fi

disks=()
diskdir=${DISKDIR:-$BUILD/disks}
mkdir -p "$diskdir"
for i in $(seq 0 $((ndisks - 1))); do
	f=$diskdir/d$i.img
	if [ "${KEEP_DISKS:-0}" != 1 ] || [ ! -f "$f" ]; then
		rm -f "$f"; truncate -s "$size" "$f"   # fresh and sparse
	fi
	v=DISK${i}_OPTS; opts=${!v:-${QEMU_DISK_OPTS:-}}
	disks+=(-drive "file=$f,if=none,id=d$i,format=raw,cache=${DISK_CACHE:-unsafe}${opts:+,$opts}"
		-device "virtio-blk-pci,drive=d$i,serial=scratch$i")
done
case $accel in
tcg) acc=(-accel tcg,thread=multi) ;;
kvm) acc=(-accel kvm -cpu host) ;;
*) die "ACCEL must be tcg or kvm" ;;
esac
append="console=ttyS0 root=hostroot rootfstype=9p ro panic=-1
 rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose
 init=$TOP/guest/init null_blk.nr_devices=0 pci=noacpi ${APPEND:-}"
qemu=(qemu-system-x86_64 "${acc[@]}" -smp "$smp" -m "$mem" -no-reboot
	-kernel "$image" -append "$(echo $append)"
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs local,path="$rundir",mount_tag=out,security_model=none,multidevs=remap
	-virtfs local,path="$TOP",mount_tag=top,security_model=none,readonly=on,multidevs=remap
	"${disks[@]}" -display none -monitor none ${QEMU_EXTRA:-})
numa=()
if [ "${NUMA:-1}" -gt 1 ]; then
	case $mem in *G) mb=$(( ${mem%G} * 1024 )) ;; *M) mb=${mem%M} ;; *) die "MEM: ${mem}: want NG or NM" ;; esac
	per=$(( smp / NUMA ))
	[ $((per * NUMA)) = "$smp" ] || die "SMP=$smp does not split over NUMA=$NUMA nodes"
	for i in $(seq 0 $((NUMA - 1))); do
		numa+=(-object "memory-backend-ram,id=mem$i,size=$((mb / NUMA))M"
			-numa "node,nodeid=$i,cpus=$((i * per))-$((i * per + per - 1)),memdev=mem$i")
	done
fi
qemu+=("${numa[@]}")
start=$(date +%s)
if [ -f "$rundir/interactive" ]; then
	"${qemu[@]}" -serial mon:stdio
	exit 0
fi
set +e
if [ "${QUIET:-0}" = 1 ]; then
	timeout -k 10 "$limit" "${qemu[@]}" -serial stdio </dev/null >"$rundir/console.log" 2>&1
	rc=$?
else
	timeout -k 10 "$limit" "${qemu[@]}" -serial stdio </dev/null 2>&1 | tee "$rundir/console.log"
	rc=${PIPESTATUS[0]}
fi
set -e
log "guest ran $(( $(date +%s) - start ))s"
[ "$rc" != 124 ] || { echo "boot: wall-clock limit of ${limit}s hit" >&2; exit 124; }
[ -f "$rundir/status" ] || { echo "boot: guest ended without a status (crash?)" >&2; exit 125; }
exit "$(cat "$rundir/status")"
