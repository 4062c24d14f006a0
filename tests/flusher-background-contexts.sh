#!/bin/bash
# Background writeback reaches every writeback context that has dirty
# inodes, also while context 0's flusher is busy with it: a writer keeps
# the bdi over dirty_background_bytes on context 0; files then dirtied on
# contexts 1-3 start writing in a background round (writeback_start with
# ctx= and reason=background) within 10 s, a third of the periodic wakeup's
# 30 s here (about 1 s on an idle host; the bound leaves room for a busy
# one).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_knob "$FLUSHER_KNOBS"
dev=$(scratch 2) bdi=$(bdi_of "$(scratch 2)") mnt=/mnt/bgctx
quiet_writeback
keep_dirty "$bdi"
group_fs "$dev" "$mnt"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
echo 4 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 4"
declare -A file=()
for i in $(seq 0 31); do
	mkdir "$mnt/d$i"; : > "$mnt/d$i/f"
	k=$(( ($(stat -c %i "$mnt/d$i/f") - 1) / ipg % 4 ))
	[ -n "${file[$k]:-}" ] || file[$k]=$mnt/d$i/f
done
for k in 0 1 2 3; do [ -n "${file[$k]:-}" ] || fail "no file on context $k"; done
sync
echo 3000 > /proc/sys/vm/dirty_writeback_centisecs
echo $((8 << 20)) > /proc/sys/vm/dirty_background_bytes
trace_on writeback:writeback_start
dd if=/dev/zero of="${file[0]}" bs=1M count=400 status=none & w0=$!
wait_until 30 eval 'trace_text | grep -q "writeback_start: bdi $bdi: ctx=0 .*reason=background"' ||
	fail "no background writeback on context 0"
for k in 1 2 3; do
	echo "dirtying ctx $k" > $TRACE/trace_marker
	dd if=/dev/zero of="${file[$k]}" bs=1M count=8 status=none
done
started() {	# started: contexts 1-3 each had a background round
	local k
	for k in 1 2 3; do
		trace_text | grep -q "writeback_start: bdi $bdi: ctx=$k .*reason=background" || return 1
	done
}
wait_until 10 started || true
kill $w0 2>/dev/null; wait $w0 2>/dev/null
trace_text > /tmp/bgctx.trace
for k in 1 2 3; do
	# seconds from the marker to ctx k's first round after it, and its reason
	r=$(awk -v k=$k -v b="$bdi:" '
		/tracing_mark_write: dirtying ctx / && $NF == k { t0 = $4 + 0 }
		t0 && /writeback_start:/ && $0 ~ ("bdi " b " ctx=" k " ") {
			match($0, /reason=[a-z_]+/)
			print $4 - t0, substr($0, RSTART, RLENGTH); exit }' /tmp/bgctx.trace)
	[ -n "$r" ] || fail "ctx $k: no writeback_start within 10 s of its files being dirtied"
	say "ctx $k started writing ${r% *} s after being dirtied, ${r#* }"
	[ "${r#* }" = reason=background ] || fail "ctx $k: first round after dirtying: ${r#* }"
	awk -v d="${r% *}" 'BEGIN { exit !(d <= 10) }' ||
		fail "ctx $k started writing ${r% *} s after being dirtied (> 10 s)"
done
quiet_writeback
sync
umount "$mnt"
release_bdi "$bdi"
