#!/bin/bash
# per-fs
# Background writeback: once dirty memory passes dirty_background_bytes,
# writeback starts (reason=background) long before data expires, and
# brings the dirty amount back under the threshold.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
dev=$(scratch 0) mnt=/mnt/bg
bdi=$(bdi_of "$dev")
ref=$(make_ref bg.ref 32768)
quiet_writeback
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	sync
	echo $((8 << 20)) > /proc/sys/vm/dirty_background_bytes
	echo $((256 << 20)) > /proc/sys/vm/dirty_bytes
	trace_on writeback:writeback_start
	before=$(written_kb "$dev")
	cp "$ref" "$mnt/f"
	# writeback stops at the threshold, not below it: allow 1 MB
	below() { [ "$(bdi_stat "$bdi" BdiReclaimable)" -le 9216 ]; }
	wait_until 60 below || fail "$fs: $(bdi_stat "$bdi" BdiReclaimable) kB still dirty after 60s"
	wrote=$(( $(written_kb "$dev") - before ))
	say "disk wrote $wrote kB"
	[ "$wrote" -ge $((32768 - 9216)) ] || fail "$fs: disk wrote only $wrote kB"
	trace_text | grep -q "bdi $bdi: .*reason=background" ||
		fail "$fs: no background writeback traced on $bdi"
	umount "$mnt"
	quiet_writeback
done
