#!/bin/bash
# An inode freed while dirty on a writeback context other than 0 does not
# carry its context into the next inode of the slab: with disk A at 32
# flushers and disk B at 1, files dirtied and removed on A, then files
# created on B, give no oops, and B's inodes are written back by its one
# context. Once with ext4 (no flex_bg: a context per block group), once
# with two XFS (8 AGs on A, 2 on B).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_knob "$FLUSHER_KNOBS"
a=$(scratch 0) b=$(scratch 1) abdi=$(bdi_of "$(scratch 0)") bbdi=$(bdi_of "$(scratch 1)")
quiet_writeback
echo 30 > "/sys/class/bdi/$abdi/min_ratio"
echo 30 > "/sys/class/bdi/$bbdi/min_ratio"
ref=$(make_ref reuse.ref 8)

for fs in ext4 xfs; do
	say "$fs"
	case $fs in
	ext4) mkfs.ext4 -q -F -O ^flex_bg "$a" && mkfs.ext4 -q -F "$b" ;;
	xfs) mkfs.xfs -q -f -d agcount=8 "$a" && mkfs.xfs -q -f -d agcount=2 "$b" ;;
	esac || fail "$fs: mkfs"
	mount_dev $fs "$a" /mnt/a && mount_dev $fs "$b" /mnt/b || fail "$fs: mount"
	echo 32 > "/sys/class/bdi/$abdi/flushers" || fail "flushers 32 on $abdi"
	echo 1 > "/sys/class/bdi/$bbdi/flushers" || fail "flushers 1 on $bbdi"
	for i in $(seq 0 63); do mkdir /mnt/a/d$i && cp "$ref" /mnt/a/d$i/f; done
	used=$(awk '$1 == "ctx" && $2 != "0:" && $7 > 0' "/sys/kernel/debug/bdi/$abdi/stats" | wc -l)
	[ "$used" -ge 2 ] || fail "$fs: the files on $abdi use $used contexts above 0"
	rm -rf /mnt/a/d*		# freed while dirty
	sleep 2
	for i in $(seq 0 199); do : > /mnt/b/e$i; cp "$ref" /mnt/b/f$i; done
	[ "$(ctx_stat "$bbdi" 0 b_dirty)" -ge 200 ] ||
		fail "$fs: $bbdi ctx 0 holds $(ctx_stat "$bbdi" 0 b_dirty) dirty inodes, want >= 200"
	[ -z "$(ctx_stat "$bbdi" 1 b_dirty)" ] || fail "$fs: $bbdi shows a context 1"
	sync
	files=(); for i in $(seq 0 199); do files+=(f$i); done
	on_disk $fs "$b" /mnt/b "$ref" "${files[@]}"
	umount /mnt/a /mnt/b
	echo 1 > "/sys/class/bdi/$abdi/flushers"
done
