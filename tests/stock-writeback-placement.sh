#!/bin/bash
# timeout: 600
# Writeback runs where /sys/devices/virtual/workqueue/writeback/cpumask and
# nice say, as on stock 6.12: after each change, every writeback_start
# event of a sync and of background writeback comes from a CPU of the
# mask, from threads that have the mask and the nice value (the
# workqueue's kworkers on stock; with the series the flushers, which also
# move within a second of the change, and the forker).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_file $WQ_DIR/cpumask
[ "$(nproc)" -ge 2 ] || skip "needs 2 online CPUs"
dev=$(scratch 0) bdi=$(bdi_of "$dev")
on_exit "echo $(cat $WQ_DIR/cpumask) > $WQ_DIR/cpumask; echo $(cat $WQ_DIR/nice) > $WQ_DIR/nice"
quiet_writeback
ref=$(make_ref place.ref 8192)
fresh_fs ext4 "$dev" /mnt/place
# the series' threads: the flushers and the forker
series_threads() { ps -e -o pid=,comm= | awk '$2 ~ /^flush-/ || $2 == "bdi-default" {print $1}'; }

for step in "1 2 5" "0 1 -3"; do
	read -r cpu mask nice <<< "$step"
	say "writeback workqueue on CPU $cpu (mask $mask), nice $nice"
	cp "$ref" /mnt/place/a && sync	# a flusher runs (with the series)
	echo "$mask" > $WQ_DIR/cpumask && echo "$nice" > $WQ_DIR/nice ||
		fail "the workqueue refused cpumask $mask, nice $nice"
	if [ -n "$(threads bdi-default)" ]; then
		# shellcheck disable=SC2046
		wait_until 1 eval 'placed_as $cpu $nice $(series_threads)' ||
			fail "flushers not moved within 1 s: $(placement $(series_threads))"
	fi
	trace_on writeback:writeback_start
	cp "$ref" /mnt/place/b && sync
	echo $((1 << 20)) > /proc/sys/vm/dirty_background_bytes
	cp "$ref" /mnt/place/c
	# (it stops below the threshold, which the bdi's approximate
	# per-wb counters in debugfs cannot tell apart: wait for its events)
	wait_until 30 eval 'trace_text | grep -q "writeback_start: bdi $bdi:.* background=1"' ||
		fail "no background writeback traced; $(bdi_dirty_kb "$bdi") kB dirty"
	quiet_writeback
	trace_text | grep -q "writeback_start: bdi $bdi:" || fail "no writeback traced on $bdi"
	cpus=$(traced_cpus | tr '\n' ' ')
	[ "$cpus" = "$cpu " ] || fail "writeback ran on CPUs $cpus, mask is CPU $cpu"
	# shellcheck disable=SC2046
	placed_as $cpu $nice $(traced_pids) ||
		fail "threads that wrote back: $(placement $(traced_pids))"
	say "writeback on CPU $cpus by $(placement $(traced_pids))"
done
on_disk ext4 "$dev" /mnt/place "$ref" a b c
umount /mnt/place
