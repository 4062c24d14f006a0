#!/bin/bash
# needs: series
# Flushers and the forker are freezable: a suspend cycle with pm_test set
# to "freezer", with dirty data pending, freezes and thaws every task, and
# writeback goes on afterwards.
. "$(dirname "$0")/../guest/lib.sh"
[ -f /sys/power/pm_test ] || fail "no /sys/power/pm_test"
dev=$(scratch 3) bdi=$(bdi_of "$dev") mnt=/mnt/freeze
quiet_writeback
keep_dirty "$bdi"
fresh_fs xfs "$dev" "$mnt"
dd if=/dev/zero of="$mnt/f" bs=1M count=8 status=none
wait_until 30 eval '[ -n "$(threads "flush-$bdi")" ]' || fail "no flusher"
[ "$(bdi_dirty_kb "$bdi")" -gt $SLACK_KB ] || fail "nothing dirty before the freeze"
echo freezer > /sys/power/pm_test
dmesg -C
echo freeze > /sys/power/state || fail "suspend (pm_test=freezer) failed: $(dmesg | tail -5)"
echo none > /sys/power/pm_test
dmesg | grep -q "Freezing remaining freezable tasks" || fail "no freezing in dmesg: $(dmesg | tail -5)"
dmesg | grep -qi "refused to freeze\|Freezing.*failed" && fail "a task refused to freeze: $(dmesg | grep -i -A3 refused)"
echo 100 > /proc/sys/vm/dirty_expire_centisecs
echo 50 > /proc/sys/vm/dirty_writeback_centisecs
wait_until 30 bdi_clean "$bdi" || fail "writeback did not go on after thaw"
umount "$mnt"
release_bdi "$bdi"
