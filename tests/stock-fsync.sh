#!/bin/bash
# per-fs
# fsync(2) of one file puts that file on disk; another dirty file of the
# same filesystem stays dirty (nothing else wrote it back).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
dev=$(scratch 0) mnt=/mnt/fsync
ref=$(make_ref fsync.ref 4096)
quiet_writeback
bdi=$(bdi_of "$dev")
keep_dirty "$bdi"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	cp "$ref" "$mnt/other"
	dd if="$ref" of="$mnt/fsynced" bs=1M conv=fsync status=none || fail "dd"
	dirty=$(bdi_stat "$bdi" BdiReclaimable)
	say "after fsync: $dirty kB still dirty on $bdi"
	[ "$dirty" -ge 2048 ] || fail "$fs: the other file was written back too ($dirty kB dirty)"
	on_disk "$fs" "$dev" "$mnt" "$ref" fsynced
	umount "$mnt"
done
release_bdi "$bdi"
