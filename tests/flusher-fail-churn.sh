#!/bin/bash
# timeout: 600
# With every flusher creation failing (fail_flusher_create), the number
# of contexts goes 1 -> 8 -> 1 over and over while writers dirty every
# context: the forker's queue stays consistent (CONFIG_DEBUG_LIST reports
# no corruption, no bdi reference leaks so the disk can go away after),
# and every byte is on disk after sync.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_knob "$FLUSHER_KNOBS"
require_file "$FLUSHER_FAULTS"
fi_dir=/sys/kernel/debug/fail_flusher_create
dev=$(scratch 2) bdi=$(bdi_of "$dev") mnt=/mnt/churn knob=/sys/class/bdi/$(bdi_of "$(scratch 2)")/flushers
quiet_writeback
keep_dirty "$bdi"
ref=$(make_ref churn.ref 1024)
group_fs "$dev" "$mnt"
for j in $(seq 0 7); do mkdir "$mnt/d$j"; done
idle_all_flushers
echo 0 > $fi_dir/verbose
echo -1 > $fi_dir/times
echo 100 > $fi_dir/probability
trace_on writeback:writeback_forker_fallback
for j in $(seq 0 7); do
	(for r in 0 1 2 3 4 5; do cp "$ref" "$mnt/d$j/f$r"; sleep 0.1; done) &
done
end=$(( $(date +%s) + 20 )) n=0
while [ "$(date +%s)" -lt $end ]; do
	echo 8 > "$knob" || fail "flushers refused 8"
	sleep 0.2
	echo 1 > "$knob" || fail "flushers refused 1"
	n=$((n + 1))
done
wait
say "$n rounds of 1 -> 8 -> 1 with creation failing"
[ -z "$(ps -e -o comm= | grep "^flush-$bdi")" ] || fail "a flusher of $bdi exists although creation fails"
trace_text | grep -q "writeback_forker_fallback: bdi $bdi:" || fail "no fallback traced"
timeout 120 sync || fail "sync hung with creation failing"
echo 0 > $fi_dir/probability
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after sync"
files=(); for j in $(seq 0 7); do for r in 0 1 2 3 4 5; do files+=("d$j/f$r"); done; done
on_disk ext4 "$dev" "$mnt" "$ref" "${files[@]}"
umount "$mnt"
release_bdi "$bdi"
