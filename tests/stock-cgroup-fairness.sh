#!/bin/bash
# per-fs
# Fairness between the root cgroup and a child cgroup on one disk (memory
# and io controllers on): while a root-cgroup writer keeps background
# writeback of the disk busy (above dirty_background_bytes), a cgroup's
# dirty data still reaches the disk by periodic writeback within
# dirty_expire + dirty_writeback + 2 s, and a sync(2) from the cgroup
# returns within that bound too.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_cgroup memory io
cg=/sys/fs/cgroup dev=$(scratch 1) mnt=/mnt/fair
ref=$(make_ref fair.ref 4096)
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/x
bound=6		# expire 3 s + interval 1 s + 2 s
# x_unwritten: bytes of cgroup x's page cache not yet on disk
x_unwritten() { awk '$1 == "file_dirty" || $1 == "file_writeback" {s += $2} END {print s + 0}' $cg/x/memory.stat; }
# the memcg counters lag by up to a per-cpu batch: 64 pages per cpu
x_written() { [ "$(x_unwritten)" -le $((64 * 4096 * $(nproc))) ]; }

for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	mkdir "$mnt/root" "$mnt/x"
	sync
	echo 300 > /proc/sys/vm/dirty_expire_centisecs
	echo 100 > /proc/sys/vm/dirty_writeback_centisecs
	echo $((4 << 20)) > /proc/sys/vm/dirty_background_bytes
	echo $((32 << 20)) > /proc/sys/vm/dirty_bytes
	# the root writer: rewrites 256 MB again and again
	(while :; do dd if=/dev/zero of="$mnt/root/big" bs=1M count=256 conv=notrunc status=none || exit; done) &
	writer=$!
	sleep 3
	grep -q "bdi $(bdi_of "$dev"): .*reason=background" <(trace_on writeback:writeback_start; sleep 2; trace_text) ||
		fail "$fs: no background writeback while the root writer runs"

	# periodic writeback of x's data, due 3 s after it is written
	bash -c 'echo $$ > "$0/cgroup.procs" && exec cp "$1" "$2"' $cg/x "$ref" "$mnt/x/f" ||
		fail "$fs: write from x"
	start=$(date +%s.%N)
	wait_until 30 x_written || fail "$fs: $(x_unwritten) bytes of x unwritten after 30 s"
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	say "x's data on disk after ${secs}s of periodic writeback"
	awk -v s="$secs" -v b=$bound 'BEGIN {exit !(s <= b)}' ||
		fail "$fs: x's due data took ${secs}s to reach the disk, bound ${bound}s"

	# sync(2) from x, with x's data dirty again
	bash -c 'echo $$ > "$0/cgroup.procs" && exec cp "$1" "$2"' $cg/x "$ref" "$mnt/x/g"
	start=$(date +%s.%N)
	bash -c 'echo $$ > "$0/cgroup.procs" && exec sync' $cg/x
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	say "sync from x took ${secs}s"
	awk -v s="$secs" -v b=$bound 'BEGIN {exit !(s <= b)}' ||
		fail "$fs: sync from x took ${secs}s with the root writer busy, bound ${bound}s"
	x_written || fail "$fs: $(x_unwritten) bytes of x unwritten after sync"

	kill $writer; wait $writer 2>/dev/null
	quiet_writeback
	on_disk "$fs" "$dev" "$mnt" "$ref" x/f x/g
	umount "$mnt"
done
rmdir $cg/x
