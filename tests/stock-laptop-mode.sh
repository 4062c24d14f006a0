#!/bin/bash
# Laptop mode: once the disk does some I/O, the laptop timer writes all
# dirty data back after laptop_mode seconds (reason=laptop_timer); with
# periodic and background writeback off, nothing else would.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
dev=$(scratch 2) bdi=$(bdi_of "$dev") mnt=/mnt/laptop
quiet_writeback
keep_dirty "$bdi"
fresh_fs ext4 "$dev" "$mnt"
sync
echo 2 > /proc/sys/vm/laptop_mode
trace_on writeback:writeback_start
dd if=/dev/zero of="$mnt/f" bs=1M count=4 status=none
# any I/O on the disk (the journal's too) arms the laptop timer; make sure
# there is some. Nothing else writes back: no periodic, no background.
dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none
wait_until 30 bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB still dirty 30s after disk I/O"
# the timer wakes the flusher only when the bdi has dirty inodes
trace_text | grep -q "bdi $bdi: .*reason=laptop_timer" || fail "no laptop_timer writeback traced"
echo 0 > /proc/sys/vm/laptop_mode
umount "$mnt"
release_bdi "$bdi"
