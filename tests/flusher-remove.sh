#!/bin/bash
# Removing a device with dirty data pending stops its flusher, hangs
# nothing and loses nothing that was synced; unmount writes dirty inodes.
. "$(dirname "$0")/../guest/lib.sh"
require_file "$FLUSHER_THREADS"
quiet_writeback
ref=$(make_ref remove.ref 4096)

say "loop device: unmount writes dirty inodes; detach with dirty data; removal"
truncate -s 640M /tmp/loop.img		# a 512M fs, then room for raw writes
loop=$(losetup -f --show /tmp/loop.img) || fail "losetup"
lbdi=$(bdi_of "$loop")
keep_dirty "$lbdi"
mkfs.ext4 -q -F "$loop" 512M && mount_dev ext4 "$loop" /mnt/loop || fail "mkfs/mount"
cp "$ref" /mnt/loop/synced; sync
cp "$ref" /mnt/loop/dirty
[ "$(bdi_dirty_kb "$lbdi")" -gt $SLACK_KB ] || fail "nothing dirty on $lbdi"
umount /mnt/loop || fail "umount"
# dirty data at removal; an opener stays, or the last close writes it back
exec 3<>"$loop"
dd if=/dev/urandom of="$loop" bs=1M count=4 seek=560 status=none
wait_thread 30 "flush-$lbdi" || fail "no flusher for $lbdi"
[ "$(bdi_dirty_kb "$lbdi")" -gt $SLACK_KB ] || fail "nothing dirty on $lbdi at detach"
timeout 60 losetup -d "$loop" || fail "losetup -d hung or failed"
exec 3>&-
n=${loop#/dev/loop}
timeout 60 python3 -c "import fcntl, os; fcntl.ioctl(os.open('/dev/loop-control', os.O_RDWR), 0x4C81, $n)" ||
	fail "LOOP_CTL_REMOVE of $loop failed"
wait_no_thread 10 "flush-$lbdi" || fail "flush-$lbdi survived the removal"
[ -d "/sys/kernel/debug/bdi/$lbdi" ] && fail "bdi $lbdi still in debugfs"
loop=$(losetup -f --show /tmp/loop.img) || fail "losetup again"
mount_dev ext4 "$loop" /mnt/loop
cmp "$ref" /mnt/loop/synced || fail "synced file lost"
cmp "$ref" /mnt/loop/dirty || fail "file dirty at unmount lost"
umount /mnt/loop; losetup -d "$loop"

say "null_blk through configfs, removed with dirty data"
nb=/sys/kernel/config/nullb/flushtest
mkdir $nb || fail "configfs nullb"
echo 256 > $nb/size; echo 1 > $nb/memory_backed; echo 1 > $nb/power
dev=/dev/flushtest	# null_blk names the disk after the configfs dir
wait_until 5 test -b "$dev" || fail "no $dev"
nbdi=$(bdi_of "$dev")
keep_dirty "$nbdi"
exec 3<>"$dev"
dd if=/dev/urandom of="$dev" bs=1M count=8 status=none
wait_thread 30 "flush-$nbdi" || fail "no flusher for $nbdi"
[ "$(bdi_dirty_kb "$nbdi")" -gt $SLACK_KB ] || fail "nothing dirty on $nbdi"
echo 0 > $nb/power || fail "power off"
exec 3>&-
timeout 60 rmdir $nb || fail "rmdir hung or failed"
wait_no_thread 10 "flush-$nbdi" || fail "flush-$nbdi survived the removal"
[ -d "/sys/kernel/debug/bdi/$nbdi" ] && fail "bdi $nbdi still in debugfs"
true
