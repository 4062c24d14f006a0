#!/bin/bash
# Foreign-dirty flushing of the root cgroup reaches every writeback
# context: files written by root on contexts 0-3 (their inodes owned by
# the root cgroup's wbs) are overwritten by cgroup c, whose memory.max is
# small, after their pages were dropped; c's pages on root's inodes are
# foreign dirt, and once c is over its dirty limits the kernel flushes the
# root cgroup's writeback on the bdi (flush_foreign, cgroup_writeback_by_id).
# That work (writeback_exec, reason=foreign_flush) must run on each of the
# contexts 0-3 that hold the files, not on context 0 alone.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_knob "$FLUSHER_KNOBS"
require_cgroup memory io
cg=/sys/fs/cgroup dev=$(scratch 2) mnt=/mnt/cgfrn
bdi=$(bdi_of "$dev")
quiet_writeback
keep_dirty "$bdi"
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/c
on_exit "rmdir $cg/c"
echo $((64 << 20)) > $cg/c/memory.max || fail "memory.max"
group_fs "$dev" "$mnt"
on_exit "umount $mnt"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
echo 4 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 4"
declare -A file=()
for i in $(seq 0 31); do
	mkdir "$mnt/d$i"; head -c 1M /dev/zero > "$mnt/d$i/f"
	k=$(( ($(stat -c %i "$mnt/d$i/f") - 1) / ipg % 4 ))
	[ -n "${file[$k]:-}" ] || file[$k]=$mnt/d$i/f
done
for k in 0 1 2 3; do [ -n "${file[$k]:-}" ] || fail "no file on context $k"; done
# the inodes stay in memory, attached to root's wbs; their pages go
for k in 0 1 2 3; do
	exec {fd}< "${file[$k]}"
	on_exit "exec $fd<&-"	# before the unmount
done
drop_caches
trace_on writeback:flush_foreign writeback:writeback_exec
# c rewrites them, 24 MB each: 96 MB, over c's dirty limits
bash -c 'echo $$ > "$0/cgroup.procs" && for f; do dd if=/dev/zero of="$f" bs=1M count=24 conv=notrunc status=none || exit; done' \
	"$cg/c" "${file[@]}" || fail "write from c"
trace_text | grep -q "flush_foreign: bdi $bdi" || fail "no foreign flush traced: the test shows nothing"
for k in 0 1 2 3; do
	n=$(trace_text | grep -c "writeback_exec: bdi $bdi: ctx=$k .*reason=foreign_flush")
	say "ctx $k: $n foreign-flush works"
	[ "$n" -ge 1 ] || fail "ctx $k: the root cgroup's foreign flush did not reach it"
done
sync
