#!/bin/bash
# vm.flusher_idle_centisecs (default 5 min): a flusher with nothing to do
# for that long exits (tracepoint writeback_flusher_exit, reason=idle); the
# next dirtying starts a new one. Bad values are refused.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_file "$FLUSHER_THREADS"
[ -f $IDLE ] || fail "no $IDLE"
[ "$(cat $IDLE)" = 30000 ] || fail "default is $(cat $IDLE), want 30000 (5 min)"
for bad in -1 abc 1x 99999999999 429496730; do
	echo "$bad" > $IDLE 2>/dev/null && fail "accepted '$bad'"
done
[ "$(cat $IDLE)" = 30000 ] || fail "a bad write changed it to $(cat $IDLE)"

dev=$(scratch 1) bdi=$(bdi_of "$dev")
quiet_writeback
idle_all_flushers
trace_on writeback:writeback_flusher_create writeback:writeback_flusher_exit
echo 200 > $IDLE
dd if=/dev/zero of="$dev" bs=1M count=2 conv=fsync status=none
# the flusher may come and go between two looks at ps: follow the trace
exited() { trace_text | grep -q "writeback_flusher_exit: bdi $bdi: "; }
wait_until 60 exited || fail "no flusher exit traced 60s after dirtying (idle 2s)"
created=$(trace_text | grep "writeback_flusher_create: bdi $bdi: " | head -n1)
gone=$(trace_text | grep "writeback_flusher_exit: bdi $bdi: " | head -n1)
[ -n "$created" ] || fail "no create event"
pid=${created##*pid=}
echo "$gone" | grep -q "pid=$pid reason=idle" || fail "exit event '$gone' is not the idle exit of $pid"
ts() { echo "$1" | sed 's/.* \([0-9.]*\): writeback_flusher.*/\1/'; }
lived=$(awk -v a="$(ts "$created")" -v b="$(ts "$gone")" 'BEGIN {print b - a}')
say "flusher $pid lived ${lived}s"
awk -v l="$lived" 'BEGIN {exit !(l >= 1.9)}' || fail "exited after ${lived}s, before the 2s idle period"
no_flusher "$bdi" || fail "flusher still listed after its exit"
[ "$(flusher_state "$bdi")" = none ] || fail "state $(flusher_state "$bdi") after exit"

echo 0 > $IDLE		# never exit
dd if=/dev/zero of="$dev" bs=1M count=2 status=none
wait_thread 30 "flush-$bdi" || fail "no new flusher after dirtying again"
pid2=$(threads "flush-$bdi")
[ "$pid2" != "$pid" ] || fail "same pid $pid after exit"
sync
sleep 4
[ "$(threads "flush-$bdi")" = "$pid2" ] || fail "flusher exited although idle time is 0"
