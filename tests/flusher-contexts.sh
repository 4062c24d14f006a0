#!/bin/bash
# timeout: 900
# More than one flusher per bdi: /sys/class/bdi/<bdi>/flushers (1..32),
# a thread per writeback context with its own name, inodes bound to the
# context of their ext4 block group or XFS allocation group (as traced and
# as the debugfs stats count them), sync and syncfs over every context,
# shrinking with dirty inodes, changing the number under load, XFS asking
# for its AG count (again after 0 is written), extents no worse than with
# one flusher.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_knob "$FLUSHER_KNOBS"
dev=$(scratch 0) bdi=$(bdi_of "$dev") mnt=/mnt/ctx
knob=/sys/class/bdi/$bdi/flushers
ref=$(make_ref ctx.ref 512)

say "default and invalid values"
[ "$(cat "$knob")" = 1 ] || fail "default is $(cat "$knob"), not 1"
for v in 33 -1 abc 1x "" 99999999999 " " 0x2 "+"; do
	! echo "$v" > "$knob" 2>/dev/null || fail "flushers took '$v'"
done
[ "$(cat "$knob")" = 1 ] || fail "invalid writes changed flushers to $(cat "$knob")"

# dirty DIR N: N files of ref data, each in a directory of its own
dirty() {
	local i
	for i in $(seq 0 $(($2 - 1))); do
		mkdir -p "$1/d$i" && cp "$ref" "$1/d$i/f" || fail "write $1/d$i/f"
	done
}

say "ext4 without flex_bg: 4 contexts by block group"
quiet_writeback
# a fresh bdi has no writeout share yet, so its per-bdi background limit
# is ~0 and it writes back at once: a min_ratio keeps test data dirty
echo 20 > "/sys/class/bdi/$bdi/min_ratio"
echo 20 > "/sys/class/bdi/$(bdi_of "$(scratch 3)")/min_ratio"
mkfs.ext4 -q -F -O ^flex_bg "$dev" && mount_dev ext4 "$dev" "$mnt" || fail "mkfs/mount"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
ext4_group() { echo $(( ($1 - 1) / ipg )); }
echo 4 > "$knob" || fail "flushers refused 4"
[ "$(cat "$knob")" = 4 ] || fail "flushers reads $(cat "$knob") after 4"
[ "$(awk '$1 == "flushers:" {print $2}' "/sys/kernel/debug/bdi/$bdi/stats")" = 4 ] ||
	fail "debugfs does not show 4 flushers"
trace_on writeback:writeback_dirty_inode_enqueue writeback:writeback_flusher_create
dirty "$mnt" 8
check_ctx "$bdi" "$mnt" 8 4 ext4_group
# syncfs writes the files of every context (checked on disk below; the
# bdev inode, with ext4's metadata, may stay dirty)
sync -f "$mnt"
# a thread per context that had dirty inodes, named after it, the pid
# debugfs shows
names=""
for k in 0 1 2 3; do
	pid=$(ctx_stat "$bdi" $k pid)
	[ "$pid" = none ] && continue
	[ "$(cat "/proc/$pid/comm")" = "$(ctx_name "$bdi" $k)" ] ||
		fail "ctx $k: pid $pid is $(cat "/proc/$pid/comm"), not $(ctx_name "$bdi" $k)"
	is_kthread "$pid" || fail "ctx $k: $pid is not a kernel thread"
	# (context 0's flusher may predate the trace: mkfs and mount dirty)
	[ $k = 0 ] || trace_text | grep -q "writeback_flusher_create: bdi $bdi: ctx=$k pid=$pid" ||
		fail "ctx $k: creation of $pid not traced"
	names="$names $(cat "/proc/$pid/comm")"
done
[ "$(echo $names | wc -w)" -ge 2 ] || fail "fewer than 2 flushers:$names"
say "flushers:$names"
on_disk ext4 "$dev" "$mnt" "$ref" d0/f d1/f d2/f d3/f d4/f d5/f d6/f d7/f

say "shrinking with dirty inodes moves them, and stops the flushers"
rm -rf "$mnt"/d*; sync
trace_on writeback:writeback_dirty_inode_enqueue writeback:writeback_flusher_exit
dirty "$mnt" 8
total=$(bdi_stat "$bdi" b_dirty)
echo 1 > "$knob" || fail "flushers refused 1"
[ "$(ctx_stat "$bdi" 0 b_dirty)" = "$total" ] ||
	fail "ctx 0 holds $(ctx_stat "$bdi" 0 b_dirty) of $total dirty inodes after the shrink"
[ -z "$(ctx_stat "$bdi" 1 b_dirty)" ] || fail "debugfs still shows ctx 1"
for k in 1 2 3; do
	[ -z "$(threads "$(ctx_name "$bdi" $k)")" ] || fail "$(ctx_name "$bdi" $k) survived the shrink"
done
trace_text | grep -q "writeback_flusher_exit: bdi $bdi: ctx=[1-3] .*reason=removed" ||
	fail "no flusher exit with reason=removed traced"
sync
on_disk ext4 "$dev" "$mnt" "$ref" d0/f d1/f d2/f d3/f d4/f d5/f d6/f d7/f

say "changing the number under load loses nothing"
rm -rf "$mnt"/d*; sync
echo $((4 << 20)) > /proc/sys/vm/dirty_background_bytes
echo 100 > /proc/sys/vm/dirty_writeback_centisecs
echo 200 > /proc/sys/vm/dirty_expire_centisecs
for j in 0 1 2 3 4 5; do
	mkdir -p "$mnt/d$j"
	(for r in 0 1 2 3; do cp "$ref" "$mnt/d$j/f$r"; cp "$ref" "$mnt/d$j/f$r"; done) &
done
for n in 4 2 8 3 32 1 5 1 6 2; do
	echo "$n" > "$knob" || fail "flushers refused $n under load"
	sleep 0.3
done
wait
echo 3 > "$knob"
sync
files=(); for j in 0 1 2 3 4 5; do for r in 0 1 2 3; do files+=("d$j/f$r"); done; done
on_disk ext4 "$dev" "$mnt" "$ref" "${files[@]}"
umount "$mnt"
quiet_writeback

say "XFS asks for its AG count, capped at 32; the administrator's number stays"
xdev=$(scratch 3) xbdi=$(bdi_of "$xdev") xknob=/sys/class/bdi/$(bdi_of "$xdev")/flushers
bdi=$xbdi
mkfs.xfs -q -f -d agcount=8 "$xdev" && mount_dev xfs "$xdev" "$mnt" || fail "mkfs/mount xfs"
[ "$(cat "$xknob")" = 8 ] || fail "xfs with 8 AGs: flushers $(cat "$xknob")"
agshift=$(xfs_db -r -c "sb 0" -c "p agblklog inopblog" "$xdev" | awk -F' = ' '{s += $2} END {print s}')
xfs_ag() { echo $(( $1 >> agshift )); }
trace_on writeback:writeback_dirty_inode_enqueue
dirty "$mnt" 8
check_ctx "$bdi" "$mnt" 8 8 xfs_ag
sync
for k in 0 1 2 3 4 5 6 7; do
	[ "$(ctx_stat "$bdi" $k b_dirty)" = 0 ] || fail "xfs ctx $k: dirty inodes after sync"
done
on_disk xfs "$xdev" "$mnt" "$ref" d0/f d1/f d2/f d3/f d4/f d5/f d6/f d7/f
umount "$mnt"
mkfs.xfs -q -f -d agcount=40 "$xdev" && mount_dev xfs "$xdev" "$mnt" || fail "mkfs/mount xfs"
[ "$(cat "$xknob")" = 32 ] || fail "xfs with 40 AGs: flushers $(cat "$xknob"), not 32"
umount "$mnt"
echo 2 > "$xknob"
mount_dev xfs "$xdev" "$mnt" || fail "mount xfs"
[ "$(cat "$xknob")" = 2 ] || fail "xfs mount overrode the administrator's 2 with $(cat "$xknob")"
umount "$mnt"
echo 0 > "$xknob" || fail "flushers refused 0 (back to the default)"
[ "$(cat "$xknob")" = 1 ] || fail "0 left flushers at $(cat "$xknob"), not 1"
mount_dev xfs "$xdev" "$mnt" || fail "mount xfs"
[ "$(cat "$xknob")" = 32 ] || fail "after 0, the xfs mount did not get its 32 flushers: $(cat "$xknob")"
umount "$mnt"

say "extents: 12 files in 12 directories, 1 flusher vs 4"
extents() {		# extents N: total extents of the 12 files written with N flushers
	local f e=0
	echo "$1" > "$xknob"
	mkfs.xfs -q -f -d agcount=4 "$xdev" && mount_dev xfs "$xdev" "$mnt" || fail "mkfs/mount xfs"
	for f in $(seq 0 11); do mkdir "$mnt/d$f"; done
	for f in $(seq 0 11); do dd if=/dev/zero of="$mnt/d$f/f" bs=1M count=16 status=none & done
	wait
	sync
	for f in "$mnt"/d*/f; do e=$((e + $(xfs_bmap "$f" | grep -vc -e ':$' -e hole))); done
	umount "$mnt"
	echo "$e"
}
one=$(extents 1) four=$(extents 4)
say "extents: $one with 1 flusher, $four with 4"
[ "$four" -le $((one + one / 2 + 1)) ] || fail "4 flushers: $four extents, 1 flusher: $one"
