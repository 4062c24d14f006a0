#!/bin/bash
# timeout: 900
# Shrinking the contexts moves many dirty inodes at once without a soft
# lockup (the console is checked) and loses none: 100000 one-byte files
# in 32 directories on ext4 (a context per block group, 32 contexts),
# then flushers 32 -> 1: context 0 holds every dirty inode; removed
# dirty, they leave the bdi clean.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_knob "$FLUSHER_KNOBS"
N=${SHRINK_INODES:-100000}
dev=$(scratch 3) bdi=$(bdi_of "$(scratch 3)") mnt=/mnt/many
quiet_writeback
keep_dirty "$bdi"
mkfs.ext4 -q -F -O ^flex_bg -N $((N + 8192)) "$dev" && mount_dev ext4 "$dev" "$mnt" || fail "mkfs/mount"
# writing 100000 small files back takes minutes under TCG: remove them,
# dirty, when done (eviction of dirty inodes), rather than sync them
on_exit 'rm -rf "$mnt"/d*'
echo 32 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 32"
per=$((N / 32))
for d in $(seq 0 31); do
	mkdir "$mnt/d$d"
	(cd "$mnt/d$d" && for i in $(seq 1 $per); do printf x > $i; done) &
done
wait
total=$(bdi_stat "$bdi" b_dirty)
used=$(awk '$1 == "ctx" && $7 > 0' "/sys/kernel/debug/bdi/$bdi/stats" | wc -l)
say "$total dirty inodes on $used contexts"
# (a few may be written back meanwhile, under memory pressure)
[ "$total" -ge $((N * 99 / 100)) ] || fail "only $total dirty inodes of $N"
[ "$used" -ge 8 ] || fail "the inodes use only $used contexts"
start=$(date +%s%N)
echo 1 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 1"
say "moved them in $(( ($(date +%s%N) - start) / 1000000 )) ms"
[ -z "$(ctx_stat "$bdi" 1 b_dirty)" ] || fail "debugfs still shows ctx 1"
now=$(bdi_stat "$bdi" b_dirty) ctx0=$(ctx_stat "$bdi" 0 b_dirty)
# (memory pressure may write some back meanwhile)
[ "$ctx0" = "$now" ] && [ "$now" -gt 0 ] ||
	fail "ctx 0 holds $ctx0 of $now dirty inodes ($total before the move)"
say "ctx 0 holds all $now dirty inodes"
rm -rf "$mnt"/d*
sync
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after sync"
[ "$(ctx_stat "$bdi" 0 b_dirty)" -le 1 ] || fail "$(ctx_stat "$bdi" 0 b_dirty) dirty inodes after sync"
umount "$mnt"
release_bdi "$bdi"
