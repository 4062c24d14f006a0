#!/bin/bash
# Laptop mode: dirty data waits until the disk does some I/O; then, after
# laptop_mode seconds, the laptop timer writes it all back
# (reason=laptop_timer).
. "$(dirname "$0")/../guest/lib.sh"
dev=$(scratch 2) bdi=$(bdi_of "$dev") mnt=/mnt/laptop
quiet_writeback
keep_dirty "$bdi"
fresh_fs ext4 "$dev" "$mnt"
sync
echo 2 > /proc/sys/vm/laptop_mode
trace_on writeback:writeback_start
dd if=/dev/zero of="$mnt/f" bs=1M count=4 status=none
[ "$(bdi_dirty_kb "$bdi")" -gt $SLACK_KB ] || fail "nothing dirty"
dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none	# disk I/O
wait_until 30 bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB still dirty 30s after disk I/O"
trace_text | grep -q "bdi $bdi: .*reason=laptop_timer" || fail "no laptop_timer writeback traced"
echo 0 > /proc/sys/vm/laptop_mode
umount "$mnt"
release_bdi "$bdi"
