#!/bin/bash
# timeout: 600
# boot: APPEND=isolcpus=domain,managed_irq,1
# Writeback keeps off a CPU isolated with isolcpus= (stock 6.12 takes it
# out of the unbound workqueues' cpumask): during 30 s of writeback on two
# disks, no writeback_start event comes from CPU 1 and no thread that wrote
# back is switched in on CPU 1 (sched_switch); those threads, and with the
# series every flusher and the forker, are not allowed on CPU 1.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
grep -qw 'isolcpus=domain,managed_irq,1' /proc/cmdline || fail "booted without isolcpus=domain,managed_irq,1"
[ "$(cat /sys/devices/system/cpu/isolated)" = 1 ] || fail "CPU 1 is not isolated: $(cat /sys/devices/system/cpu/isolated)"
[ "$(cat /sys/devices/virtual/workqueue/cpumask)" = 1 ] ||
	fail "unbound workqueue cpumask is $(cat /sys/devices/virtual/workqueue/cpumask), want 1 (CPU 0)"
fresh_fs ext4 "$(scratch 0)" /mnt/iso0
fresh_fs xfs "$(scratch 1)" /mnt/iso1
echo $((1 << 20)) > /proc/sys/vm/dirty_background_bytes
trace_on writeback:writeback_start sched:sched_switch
say "30 s of writeback on two disks"
end=$(( $(date +%s) + 30 ))
while [ "$(date +%s)" -lt $end ]; do
	for m in /mnt/iso0 /mnt/iso1; do
		dd if=/dev/zero of=$m/f bs=1M count=8 status=none
	done
	sync
done
echo 0 > $TRACE/tracing_on
wb=$(trace_text | grep ' writeback_start: ')
[ -n "$wb" ] || fail "no writeback traced"
cpus=$(echo "$wb" | grep -o '\[[0-9]*\]' | sort -u | tr -d '[]\n ')
[ "$cpus" = 000 ] || fail "writeback_start events on CPUs $cpus"
pids=$(echo "$wb" | awk '{t = $1; sub(/.*-/, "", t); print t}' | sort -un)
# the series' threads, whether or not they wrote back during the trace
pids="$pids $(ps -e -o pid=,comm= | awk '$2 ~ /^flush-/ || $2 == "bdi-default" {print $1}')"
for p in $pids; do
	trace_text | grep '^ *[^ ]* *\[001\]' | grep -q "sched_switch: .* next_pid=$p " &&
		fail "pid $p ($(cat /proc/$p/comm 2>/dev/null)) ran on CPU 1"
	[ -d /proc/$p ] || continue
	[ "$(cpus_of $p)" = 0 ] || fail "pid $p ($(cat /proc/$p/comm)) allowed on CPUs $(cpus_of $p)"
done
say "writeback threads: $(placement $pids)"
switches=$(trace_text | grep -c 'sched_switch:')
[ "$switches" -gt 0 ] || fail "no sched_switch traced"
say "$switches context switches traced, none of them to a writeback thread on CPU 1"
umount /mnt/iso0 /mnt/iso1
