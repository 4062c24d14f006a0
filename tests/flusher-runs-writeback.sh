#!/bin/bash
# Writeback of every kind runs on the bdi's flusher thread, not on a
# workqueue: periodic, background, sync(2), syncfs(2) and
# writeback_inodes_sb (the fs's own requests) all show up in the trace as
# writeback_start events of the task flush-<bdi>.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_file "$FLUSHER_THREADS"
dev=$(scratch 0) bdi=$(bdi_of "$dev") mnt=/mnt/runs
quiet_writeback
fresh_fs ext4 "$dev" "$mnt"
trace_on writeback:writeback_start
echo 100 > /proc/sys/vm/dirty_expire_centisecs
echo 50 > /proc/sys/vm/dirty_writeback_centisecs
dd if=/dev/zero of="$mnt/periodic" bs=1M count=2 status=none
wait_until 30 bdi_clean "$bdi" || fail "periodic writeback did not clean $bdi"
quiet_writeback
echo $((4 << 20)) > /proc/sys/vm/dirty_background_bytes
dd if=/dev/zero of="$mnt/background" bs=1M count=16 status=none
# Background writeback stops at the threshold, not below it: allow 1 MB.
wait_until 60 eval '[ "$(bdi_stat "$bdi" BdiReclaimable)" -le 5120 ]' ||
	fail "no background writeback: $(bdi_stat "$bdi" BdiReclaimable) kB dirty, $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' \n' ' ')"
quiet_writeback
dd if=/dev/zero of="$mnt/sync" bs=1M count=2 status=none
sync
dd if=/dev/zero of="$mnt/syncfs" bs=1M count=2 status=none
sync -f "$mnt"
trace_text > /tmp/trace.txt
for reason in periodic background sync; do
	grep -q "writeback_start: bdi $bdi: .*reason=$reason" /tmp/trace.txt || fail "no $reason writeback traced"
done
others=$(grep "writeback_start: bdi $bdi:" /tmp/trace.txt | grep -v "^ *flush-$bdi-[0-9]" || true)
[ -z "$others" ] || fail "writeback of $bdi ran outside its flusher: $(echo "$others" | head -3)"
say "$(grep -c "writeback_start: bdi $bdi:" /tmp/trace.txt) writeback_start events, all on flush-$bdi"
umount "$mnt"
