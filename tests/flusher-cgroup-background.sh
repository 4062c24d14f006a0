#!/bin/bash
# Background writeback of a cgroup reaches its dirty inodes on every
# writeback context, as the root cgroup's does: a cgroup's dirty limits
# count all its dirty pages, so a writer throttled over the background
# threshold must not wait for pages that only periodic writeback would
# start. Cgroup w (memory and io on, memory.max 512M) dirties 15 MB on
# each of contexts 1-3 (below the background threshold of 64 MB), then
# writes 400 MB on context 0: w's wbs of contexts 1-3 must each start a
# background round (writeback_start, reason=background, w's cgroup_ino)
# within 10 s; periodic writeback is off.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_knob "$FLUSHER_KNOBS"
require_cgroup memory io
cg=/sys/fs/cgroup dev=$(scratch 2) mnt=/mnt/cgbg
bdi=$(bdi_of "$dev")
quiet_writeback
keep_dirty "$bdi"
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/w
on_exit "rmdir $cg/w"
echo $((512 << 20)) > $cg/w/memory.max || fail "memory.max"
enter() { echo $BASHPID > "$cg/$1/cgroup.procs" || fail "cannot enter cgroup $1"; }
group_fs "$dev" "$mnt"
on_exit "umount $mnt"
ipg=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2 + 0}')
echo 4 > "/sys/class/bdi/$bdi/flushers" || fail "flushers 4"
declare -A file=()
enter w
for i in $(seq 0 31); do
	mkdir "$mnt/d$i"; : > "$mnt/d$i/f"
	k=$(( ($(stat -c %i "$mnt/d$i/f") - 1) / ipg % 4 ))
	[ -n "${file[$k]:-}" ] || file[$k]=$mnt/d$i/f
done
enter .
for k in 0 1 2 3; do [ -n "${file[$k]:-}" ] || fail "no file on context $k"; done
sync
w_ino=$(stat -c %i $cg/w)
echo $((64 << 20)) > /proc/sys/vm/dirty_background_bytes
trace_on writeback:writeback_start
enter w
for k in 1 2 3; do dd if=/dev/zero of="${file[$k]}" bs=1M count=15 status=none; done
enter .
# round K REASON: a writeback_start of w's wb of context K for REASON
round() { trace_text | grep -q "writeback_start: bdi $bdi: ctx=$1 .*reason=$2 cgroup_ino=$w_ino\$"; }
sleep 2
for k in 1 2 3; do
	! round $k background || fail "ctx $k: background writeback before the writer: the test shows nothing"
done
echo "writer starts" > $TRACE/trace_marker
(enter w; exec dd if=/dev/zero of="${file[0]}" bs=1M count=400 status=none) & w0=$!
started() {
	local k
	for k in 0 1 2 3; do round $k background || return 1; done
}
wait_until 10 started || true
kill $w0 2>/dev/null; wait $w0 2>/dev/null
trace_text > /tmp/cgbg.trace
for k in 0 1 2 3; do
	r=$(awk -v k=$k -v b="$bdi:" -v c="cgroup_ino=$w_ino" '
		/tracing_mark_write: writer starts/ { t0 = $4 + 0 }
		t0 && /writeback_start:/ && $0 ~ ("bdi " b " ctx=" k " ") && $NF == c {
			match($0, /reason=[a-z_]+/)
			print $4 - t0, substr($0, RSTART, RLENGTH); exit }' /tmp/cgbg.trace)
	[ -n "$r" ] || fail "ctx $k: no writeback of w's wb within 10 s of the writer's start"
	say "ctx $k: w's wb started writing ${r% *} s after the writer, ${r#* }"
	[ "${r#* }" = reason=background ] || fail "ctx $k: first round of w's wb: ${r#* }"
done
quiet_writeback
sync
release_bdi "$bdi"
