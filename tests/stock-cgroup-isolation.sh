#!/bin/bash
# timeout: 500
# Isolation between cgroups on one disk (memory and io controllers on):
# cgroup s is throttled, cgroup x is not. Cgroup x's dirty data must still
# reach the disk by periodic writeback within dirty_expire +
# dirty_writeback + 2 s, and x's fsync must not take longer than it did
# before s had a backlog (10%, plus 0.5 s of TCG noise). Two throttles:
# - iocost: s at io.weight 1 against a direct-I/O competitor c at 100, so
#   that whoever submits s's writeback sleeps in iocost for a long time;
# - blk-throttle: io.max wbps of 64 kB/s on s, whose bios are held back.
# With the series the disk has one flusher here, so that s and x share it.
# XFS only: ext4's data=ordered journal ties x's allocations to s's data on
# any kernel. syncfs is not checked: it covers s's inodes of the same
# filesystem on any kernel.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_cgroup memory io
[ -e /sys/fs/cgroup/io.cost.qos ] || skip "no iocost (CONFIG_BLK_CGROUP_IOCOST)"
cg=/sys/fs/cgroup dev=$(scratch 1) mnt=/mnt/iso
bdi=$(bdi_of "$dev")
ref=$(make_ref iso.ref 2048)
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/s $cg/c $cg/x
bound=6		# expire 3 s + interval 1 s + 2 s
# unwritten CG: bytes of cgroup CG's page cache not yet on disk
unwritten() { awk '$1 == "file_dirty" || $1 == "file_writeback" {s += $2} END {print s + 0}' "$cg/$1/memory.stat"; }
# the memcg counters lag by up to a per-cpu batch: 64 pages per cpu
written() { [ "$(unwritten "$1")" -le $((64 * 4096 * $(nproc))) ]; }
in_cg() { local g=$1; shift; bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg/$g" "$@"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }
# fsync_time NAME: seconds for x to write the reference file and fsync it
fsync_time() {
	local t0
	t0=$(date +%s.%N)
	in_cg x dd if="$ref" of="$mnt/x/$1" bs=64k conv=fsync status=none || fail "fsync from x"
	elapsed "$t0"
}
# isolated NAME: with s throttled by NAME, s's backlog does not hold up
# x's periodic writeback nor x's fsync
isolated() {
	local base left start secs loaded
	base=$(fsync_time "$1-base")
	say "$1: fsync of 2 MB from x, s idle: ${base}s"
	# s's backlog: 32 MB, due for periodic writeback after 3 s
	in_cg s dd if=/dev/zero of="$mnt/s/$1" bs=1M count=32 status=none || fail "write from s"
	sleep 6
	left=$(unwritten s)
	say "$1: s has $((left >> 10)) kB not on disk 6 s after its write"
	[ "$left" -ge $((16 << 20)) ] || fail "$1: s is not throttled (only $left bytes left): the test shows nothing"
	# x's data, due 3 s after it is written
	in_cg x cp "$ref" "$mnt/x/$1" || fail "write from x"
	start=$(date +%s.%N)
	wait_until 30 written x || say "$1: x has $(unwritten x) bytes unwritten after 30 s"
	secs=$(elapsed "$start")
	say "$1: x's data on disk after ${secs}s of periodic writeback (bound ${bound}s)"
	awk -v s="$secs" -v b=$bound 'BEGIN {exit !(s <= b)}' ||
		errs+=("$1: x's due data took ${secs}s to reach the disk while s was throttled, bound ${bound}s")
	loaded=$(fsync_time "$1-loaded")
	say "$1: fsync of 2 MB from x, s throttled with a backlog: ${loaded}s"
	awk -v l="$loaded" -v b="$base" 'BEGIN {exit !(l <= 1.1 * b + 0.5)}' ||
		errs+=("$1: x's fsync took ${loaded}s with s throttled, ${base}s without")
}
errs=()

fresh_fs xfs "$dev" "$mnt"
mkdir "$mnt/s" "$mnt/c" "$mnt/x"
sync
echo 300 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs
echo $((512 << 20)) > /proc/sys/vm/dirty_background_bytes
echo $((1024 << 20)) > /proc/sys/vm/dirty_bytes
keep_dirty "$bdi"
knob=/sys/class/bdi/$bdi/flushers
[ -e "$knob" ] && { echo 1 > "$knob" || fail "flushers refused 1"; }

# iocost on the disk: a linear model of a 2 MB/s device, vrate fixed; x
# (weight 10000) gets nearly all of it when it writes, s (1) nearly nothing
echo "default 1" > $cg/s/io.weight || fail "io.weight of s"
echo "default 100" > $cg/c/io.weight
echo "default 10000" > $cg/x/io.weight
echo "$bdi ctrl=user model=linear rbps=$((2 << 20)) rseqiops=4000 rrandiops=4000 wbps=$((2 << 20)) wseqiops=4000 wrandiops=4000" \
	> $cg/io.cost.model || fail "io.cost.model refused"
echo "$bdi enable=1 ctrl=user min=100.00 max=100.00" > $cg/io.cost.qos || fail "io.cost.qos refused"
# the competitor keeps the disk busy with direct I/O
in_cg c bash -c 'while :; do dd if=/dev/zero of="$0/c/f" bs=64k count=256 oflag=direct status=none || exit; done' "$mnt" &
comp=$!
sleep 2
isolated iocost
# release s: no competitor, a normal weight; its backlog drains
kill $comp; wait $comp 2>/dev/null
echo "default 100" > $cg/s/io.weight
wait_until 120 written s || say "s: $(unwritten s) bytes unwritten 120 s after release"
echo "$bdi enable=0" > $cg/io.cost.qos

echo "$bdi wbps=65536" > $cg/s/io.max || fail "io.max refused"
isolated io.max
echo "$bdi wbps=max" > $cg/s/io.max
wait_until 120 written s || say "s: $(unwritten s) bytes unwritten 120 s after release"
sync
for e in "${errs[@]}"; do echo "FAIL: $e"; done
[ ${#errs[@]} = 0 ] || fail "${#errs[@]} isolation checks failed"
on_disk xfs "$dev" "$mnt" "$ref" x/iocost x/iocost-loaded x/io.max x/io.max-loaded
umount "$mnt"
rmdir $cg/s $cg/c $cg/x
