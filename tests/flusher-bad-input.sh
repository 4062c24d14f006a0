#!/bin/bash
# timeout: 900
# Every knob of the series (a bdi's flushers, flusher_cpumask and
# flusher_nice, vm.flusher_idle_centisecs, fail_flusher_create/delay_ms)
# refuses bad values, each written whole in
# one write(2), by two writers at once: -EINVAL, -ERANGE, or -E2BIG above a
# page; the value unchanged, nothing logged above KERN_INFO. Good values
# still work afterwards.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_knob "$FLUSHER_KNOBS"
require_file "$FLUSHER_THREADS" "$FLUSHER_FAULTS/delay_ms"
bdi=$(bdi_of "$(scratch 0)")
FLUSHERS=/sys/class/bdi/$bdi/flushers DELAY=$FLUSHER_FAULTS/delay_ms
dir=/tmp/bad-input
rm -rf $dir && mkdir -p $dir/v

# each bad value in a file of its own, exactly these bytes
n=0
bad() { printf -- "$1" > $dir/v/$n; n=$((n + 1)); }
bad '\n'; bad ' '; bad '\t'; bad ' \n'; bad '-1'; bad '-0'; bad '-0x1'
bad '+'; bad '-'; bad '1x'; bad 'x1'; bad '1 2'; bad '1,2'; bad '1.5'
bad 'abc'; bad '0x'; bad '1\0'; bad '\0'; bad '2\0002'; bad '1\n2'
bad '1\n\n'; bad '99999999999999999999'; bad '18446744073709551616'
bad "1$(printf '%600s' '')"; bad "$(head -c 5000 /dev/zero | tr '\0' 9)"
bad '\377'; bad '\357\274\221'	# 0xff; fullwidth digit one
echo "$n bad values"

# hammer KNOB TAG: write every bad value 5 times; log what was not refused
hammer() {
	local f r e
	for r in $(seq 5); do
		for f in $dir/v/*; do
			# dd reads the file in one block and writes it in one write(2)
			e=$(dd if="$f" of="$1" bs=8192 count=1 status=none 2>&1) &&
				{ echo "took $(od -An -c "$f" | head -c 60)"; continue; }
			case $e in
			*"Invalid argument"* | *"out of range"* | *"too long"*) ;;
			*) echo "value $(od -An -c "$f" | head -c 40): $e" ;;
			esac
		done
	done > $dir/$2.out
}

# check KNOB GOOD...: two writers at once, then the value and good writes
check() {
	local knob=$1 before v
	shift
	before=$(cat "$knob")
	hammer "$knob" a & hammer "$knob" b & wait
	if [ -s $dir/a.out ] || [ -s $dir/b.out ]; then
		sort -u $dir/a.out $dir/b.out | head -5
		fail "$knob: bad values not refused with EINVAL/ERANGE/E2BIG (above)"
	fi
	[ "$(cat "$knob")" = "$before" ] ||
		fail "$knob: bad writes changed it from $before to $(cat "$knob")"
	for v; do
		echo "$v" > "$knob" || fail "$knob refused good value $v"
		[ "$(cat "$knob")" = "$v" ] || fail "$knob: wrote $v, reads $(cat "$knob")"
	done
	echo "$knob: $((2 * 5 * n)) bad writes refused, $before kept; $* taken"
}

restore "$FLUSHERS" "$FLUSHER_THREADS" "$DELAY"
# (not from the writes: the RNG's one notice, TCG's slow timer interrupts
# and, on a busy host, the clocksource watchdog's stalled readouts)
above_info() {
	dmesg --level=emerg,alert,crit,err,warn,notice |
		grep -vE 'random: crng init done|hrtimer: interrupt took|clocksource: Long readout interval'
}
logged() { above_info | wc -l; }
log0=$(logged)
check "$FLUSHERS" 3 1
check "$FLUSHER_THREADS" 100 30000
check "$DELAY" 5 0
# the placement knobs (patch 22), where the kernel has them: -1 and -0 are
# nice values, so flusher_nice gets the list without them
if [ -f "/sys/class/bdi/$bdi/flusher_cpumask" ]; then
	P=/sys/class/bdi/$bdi
	restore "$P/flusher_cpumask" "$P/flusher_nice"	# back to "default"
	check "$P/flusher_cpumask" 1 2 "$(cat $WQ_DIR/cpumask)"
	rm $dir/v/4 $dir/v/5; n=$((n - 2))
	check "$P/flusher_nice" 5 -20 19 "$(cat $WQ_DIR/nice)"
fi
[ "$(logged)" = "$log0" ] || {
	above_info | tail -n +$((log0 + 1)) | head
	fail "the bad writes logged above KERN_INFO"
}
