#!/bin/bash
# per-fs
# sync(2) puts written data on disk: after sync, stop the filesystem dead
# (no further writes), remount, drop caches, read back. A control file
# written without sync must be lost the same way, or the check proves nothing.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
dev=$(scratch 0) mnt=/mnt/sync
ref=$(make_ref sync.ref 8192)
quiet_writeback
keep_dirty "$(bdi_of "$dev")"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	cp "$ref" "$mnt/synced"
	sync
	cp "$ref" "$mnt/control"
	shutdown_noflush "$mnt"
	umount "$mnt"
	mount_dev "$fs" "$dev" "$mnt"
	drop_caches
	cmp "$ref" "$mnt/synced" || fail "$fs: synced file differs after remount"
	if cmp -s "$ref" "$mnt/control"; then
		fail "$fs: control file written after sync survived the shutdown; the check cannot fail"
	fi
	umount "$mnt"
done
release_bdi "$(bdi_of "$dev")"
