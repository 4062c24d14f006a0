#!/bin/bash
# timeout: 300
# The root cgroup's write bandwidth is in its bdi's total once while any
# of its writeback contexts has dirty inodes, not only while context 0
# has: the total (debugfs BdiWriteBandwidth) divides the bdi's min_ratio
# and max_ratio between its dirty wbs, so a missing root share lets the
# root and a cgroup each take the whole max_ratio. XFS with 4 AGs and 4
# flushers; the root dirties files on contexts 1 and 3 only, cgroup w
# (memory and io on) one on context 2, after both wrote some out (their
# share of the writeout). Then BdiWriteBandwidth is at least 90% of the
# root wb's bandwidth plus w's, and the dirty thresholds of the bdi's wbs
# (BdiDirtyThresh) stay within max_ratio (10%) of the global one.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_knob "$FLUSHER_KNOBS"
require_cgroup memory io
cg=/sys/fs/cgroup dev=$(scratch 1) mnt=/mnt/rootbw
bdi=$(bdi_of "$dev")
restore "/sys/class/bdi/$bdi/max_ratio"
quiet_writeback
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/w
on_exit "rmdir $cg/w"
mkfs.xfs -q -f -d agcount=4 "$dev" && mount_dev xfs "$dev" "$mnt" || fail "mkfs/mount xfs"
on_exit "umount $mnt"
[ "$(cat "/sys/class/bdi/$bdi/flushers")" = 4 ] || fail "xfs with 4 AGs: flushers $(cat "/sys/class/bdi/$bdi/flushers")"
agshift=$(xfs_db -r -c "sb 0" -c "p agblklog inopblog" "$dev" | awk -F' = ' '{s += $2} END {print s}')
declare -A file=()
for i in $(seq 0 15); do
	mkdir "$mnt/d$i" && : > "$mnt/d$i/f" || fail "create $mnt/d$i/f"
	k=$(( $(stat -c %i "$mnt/d$i/f") >> agshift ))
	[ -n "${file[$k]:-}" ] || file[$k]=$mnt/d$i/f
done
for k in 1 2 3; do [ -n "${file[$k]:-}" ] || fail "no file in AG $k"; done

# write MB: the root writes MB to its files on contexts 1 and 3, w to its
# file on context 2
write() {
	dd if=/dev/urandom of="${file[1]}" bs=1M count="$1" status=none &&
		dd if=/dev/urandom of="${file[3]}" bs=1M count="$1" status=none ||
		fail "root: write"
	(echo $BASHPID > $cg/w/cgroup.procs &&
		dd if=/dev/urandom of="${file[2]}" bs=1M count=$(($1 * 2)) status=none) ||
		fail "w: write"
}
# each wb's share of the writeout, then dirty pages that stay dirty
echo 0 > "/sys/class/bdi/$bdi/min_ratio"
echo 10 > "/sys/class/bdi/$bdi/max_ratio" || fail "max_ratio 10"
write 8
sync
write 2

stats=/sys/kernel/debug/bdi/$bdi
[ "$(ctx_stat "$bdi" 0 b_dirty)" = 0 ] || fail "context 0 has dirty inodes: the test shows nothing"
for k in 1 2 3; do
	[ "$(ctx_stat "$bdi" $k b_dirty)" -ge 1 ] || fail "context $k has no dirty inode"
done
w_ino=$(stat -c %i $cg/w)
# wb BW of the root wb (listed first) and of w's dirty wbs
read -r root_bw w_bw < <(awk -v w="$w_ino" '
	$1 == "WbCgIno:" {ino = $2; n++}
	$1 == "WbWriteBandwidth:" {bw = $2}
	$1 == "b_dirty:" {if (n == 1) r = bw; else if (ino == w && $2 > 0) c += bw}
	END {print r + 0, c + 0}' $stats/wb_stats)
tot=$(bdi_stat "$bdi" BdiWriteBandwidth)
say "BdiWriteBandwidth $tot kBps; root wb $root_bw, w's dirty wbs $w_bw"
[ "$w_bw" -gt 0 ] || fail "no dirty wb of w on $bdi: the test shows nothing"
[ "$tot" -ge $(( (root_bw + w_bw) * 9 / 10 )) ] ||
	fail "BdiWriteBandwidth $tot kBps leaves out the root's $root_bw kBps (w: $w_bw)"

thresh=$(bdi_stat "$bdi" DirtyThresh) bdi_thresh=$(bdi_stat "$bdi" BdiDirtyThresh)
cap=$((thresh / 10))
say "BdiDirtyThresh $bdi_thresh kB, max_ratio 10% of DirtyThresh $thresh kB: $cap kB"
[ "$bdi_thresh" -le $((cap + cap / 10 + SLACK_KB)) ] ||
	fail "the bdi's wbs may dirty $bdi_thresh kB, over its max_ratio's $cap kB"
sync
