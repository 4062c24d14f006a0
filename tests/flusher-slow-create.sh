#!/bin/bash
# timeout: 600
# Forward progress while flusher threads are slow to come: with every
# creation delayed by 30 s (fail_flusher_create/delay_ms), the forker
# writes back for the bdis meanwhile, a bounded chunk at a time and each
# in turn. sync(2) and background writeback on two disks finish within
# seconds, and a writer at its memory cgroup's memory.max makes progress
# (no OOM kill, data on disk).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_file "$FLUSHER_THREADS" "$FLUSHER_FAULTS"
fi_dir=/sys/kernel/debug/fail_flusher_create
[ -f $fi_dir/delay_ms ] || fail "no $fi_dir/delay_ms"
d0=$(scratch 0) d1=$(scratch 1) b0=$(bdi_of "$(scratch 0)") b1=$(bdi_of "$(scratch 1)")
quiet_writeback
keep_dirty "$b0"; keep_dirty "$b1"
ref=$(make_ref slow.ref 16384)
fresh_fs ext4 "$d0" /mnt/s0
fresh_fs xfs "$d1" /mnt/s1
# bad values are refused, the value stays
for v in -1 abc 600001 99999999999999999999 ""; do
	! echo "$v" > $fi_dir/delay_ms 2>/dev/null || fail "delay_ms took '$v'"
done
[ "$(cat $fi_dir/delay_ms)" = 0 ] || fail "delay_ms is $(cat $fi_dir/delay_ms) after bad writes"
idle_all_flushers
echo 0 > $fi_dir/verbose
echo -1 > $fi_dir/times
echo 30000 > $fi_dir/delay_ms
echo 100 > $fi_dir/probability
stop_delay() { echo 0 > $fi_dir/probability; echo 0 > $fi_dir/delay_ms; }
trace_on writeback:writeback_forker_fallback writeback:writeback_flusher_create

say "sync with both flushers delayed"
cp "$ref" /mnt/s0/f; cp "$ref" /mnt/s1/f
start=$(date +%s%N)
timeout 20 sync || { stop_delay; fail "sync did not finish in 20 s with creation delayed"; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
say "sync took $ms ms"
for b in $b0 $b1; do
	[ "$(flusher_state "$b")" = pending ] || { stop_delay; fail "$b: state $(flusher_state "$b"), want pending"; }
	trace_text | grep -q "writeback_forker_fallback: bdi $b:" || { stop_delay; fail "$b: no forker fallback traced"; }
	bdi_clean "$b" || { stop_delay; fail "$b: $(bdi_dirty_kb "$b") kB dirty after sync"; }
done
[ $ms -le 15000 ] || { stop_delay; fail "sync took $ms ms"; }
# the forker also served sync's wakeup_flusher_threads() (WB_start_all):
# left pending, it makes the kernel drop every later one, reclaim's too
for b in $b0 $b1; do
	wait_until 5 no_start_all "$b" ||
		{ stop_delay; fail "$b: wakeup left pending, wb states $(wb_states "$b" | xargs)"; }
done

say "background writeback with both flushers delayed"
echo $((4 << 20)) > /proc/sys/vm/dirty_background_bytes
cp "$ref" /mnt/s0/g; cp "$ref" /mnt/s1/g
for b in $b0 $b1; do
	wait_until 20 eval '[ "$(bdi_stat "$b" BdiReclaimable)" -le 5120 ]' ||
		{ stop_delay; fail "$b: background writeback stalled at $(bdi_stat "$b" BdiReclaimable) kB"; }
done
quiet_writeback

say "a memory cgroup writer at memory.max, flusher delayed"
# (without cgroup writeback a memory cgroup has no dirty throttling of
# its own, and fills with dirty pages on stock 6.12 as well)
if grep -qw io /sys/fs/cgroup/cgroup.controllers; then
	# the kernel's default dirty limits, which the memory cgroup's follow
	# (a ratio written clears its _bytes twin, which refuses 0)
	echo 20 > /proc/sys/vm/dirty_ratio; echo 10 > /proc/sys/vm/dirty_background_ratio
	[ "$(cat /proc/sys/vm/dirty_bytes):$(cat /proc/sys/vm/dirty_background_bytes)" = 0:0 ] ||
		fail "dirty_bytes/dirty_background_bytes not cleared by the ratios"
	release_bdi "$b0"
	echo "+memory +io" > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/slow
	echo $((32 << 20)) > /sys/fs/cgroup/slow/memory.max
	oom0=$(awk '$1 == "oom_kill" {print $2}' /sys/fs/cgroup/slow/memory.events)
	timeout 120 bash -c "echo \$\$ > /sys/fs/cgroup/slow/cgroup.procs && cat $ref $ref $ref $ref > /mnt/s0/big" ||
		{ stop_delay; fail "the cgroup writer failed or hung"; }
	oom=$(awk '$1 == "oom_kill" {print $2}' /sys/fs/cgroup/slow/memory.events)
	[ "$oom" = "$oom0" ] || { stop_delay; fail "OOM kills in the cgroup: $oom"; }
	sync
	rmdir /sys/fs/cgroup/slow
	cat "$ref" "$ref" "$ref" "$ref" > /tmp/big.ref
else
	say "no io controller (no cgroup writeback): skipped this part"
fi
stop_delay
{ wait_thread 60 "flush-$b0" && wait_thread 60 "flush-$b1"; } ||
	fail "no flushers once creation is quick again"
timeout 60 sync || fail "sync hung once creation is quick again"
on_disk ext4 "$d0" /mnt/s0 "$ref" f g
[ -f /tmp/big.ref ] && { cmp /tmp/big.ref /mnt/s0/big || fail "cgroup writer's data differs"; }
on_disk xfs "$d1" /mnt/s1 "$ref" f g
umount /mnt/s0 /mnt/s1
release_bdi "$b0"; release_bdi "$b1"
