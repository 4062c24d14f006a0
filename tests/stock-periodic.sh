#!/bin/bash
# per-fs
# Periodic (kupdate) writeback: with no sync and dirty memory far below the
# background threshold, dirty data is written once older than
# dirty_expire_centisecs, within expire + writeback interval (+ slack).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
dev=$(scratch 0) mnt=/mnt/periodic
bdi=$(bdi_of "$dev")
ref=$(make_ref periodic.ref 4096)
quiet_writeback
keep_dirty "$bdi"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	sync
	echo 200 > /proc/sys/vm/dirty_expire_centisecs
	echo 100 > /proc/sys/vm/dirty_writeback_centisecs
	trace_on writeback:writeback_start
	before=$(written_kb "$dev")
	start=$(date +%s)
	cp "$ref" "$mnt/f"
	wait_until 30 bdi_clean "$bdi" || fail "$fs: still dirty after 30s: $(bdi_stat "$bdi" BdiReclaimable) kB"
	secs=$(( $(date +%s) - start ))
	wrote=$(( $(written_kb "$dev") - before ))
	say "clean after ${secs}s, disk wrote $wrote kB"
	[ "$wrote" -ge 4096 ] || fail "$fs: disk wrote only $wrote kB"
	trace_text | grep -q "bdi $bdi: .*reason=periodic" ||
		fail "$fs: no periodic writeback traced on $bdi"
	trace_text | grep "bdi $bdi: .*reason=background" &&
		fail "$fs: background writeback ran; the test did not isolate kupdate"
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	umount "$mnt"
done
release_bdi "$bdi"
