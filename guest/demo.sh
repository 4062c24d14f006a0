#!/bin/bash
# `make run` demo: dirty files on each scratch disk, then for a few seconds
# show the writeback threads, each disk's writeout per second and the
# bdi debugfs stats.
. "$(dirname "$0")/lib.sh"
threads() { ps -e -o pid=,comm= | grep -E 'flush-|bdi-default|kworker/u.*flush' || echo "   (none)"; }
disks=()
for i in 0 1 2 3; do disks+=("$(scratch "$i")"); done
echo 3000 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs
echo "== writeback threads at start"; threads
for i in "${!disks[@]}"; do
	fs=ext4; [ $((i % 2)) = 1 ] && fs=xfs
	fresh_fs "$fs" "${disks[$i]}" "/mnt/d$i"
	dd if=/dev/zero of="/mnt/d$i/file" bs=1M count=$((16 * (i + 1))) status=none &
done
wait
echo "== dirty data written on ${disks[*]}; writeback threads now"; threads
printf '%-4s' sec; for d in "${disks[@]}"; do printf '%12s' "$(basename "$d") kB/s"; done; echo
prev=(); for d in "${disks[@]}"; do prev+=("$(written_kb "$d")"); done
for s in $(seq 1 8); do
	[ $s = 4 ] && { echo "-- sync"; sync & }
	sleep 1
	printf '%-4s' "$s"
	for i in "${!disks[@]}"; do
		now=$(written_kb "${disks[$i]}"); printf '%12s' "$((${now%.*} - ${prev[$i]%.*}))"; prev[$i]=$now
	done; echo
done
wait
for d in "${disks[@]}"; do
	b=$(bdi_of "$d"); echo "== /sys/kernel/debug/bdi/$b/stats"; cat "/sys/kernel/debug/bdi/$b/stats"
done
echo "== writeback threads at the end"; threads
