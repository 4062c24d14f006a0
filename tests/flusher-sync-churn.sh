#!/bin/bash
# timeout: 600
# sync(2) while the number of contexts changes under it: writers fill 8
# directories on ext4 (a context per block group), then sync runs while a
# loop changes flushers; after each sync no context holds a dirty inode
# and the bdi has no dirty pages. Every byte is on disk at the end.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_knob "$FLUSHER_KNOBS"
dev=$(scratch 1) bdi=$(bdi_of "$(scratch 1)") mnt=/mnt/syncchurn knob=/sys/class/bdi/$(bdi_of "$(scratch 1)")/flushers
quiet_writeback
keep_dirty "$bdi"
ref=$(make_ref syncchurn.ref 512)
group_fs "$dev" "$mnt"
for j in $(seq 0 7); do mkdir "$mnt/d$j"; done
(while [ ! -e /tmp/syncchurn.stop ]; do for n in 4 1 8 2 32 3; do echo $n > "$knob"; sleep 0.05; done; done) &
changer=$!
for round in $(seq 1 8); do
	for j in $(seq 0 7); do
		(for r in 0 1 2; do cp "$ref" "$mnt/d$j/f$r.$round"; done) &
	done
	wait $(jobs -p | grep -v "^$changer$")
	sync
	for k in $(awk '$1 == "ctx" {sub(":", "", $2); print $2}' "/sys/kernel/debug/bdi/$bdi/stats"); do
		d=$(ctx_stat "$bdi" "$k" b_dirty) io=$(ctx_stat "$bdi" "$k" b_io) more=$(ctx_stat "$bdi" "$k" b_more_io)
		# the block device inode (ext4 metadata) may be redirtied by the journal
		[ $(( ${d:-0} + ${io:-0} + ${more:-0} )) -le 1 ] ||
			{ touch /tmp/syncchurn.stop; fail "round $round: ctx $k holds $d/$io/$more inodes after sync"; }
	done
	bdi_clean "$bdi" || { touch /tmp/syncchurn.stop; fail "round $round: $(bdi_dirty_kb "$bdi") kB dirty after sync"; }
done
touch /tmp/syncchurn.stop; wait $changer
files=(); for round in $(seq 1 8); do for j in $(seq 0 7); do for r in 0 1 2; do files+=("d$j/f$r.$round"); done; done; done
on_disk ext4 "$dev" "$mnt" "$ref" "${files[@]}"
umount "$mnt"
release_bdi "$bdi"
