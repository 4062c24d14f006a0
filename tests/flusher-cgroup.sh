#!/bin/bash
# Cgroup writeback: writers in their own memory cgroups get writeback
# contexts of their own (debugfs wb_stats), all served by the bdi's one
# flusher thread; a writer in a small memory cgroup gets its data written.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_file "$FLUSHER_THREADS"
require_cgroup memory io
dev=$(scratch 1) bdi=$(bdi_of "$dev") mnt=/mnt/cg
quiet_writeback
fresh_fs ext4 "$dev" "$mnt"
cg=/sys/fs/cgroup
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
for g in w1 w2 w3; do mkdir -p $cg/$g; done
echo $((32 << 20)) > $cg/w3/memory.max
for g in w1 w2 w3; do
	n=16; [ $g = w3 ] && n=96
	bash -c "echo \$\$ > $cg/$g/cgroup.procs && exec dd if=/dev/urandom of=$mnt/$g bs=1M count=$n status=none" &
done
wait
ncg=$(grep -c '^WbCgIno:' "/sys/kernel/debug/bdi/$bdi/wb_stats")
say "$ncg writeback contexts on $bdi"
[ "$ncg" -ge 4 ] || fail "want >= 4 wbs (root + 3 cgroups), have $ncg"
sync
n=$(threads "flush-$bdi" | wc -l)
[ "$n" = 1 ] || fail "want one flusher for $bdi, have $n"
[ "$(ps -e -o comm= | grep -c "^flush-$bdi")" = 1 ] || fail "extra flushers"
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after sync"
size=$(stat -c %s $mnt/w3)
[ "$size" = $((96 << 20)) ] || fail "w3 wrote $size bytes"
for g in w1 w2 w3; do cat $cg/$g/cgroup.procs | grep -q . && fail "$g not empty"; done
umount "$mnt"
for g in w1 w2 w3; do rmdir $cg/$g; done
