#!/bin/bash
# needs: series
# vm.flusher_idle_centisecs (default 5 min): a flusher with nothing to do
# for that long exits (tracepoint writeback_flusher_exit, reason=idle); the
# next dirtying starts a new one. Bad values are refused.
. "$(dirname "$0")/../guest/lib.sh"
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
wait_until 10 eval '[ -n "$(threads "flush-$bdi")" ]' || fail "no flusher after dirtying"
pid=$(threads "flush-$bdi")
start=$(date +%s)
wait_until 30 no_flusher "$bdi" || fail "flusher $pid still there 30s after its last work (idle 2s)"
say "exited after $(( $(date +%s) - start ))s"
[ "$(flusher_state "$bdi")" = none ] || fail "state $(flusher_state "$bdi") after exit"
trace_text | grep -q "writeback_flusher_create: bdi $bdi: pid=$pid" || fail "no create event for $pid"
trace_text | grep -q "writeback_flusher_exit: bdi $bdi: pid=$pid reason=idle" || fail "no idle exit event for $pid"

echo 0 > $IDLE		# never exit
dd if=/dev/zero of="$dev" bs=1M count=2 status=none
wait_until 10 eval '[ -n "$(threads "flush-$bdi")" ]' || fail "no new flusher after dirtying again"
pid2=$(threads "flush-$bdi")
[ "$pid2" != "$pid" ] || fail "same pid $pid after exit"
sync
sleep 4
[ "$(threads "flush-$bdi")" = "$pid2" ] || fail "flusher exited although idle time is 0"
