#!/bin/bash
# per-fs
# syncfs(2) writes one filesystem: its data is on disk, while another
# filesystem's dirty data is left alone.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
deva=$(scratch 0) devb=$(scratch 1)
ref=$(make_ref syncfs.ref 4096)
quiet_writeback
keep_dirty "$(bdi_of "$deva")"
echo 40 > "/sys/class/bdi/$(bdi_of "$devb")/min_ratio"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$deva" /mnt/a
	fresh_fs "$fs" "$devb" /mnt/b
	cp "$ref" /mnt/a/f
	cp "$ref" /mnt/b/f
	sync -f /mnt/a/f || fail "syncfs"
	dirty=$(bdi_stat "$(bdi_of "$devb")" BdiReclaimable)
	say "other filesystem: $dirty kB dirty"
	[ "$dirty" -ge 2048 ] || fail "$fs: syncfs of /mnt/a wrote /mnt/b's data too"
	umount /mnt/b
	on_disk "$fs" "$deva" /mnt/a "$ref" f
	umount /mnt/a
done
echo 0 > "/sys/class/bdi/$(bdi_of "$deva")/min_ratio"
echo 0 > "/sys/class/bdi/$(bdi_of "$devb")/min_ratio"
