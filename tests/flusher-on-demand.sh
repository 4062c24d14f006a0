#!/bin/bash
# The forker "bdi-default" exists from boot; a bdi gets its flusher
# "flush-<bdi>" (a kernel thread) when it first has dirty data, exactly one;
# N disks dirtied at once get N flushers; tmpfs (noop bdi) gets none.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_file "$FLUSHER_THREADS"
forker=$(threads bdi-default)
[ "$(echo "$forker" | wc -w)" = 1 ] || fail "want one bdi-default thread, have: '$forker'"
is_kthread "$forker" || fail "bdi-default ($forker) is not a kernel thread"

quiet_writeback
idle_all_flushers
bdis=()
for i in 0 1 2 3; do
	b=$(bdi_of "$(scratch $i)"); bdis+=("$b")
	no_flusher "$b" || fail "$b has a flusher before any dirty data"
	[ "$(flusher_state "$b")" = none ] || fail "$b: state $(flusher_state "$b")"
done

# the 9p share that takes the test logs is a bdi with writeback too
disk_flushers() { ps -e -o comm= | grep '^flush-' | grep -v '^flush-9p-' || true; }
say "dirty tmpfs only"
dd if=/dev/zero of=/tmp/tmpfs-file bs=1M count=8 status=none
sleep 2
[ -z "$(disk_flushers)" ] || fail "a flusher appeared for tmpfs: $(disk_flushers)"

say "dirty one disk"
dd if=/dev/zero of="$(scratch 0)" bs=1M count=4 status=none
wait_thread 30 "flush-${bdis[0]}" || fail "no flush-${bdis[0]} after dirtying"
pid=$(threads "flush-${bdis[0]}")
[ "$(echo "$pid" | wc -w)" = 1 ] || fail "want one flush-${bdis[0]}, have pids: $pid"
is_kthread "$pid" || fail "flush-${bdis[0]} ($pid) is not a kernel thread"
[ "$(flusher_pid "${bdis[0]}")" = "$pid" ] || fail "debugfs says pid $(flusher_pid "${bdis[0]}"), ps says $pid"
[ "$(flusher_state "${bdis[0]}")" = running ] || fail "state $(flusher_state "${bdis[0]}")"
for b in "${bdis[@]:1}"; do no_flusher "$b" || fail "$b got a flusher without dirty data"; done

say "dirty all disks at once"
for i in 1 2 3; do dd if=/dev/zero of="$(scratch $i)" bs=1M count=4 status=none & done
wait
for b in "${bdis[@]}"; do
	wait_thread 30 "flush-$b" || fail "no flush-$b"
	n=$(threads "flush-$b" | wc -l)
	[ "$n" = 1 ] || fail "flush-$b: $n threads"
done
all=$(disk_flushers | wc -l)
[ "$all" = 4 ] || fail "want 4 flushers, have $all: $(disk_flushers | tr '\n' ' ')"
sync
say "flushers: $(ps -e -o pid=,comm= | grep flush- | tr -s ' \n' ' ')"
