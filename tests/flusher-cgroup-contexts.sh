#!/bin/bash
# timeout: 900
# Cgroup writeback on the writeback contexts, as on a systemd machine
# (memory and io controllers on, writers in child cgroups): a cgroup's
# inodes use the contexts of their groups exactly as root-cgroup inodes do
# (traced, and in debugfs, where the cgroup has a wb per context it uses),
# on ext4 without flex_bg and on XFS with 4 AGs, and are on disk after
# syncfs; an inode whose writer moves to another cgroup, from a context
# other than 0, switches to that cgroup's wb; 200 cgroups writing to one
# disk get no more threads than the disk has contexts, and all their data
# is on disk after sync.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_knob "$FLUSHER_KNOBS"
require_cgroup memory io
cg=/sys/fs/cgroup mnt=/mnt/cgctx
ref=$(make_ref cgctx.ref 64)
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/x $cg/y
# enter CG: move this shell, or subshell, (and so what it runs from now on)
# into cgroup CG ("." for the root)
enter() { echo $BASHPID > "$cg/$1/cgroup.procs" || fail "cannot enter cgroup $1"; }
cg_ino() { stat -c %i "$cg/$1"; }
# cg_wbs BDI CG FIELD: the wbs of cgroup CG in debugfs wb_stats: how many
# (FIELD "count") or the sum of a list's length over them
cg_wbs() {
	awk -v ino="$(cg_ino "$2")" -v f="$3:" '
		$1 == "WbCgIno:" {mine = ($2 == ino); n += mine}
		mine && $1 == f {sum += $2}
		END {print (f == "count:") ? n + 0 : sum + 0}' "/sys/kernel/debug/bdi/$1/wb_stats"
}
# spread FS DEV BDI GROUPFN: 16 files in 16 directories written in cgroup x
# with 4 flushers; each file's traced context is GROUPFN(ino) % 4, every
# context's debugfs b_dirty counts them, x has a wb on each context used,
# and syncfs puts them on disk
spread() {
	local fs=$1 dev=$2 bdi=$3 group=$4 i got
	trace_on writeback:writeback_dirty_inode_enqueue
	enter x
	for i in $(seq 0 15); do
		mkdir -p "$mnt/d$i" && cp "$ref" "$mnt/d$i/f" || fail "$fs: write d$i/f"
	done
	enter .
	say "$fs: cgroup x"
	check_ctx "$bdi" "$mnt" 16 4 "$group"
	got=$(cg_wbs "$bdi" x count)
	[ "$got" -ge "$CTX_USED" ] || fail "$fs: x has $got wbs for $CTX_USED contexts"
	[ "$(cg_wbs "$bdi" x b_dirty)" -ge 16 ] || fail "$fs: x's wbs hold $(cg_wbs "$bdi" x b_dirty) dirty inodes, not 16"
	say "$fs: x has $got wbs"
	sync -f "$mnt"
	local names=()
	for i in $(seq 0 15); do names+=("d$i/f"); done
	on_disk "$fs" "$dev" "$mnt" "$ref" "${names[@]}"
}

quiet_writeback
dev=$(scratch 0) bdi=$(bdi_of "$dev")
keep_dirty "$bdi"
group_fs "$dev" "$mnt"
echo 4 > "/sys/class/bdi/$bdi/flushers" || fail "flushers refused 4"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
ext4_group() { echo $(( ($1 - 1) / ipg )); }
say "ext4 without flex_bg, writer in cgroup x"
spread ext4 "$dev" "$bdi" ext4_group

say "switching: a file rewritten from cgroup y moves to y's wb"
# switched INO FROM TO: inode_switch_wbs traced INO from cgroup FROM to TO
switched() {
	trace_text | grep -q "inode_switch_wbs: bdi $bdi: ino=$1 old_cgroup_ino=$2 new_cgroup_ino=$3"
}
# move_to_y FILE FROM_INO: rewrite FILE (new pages, charged to y) and fsync
# it from y until its wb is switched from FROM_INO to y
move_to_y() {
	local f=$1 from=$2 ino n
	ino=$(stat -c %i "$f")
	enter y
	for n in $(seq 1 40); do
		dd if=/dev/urandom of="$f" bs=256k count=4 conv=fsync status=none || fail "rewrite $f"
		switched "$ino" "$from" "$(cg_ino y)" && break
	done
	enter .
	switched "$ino" "$from" "$(cg_ino y)" || fail "inode $ino of $f: no switch to y traced after $n rewrites"
	say "inode $ino: switched to y after $n rewrites"
}
# a file of x and a file of the root cgroup, each on a context other than 0
pick() {	# pick CG: a file written from CG on a context other than 0
	local i ino
	for i in $(seq 20 40); do
		[ "$1" = root ] || enter "$1"
		mkdir -p "$mnt/$1$i" && cp "$ref" "$mnt/$1$i/f" || fail "write $1$i/f"
		enter .
		ino=$(stat -c %i "$mnt/$1$i/f")
		[ $(( $(ext4_group "$ino") % 4 )) = 0 ] || { echo "$mnt/$1$i/f"; return; }
	done
}
trace_on writeback:inode_switch_wbs writeback:writeback_dirty_inode_enqueue
fx=$(pick x) fr=$(pick root)
[ -n "$fx" ] && [ -n "$fr" ] || fail "no file on a context other than 0 (x: '$fx', root: '$fr')"
sync -f "$mnt"
move_to_y "$fx" "$(cg_ino x)"
move_to_y "$fr" "$(stat -c %i $cg)"
for f in "$fx" "$fr"; do
	ino=$(stat -c %i "$f") want=$(( $(ext4_group "$(stat -c %i "$f")") % 4 ))
	enter y; cp "$ref" "$f"; enter .
	[ "$(traced_ctx "$ino")" = "$want" ] || fail "inode $ino: context $(traced_ctx "$ino") on y's wb, want $want"
done
[ "$(cg_wbs "$bdi" y b_dirty)" -ge 2 ] || fail "y's wbs hold $(cg_wbs "$bdi" y b_dirty) dirty inodes, not the 2 switched"
sync -f "$mnt"
on_disk ext4 "$dev" "$mnt" "$ref" "${fx#"$mnt"/}" "${fr#"$mnt"/}"
umount "$mnt"

say "XFS with 4 AGs, writer in cgroup x"
xdev=$(scratch 3) xbdi=$(bdi_of "$xdev")
keep_dirty "$xbdi"
mkfs.xfs -q -f -d agcount=4 "$xdev" && mount_dev xfs "$xdev" "$mnt" || fail "mkfs/mount xfs"
[ "$(cat "/sys/class/bdi/$xbdi/flushers")" = 4 ] || fail "xfs with 4 AGs: flushers $(cat "/sys/class/bdi/$xbdi/flushers")"
agshift=$(xfs_db -r -c "sb 0" -c "p agblklog inopblog" "$xdev" | awk -F' = ' '{s += $2} END {print s}')
xfs_ag() { echo $(( $1 >> agshift )); }
spread xfs "$xdev" "$xbdi" xfs_ag
umount "$mnt"
release_bdi "$xbdi"

say "200 cgroups on one disk: at most 4 threads, all data on disk after sync"
fresh_fs ext4 "$dev" "$mnt"
echo 4 > "/sys/class/bdi/$bdi/flushers"
# most_threads: the most writeback threads of the bdi seen so far
nthreads() { ps -e -o comm= | grep -c -e "^flush-$bdi\$" -e "^flush-$bdi/"; }
most=0
for i in $(seq 1 200); do
	mkdir -p "$cg/m$i" "$mnt/m$i"
	bash -c 'echo $$ > "$0/cgroup.procs" && exec cp "$1" "$2"' "$cg/m$i" "$ref" "$mnt/m$i/f" &
	if [ $((i % 20)) = 0 ]; then n=$(nthreads); [ "$n" -gt "$most" ] && most=$n; fi
done
wait
n=$(nthreads); [ "$n" -gt "$most" ] && most=$n
wbs=$(grep -c '^WbCgIno:' "/sys/kernel/debug/bdi/$bdi/wb_stats")
say "$wbs wbs on $bdi, at most $most writeback threads"
[ "$wbs" -ge 200 ] || fail "want a wb for each of the 200 cgroups, have $wbs"
sync
n=$(nthreads); [ "$n" -gt "$most" ] && most=$n
[ "$most" -le 4 ] || fail "$most writeback threads for $bdi with 4 contexts"
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after sync"
files=(); for i in $(seq 1 200); do files+=("m$i/f"); done
on_disk ext4 "$dev" "$mnt" "$ref" "${files[@]}"
umount "$mnt"
release_bdi "$bdi"
for i in $(seq 1 200); do rmdir "$cg/m$i"; done
rmdir $cg/x $cg/y
