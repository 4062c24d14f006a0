#!/bin/bash
# timeout: 300
# per-fs
# Not in `make test`: it fails on stock 6.12 as on the series (ext4).
# Run it with: make run KERNEL=vanilla CMD="TESTDIRS=fstests/repro bash
# guest/run-tests.sh null-files:ext4" (logs in build/out/run-vanilla).
# fstests generic/044 ("NULL files problem") at a small scale: 100 files
# of 64 KB, each written and then truncated to its own size, with the
# boot's writeback sysctls; 10 s later the filesystem is shut down without
# flushing its log, and remounted. No file may come back with a size but
# without extents (its data lost: zeroes). Reports how many files came back
# written, empty and lost, and the writeback that ran (writeback_start).
. "$(dirname "$0")/../../guest/lib.sh"
require_scratch 1
fs=$FSTYPES dev=$(scratch 0) mnt=/mnt/null
bdi=$(bdi_of "$dev")
fresh_fs "$fs" "$dev" "$mnt"
on_exit "umount $mnt"
trace_on writeback:writeback_start
n=100
for i in $(seq 1 $n); do
	xfs_io -f -c "pwrite -q -b 64k -S 0xff 0 64k" -c "truncate 64k" "$mnt/$i" ||
		fail "write $mnt/$i"
done
say "$n files written; dirty on $bdi: $(bdi_dirty_kb "$bdi") kB"
sleep 10
shutdown_noflush "$mnt"
trace_text | grep "bdi $bdi:" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^reason=/) r[$i]++}
	END {for (k in r) printf "-- writeback_start %s: %d\n", k, r[k]}'
umount "$mnt"
mount_dev "$fs" "$dev" "$mnt" || fail "remount"
# (one stat for all: after a remount, a file without extents has no blocks)
written=0 empty=0 lost=()
while read -r name size blocks; do
	if [ "$size" = 0 ]; then
		empty=$((empty + 1))
	elif [ "$blocks" = 0 ]; then
		lost+=("$name")
	else
		written=$((written + 1))
	fi
done < <(cd "$mnt" && stat -c '%n %s %b' $(seq 1 $n) 2>/dev/null)
say "after the shutdown: $written written, $empty empty, ${#lost[@]} with a size and no extents"
[ ${#lost[@]} = 0 ] || fail "${#lost[@]} files with a size but no data: ${lost[*]:0:20}"
