#!/bin/bash
# per-fs
# syncfs(2) of one of two filesystems on partitions of one disk (one bdi,
# so one flusher serves both) writes that filesystem only: the other's
# dirty data is still dirty when syncfs returns, and the synced data is on
# disk.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
dev=$(scratch 3) bdi=$(bdi_of "$dev")
ref=$(make_ref shared.ref 4096)
quiet_writeback
keep_dirty "$bdi"
printf 'label: dos\n,1G\n,1G\n' | sfdisk -q "$dev" || fail "sfdisk"
wait_until 5 test -b "${dev}2" || fail "no partitions on $dev"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "${dev}1" /mnt/p1
	fresh_fs "$fs" "${dev}2" /mnt/p2
	sync
	dd if=/dev/zero of=/mnt/p2/other bs=1M count=16 status=none
	cp "$ref" /mnt/p1/f
	sync -f /mnt/p1 || fail "syncfs"
	dirty=$(bdi_stat "$bdi" BdiReclaimable)
	say "after syncfs of p1: $dirty kB dirty on $bdi"
	[ "$dirty" -ge $((16384 - SLACK_KB)) ] || fail "$fs: syncfs of p1 wrote p2's data too ($dirty kB dirty)"
	umount /mnt/p2
	on_disk "$fs" "${dev}1" /mnt/p1 "$ref" f
	umount /mnt/p1
done
release_bdi "$bdi"
