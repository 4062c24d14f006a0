#!/bin/bash
# per-fs
# When a flusher cannot be created (fault injection: fail_flusher_create),
# the forker writes back for the bdi itself (tracepoint
# writeback_forker_fallback) and retries: sync(2) completes, the data is on
# disk; once creation works again the bdi gets its flusher.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_file "$FLUSHER_THREADS" "$FLUSHER_FAULTS"
fi_dir=/sys/kernel/debug/fail_flusher_create
[ -d $fi_dir ] || fail "no $fi_dir"
dev=$(scratch 2) bdi=$(bdi_of "$dev") mnt=/mnt/fallback
ref=$(make_ref fallback.ref 8192)
quiet_writeback
keep_dirty "$bdi"
for fs in $FSTYPES; do
	say "$fs"
	fresh_fs "$fs" "$dev" "$mnt"
	idle_all_flushers
	echo 0 > $fi_dir/verbose
	echo -1 > $fi_dir/times
	echo 100 > $fi_dir/probability
	trace_on writeback:writeback_forker_fallback writeback:writeback_flusher_create
	cp "$ref" "$mnt/f"
	timeout 120 sync || fail "$fs: sync did not complete with flusher creation failing"
	no_flusher "$bdi" || fail "$fs: a flusher exists although creation fails"
	[ "$(flusher_state "$bdi")" = pending ] || fail "$fs: state $(flusher_state "$bdi"), want pending"
	n=$(trace_text | grep -c "writeback_forker_fallback: bdi $bdi:")
	[ "$n" -ge 1 ] || fail "$fs: no forker fallback traced"
	wrote=$(trace_text | awk -v b="$bdi:" '/writeback_forker_fallback/ && $0 ~ "bdi " b {sub("pages=", "", $NF); s += $NF} END {print s + 0}')
	say "$n fallback passes wrote $wrote pages"
	[ "$wrote" -ge 2048 ] || fail "$fs: fallback wrote $wrote pages, want >= 2048"
	bdi_clean "$bdi" || fail "$fs: $(bdi_dirty_kb "$bdi") kB dirty after sync"
	on_disk "$fs" "$dev" "$mnt" "$ref" f
	echo 0 > $fi_dir/probability
	cp "$ref" "$mnt/g"
	wait_thread 30 "flush-$bdi" || fail "$fs: no flusher after creation works again"
	[ "$(flusher_state "$bdi")" = running ] || fail "$fs: state $(flusher_state "$bdi")"
	sync
	umount "$mnt"
done
release_bdi "$bdi"
