#!/bin/bash
# Work for a whole bdi is split over the writeback contexts that have
# dirty inodes, not over all of them: with 32 contexts and one dirty file,
# the WB_SYNC_NONE pass of syncfs (writeback_inodes_sb) asks that file's
# context for at least half the file's pages (traced writeback_queue
# nr_pages; another context may hold metadata).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_knob "$FLUSHER_KNOBS"
dev=$(scratch 0) bdi=$(bdi_of "$(scratch 0)") mnt=/mnt/split
quiet_writeback
keep_dirty "$bdi"
fresh_fs xfs "$dev" "$mnt"
echo 32 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 32"
sync
trace_on writeback:writeback_queue writeback:writeback_dirty_inode_enqueue
dd if=/dev/zero of="$mnt/f" bs=1M count=16 status=none
ino=$(stat -c %i "$mnt/f") ctx=$(traced_ctx "$ino")
[ -n "$ctx" ] || fail "no context traced for inode $ino"
sync -f "$mnt"
line=$(trace_text | grep "writeback_queue: bdi $bdi: ctx=$ctx .*sync_mode=0 .*reason=sync" | head -1)
[ -n "$line" ] || fail "no WB_SYNC_NONE sync work queued on ctx $ctx: $(trace_text | grep writeback_queue | head -5)"
nr=$(echo "$line" | grep -o 'nr_pages=[0-9]*' | cut -d= -f2)
say "ctx $ctx asked for $nr pages for a file of 4096"
# at most one other context (metadata) may share the work
[ "$nr" -ge 2048 ] || fail "ctx $ctx asked for $nr pages, under half its file's 4096"
umount "$mnt"
release_bdi "$bdi"
