#!/bin/bash
# timeout: 240
# The page cache of a raw block device (scratch 3, no filesystem): 8 MB of
# random data written buffered from a cgroup (memory and io), no sync, the
# device held open (its last close would write it back). Periodic writeback
# (data older than 2 s, every 1 s) must clean the disk's bdi within 10 s,
# the disk's written sectors grow by the 8 MB, and an O_DIRECT read gives
# the data back. On the series, with the bdi's flushers 1 and 4: that
# periodic writeback (writeback_start, reason=periodic) ran on the bdi's
# flusher, flush-<bdi> (flush-<bdi>/<k> for context k).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_cgroup memory io
dev=$(scratch 3) cg=/sys/fs/cgroup grp=/sys/fs/cgroup/raw-writer
bdi=$(bdi_of "$dev")
knob=/sys/class/bdi/$bdi/flushers
series=0 rounds=stock
if [ -e "$knob" ]; then
	series=1 rounds="1 4"
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $knob is missing"
fi
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $grp
on_exit "rmdir $grp"
in_w() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$grp" "$@"; }
quiet_writeback
keep_dirty "$bdi"
exec 3<"$dev"
on_exit "exec 3<&-"

# periodic_by: the tasks that started periodic writeback of the bdi
periodic_by() {
	trace_text | awk -v e="writeback_start: bdi $bdi:" '
		index($0, e) && / reason=periodic/ { c = $1; sub(/-[0-9]+$/, "", c); print c }' | sort -u
}
off=0
for n in $rounds; do
	say "flushers $n"
	if [ "$n" != stock ]; then
		echo "$n" > "$knob" || fail "flushers $n refused"
	fi
	ref=$(make_ref "raw-$n.ref" 8192)
	sync
	bdi_clean "$bdi" || fail "$n: $(bdi_dirty_kb "$bdi") kB dirty on $bdi before the write"
	echo 200 > /proc/sys/vm/dirty_expire_centisecs
	echo 100 > /proc/sys/vm/dirty_writeback_centisecs
	events=writeback:writeback_start
	[ $series = 1 ] && events="$events writeback:writeback_forker_fallback"
	# shellcheck disable=SC2086
	trace_on $events
	before=$(written_kb "$dev")
	in_w dd if="$ref" of="$dev" bs=1M seek=$off status=none || fail "$n: write"
	start=$(date +%s)
	dirty=$(bdi_dirty_kb "$bdi")
	[ "$dirty" -ge 4096 ] || fail "$n: only $dirty kB dirty right after the write: written back at once"
	wait_until 10 bdi_clean "$bdi" || fail "$n: $(bdi_dirty_kb "$bdi") kB still dirty on $bdi after 10 s"
	secs=$(( $(date +%s) - start ))
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	wrote=$(( $(written_kb "$dev") - before ))
	say "clean after ${secs}s, the disk wrote $wrote kB"
	[ "$wrote" -ge 8192 ] || fail "$n: the disk wrote only $wrote kB of 8 MB"
	by=$(periodic_by | tr '\n' ' ')
	[ -n "$by" ] || fail "$n: no periodic writeback traced on $bdi"
	say "periodic writeback by: $by"
	if [ $series = 1 ]; then
		ours=0 others=""
		for c in $by; do
			case $c in
			"flush-$bdi" | "flush-$bdi/"*) ours=1 ;;
			"<...>") ;;	# the comm was not recorded
			*) others="$others $c" ;;
			esac
		done
		[ $ours = 1 ] || fail "$n: no periodic writeback of $bdi on flush-$bdi:$by"
		# the forker writes back in its stead while a flusher is not up
		if [ -n "$others" ] && ! trace_text | grep -q "writeback_forker_fallback: bdi $bdi:"; then
			fail "$n: periodic writeback of $bdi outside its flusher:$others"
		fi
	fi
	dd if="$dev" of=/tmp/raw.back bs=1M skip=$off count=8 iflag=direct status=none || fail "$n: O_DIRECT read"
	cmp "$ref" /tmp/raw.back || fail "$n: the data read back with O_DIRECT differs"
	off=$((off + 8))
done
