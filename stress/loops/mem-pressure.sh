#!/bin/bash
# timeout: 3600
# Memory pressure: ROUNDS (10; QUICK=1: 2) rounds of a writer in a memory
# cgroup at memory.max (memory and io on) on ext4 while a page-cache hog
# fills and rereads the rest of memory from XFS; on the series flusher
# creation fails or is delayed part of the time (fail_flusher_create) and
# idle flushers exit after 1 s, so they come and go. The writer's data is
# on disk after sync (the fs is then stopped dead and remounted), nobody is
# OOM-killed, and no task stays in balance_dirty_pages for 10 s or more
# (longest stall from the balance_dirty_pages tracepoint).
. "$(dirname "$0")/../../guest/lib.sh"
require_scratch 2
require_cgroup memory
rounds=${ROUNDS:-10}; [ "${QUICK:-0}" = 1 ] && rounds=2
e4=$(scratch 0) xd=$(scratch 1)
fresh_fs ext4 "$e4" /mnt/mw
fresh_fs xfs "$xd" /mnt/hog
ref=$(make_ref mem.ref 8192)
grep -qw io /sys/fs/cgroup/cgroup.controllers && io=" +io" || io=
echo "+memory$io" > /sys/fs/cgroup/cgroup.subtree_control
cg=/sys/fs/cgroup/stress-mem
mkdir -p $cg && on_exit "rmdir $cg"
echo $((48 << 20)) > $cg/memory.max
[ -w "$IDLE" ] && echo 100 > "$IDLE"
faults=0
if [ -w "$FLUSHER_FAULTS/probability" ]; then
	faults=1
	restore "$FLUSHER_FAULTS/times" "$FLUSHER_FAULTS/verbose"
	echo -1 > "$FLUSHER_FAULTS/times"
	echo 0 > "$FLUSHER_FAULTS/verbose"
fi
trace_on writeback:balance_dirty_pages
mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
kills() { awk '$1 == "oom_kill" {print $2}' /proc/vmstat; }	# every OOM kill, memcg's too
oom0=$(kills)
files=0 bad=0 stall=0
for r in $(seq "$rounds"); do
	if [ $faults = 1 ]; then	# fail half the creations, or delay them 3 s
		echo $((r % 2 ? 0 : 3000)) > "$FLUSHER_FAULTS/delay_ms"
		echo 50 > "$FLUSHER_FAULTS/probability"
	fi
	# the hog: a file of most of memory, written then read twice
	( dd if=/dev/zero of=/mnt/hog/hog bs=1M count=$((mem_kb * 3 / 4 / 1024)) status=none
	  cat /mnt/hog/hog > /dev/null; cat /mnt/hog/hog > /dev/null ) &
	hog=$!
	timeout 600 bash -c "echo \$\$ > $cg/cgroup.procs
		for i in \$(seq 8); do cp $ref /mnt/mw/r$r-\$i || exit 1; done" ||
		{ wait $hog; fail "round $r: the cgroup writer failed or hung (exit $?)"; }
	wait $hog
	files=$((files + 8))
	rm -f /mnt/hog/hog
done
[ $faults = 1 ] && echo 0 > "$FLUSHER_FAULTS/probability"
sync
shutdown_noflush /mnt/mw
umount /mnt/mw && mount_dev ext4 "$e4" /mnt/mw || fail "remount ext4"
drop_caches
for f in /mnt/mw/r*; do cmp -s "$ref" "$f" || { echo "$f differs"; bad=$((bad + 1)); }; done
stall=$(trace_text | sed -n 's/.* paused=\([0-9]*\) pause=\([0-9-]*\) .*/\1 \2/p' |
	awk '{t = $1 + ($2 > 0 ? $2 : 0); if (t > m) m = t} END {print m + 0}')
pauses=$(trace_text | grep -c 'balance_dirty_pages:' || true)
kills=$(( $(kills) - oom0 ))
echo "counts: rounds $rounds, files $files checked, lost or corrupt $bad, OOM kills $kills, balance_dirty_pages events $pauses, longest stall ${stall} ms, fault injection $([ $faults = 1 ] && echo on || echo absent)"
[ "$bad" = 0 ] || fail "$bad files lost or corrupt"
[ "$kills" = 0 ] || fail "$kills OOM kills"
[ "$stall" -lt 10000 ] || fail "a task stalled ${stall} ms in balance_dirty_pages"
