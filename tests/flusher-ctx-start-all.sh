#!/bin/bash
# A writeback context that goes away while a wakeup_flusher_threads()
# request (WB_start_all) is pending on it must not come back with the
# request stuck: wb_start_writeback() drops every request while it is set.
# With 4 flushers and creation delayed, a file is dirtied on context 3; at
# once a change of vm.dirty_writeback_centisecs (which calls
# wakeup_flusher_threads()) and "flushers" 3; then 4 again, creation
# works, a new file dirtied on context 3 and the sysctl changed again:
# context 3 must write it (debugfs b_dirty 0) within 10 s, with periodic
# writeback taking nothing younger than an hour.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_knob "$FLUSHER_KNOBS"
require_file "$FLUSHER_FAULTS"
fi_dir=$FLUSHER_FAULTS dev=$(scratch 2) mnt=/mnt/startall
bdi=$(bdi_of "$dev") knob=/sys/class/bdi/$(bdi_of "$dev")/flushers
quiet_writeback
keep_dirty "$bdi"
group_fs "$dev" "$mnt"
on_exit "umount $mnt"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
echo 4 > "$knob" || fail "flushers 4"
on3=()
for i in $(seq 0 63); do
	mkdir "$mnt/d$i"; : > "$mnt/d$i/f"
	[ $(( ($(stat -c %i "$mnt/d$i/f") - 1) / ipg % 4 )) = 3 ] && on3+=("$mnt/d$i/f")
done
[ ${#on3[@]} -ge 2 ] || fail "fewer than 2 files on context 3"
idle_all_flushers
echo 3000 > /proc/sys/vm/dirty_writeback_centisecs
echo 0 > "$fi_dir/verbose"
echo -1 > "$fi_dir/times"
echo 20000 > "$fi_dir/delay_ms"
echo 100 > "$fi_dir/probability"
on_exit "echo 0 > $fi_dir/probability; echo 0 > $fi_dir/delay_ms"
# within the second before the forker's fallback would serve the request
head -c 1M /dev/zero > "${on3[0]}"
echo 3001 > /proc/sys/vm/dirty_writeback_centisecs
echo 3 > "$knob" || fail "flushers 3"
echo 0 > "$fi_dir/probability"
echo 0 > "$fi_dir/delay_ms"
echo 4 > "$knob" || fail "flushers 4 again"
head -c 1M /dev/zero > "${on3[1]}"
wait_thread 10 "flush-$bdi/3" || fail "no flusher of context 3"
[ "$(ctx_stat "$bdi" 3 b_dirty)" -ge 1 ] || fail "context 3 has no dirty inode: the test shows nothing"
echo 3000 > /proc/sys/vm/dirty_writeback_centisecs
wait_until 10 eval '[ "$(ctx_stat "$bdi" 3 b_dirty)" = 0 ]' ||
	fail "context 3 still has $(ctx_stat "$bdi" 3 b_dirty) dirty inodes 10 s after wakeup_flusher_threads()"
say "context 3 wrote its file"
sync
