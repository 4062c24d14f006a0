#!/bin/bash
# timeout: 900
# Per-device placement of flushers: /sys/class/bdi/<bdi>/flusher_cpumask
# and flusher_nice. Reading shows what is in force (the writeback
# workqueue's by default); bad values are refused and change nothing; a
# setting applies at once to the flusher of every context of the bdi, to
# flushers started later (more contexts, idle exit and respawn), and to
# that bdi only; it stays when the workqueue's changes. When its only CPU
# goes offline the flushers fall back to the workqueue's CPUs (said once
# at KERN_INFO) and come back when it returns; "default" undoes it.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_knob '/sys/class/bdi/*/flusher_cpumask'
require_file "$FLUSHER_THREADS"
[ "$(nproc)" -ge 2 ] || skip "needs 2 online CPUs"
[ -w /sys/devices/system/cpu/cpu1/online ] || skip "CPU 1 cannot go offline"
dev=$(scratch 0) bdi=$(bdi_of "$dev") other=$(scratch 1) obdi=$(bdi_of "$(scratch 1)")
cpumask=/sys/class/bdi/$bdi/flusher_cpumask nice=/sys/class/bdi/$bdi/flusher_nice
wq_mask=$(cat $WQ_DIR/cpumask) wq_nice=$(cat $WQ_DIR/nice)
on_exit "echo 1 > /sys/devices/system/cpu/cpu1/online; echo $wq_mask > $WQ_DIR/cpumask; echo $wq_nice > $WQ_DIR/nice"
on_exit "echo default > $cpumask; echo default > $nice; echo 0 > /sys/class/bdi/$bdi/flushers"
old_idle=$(cat $IDLE); on_exit "echo $old_idle > $IDLE"
ref=$(make_ref place.ref 1024)

say "defaults: the writeback workqueue's"
[ "$(cat $cpumask)" = "$wq_mask" ] || fail "flusher_cpumask reads $(cat $cpumask), workqueue $wq_mask"
[ "$(cat $nice)" = "$wq_nice" ] || fail "flusher_nice reads $(cat $nice), workqueue $wq_nice"

say "bad values"
npossible=$(( $(cut -d- -f2 /sys/devices/system/cpu/possible) + 1 ))
beyond=$(printf '%x' $((1 << npossible)))	# the first CPU it cannot have
long=$(printf 'f%.0s' $(seq 3000))
bad_write() {	# bad_write FILE FORMAT: printf FORMAT in one write(2), refused
	local err
	printf -- "$2" > /tmp/bad.value
	err=$(dd if=/tmp/bad.value of="$1" bs=64k status=none 2>&1) && return 1
	case $err in *"Invalid argument"*|*"out of range"*|*"too long"*) return 0 ;; esac
	echo "write of '$2' to $1: $err"; return 1
}
for v in '\n' 0 00 ' ' ' 1' '1 2' '1\n2' '1\n\n' -1 0x1 xyz g 1,1 "$beyond" "$long" '1\0' '\0' defaults; do
	bad_write $cpumask "$v" || fail "flusher_cpumask took '$v'"
done
for v in '\n' ' ' -21 20 100000000000 abc '1 2' '1\n2' 1.5 0x1 + - '1\0' "$long" default1; do
	bad_write $nice "$v" || fail "flusher_nice took '$v'"
done
[ "$(cat $cpumask)" = "$wq_mask" ] || fail "bad writes changed flusher_cpumask to $(cat $cpumask)"
[ "$(cat $nice)" = "$wq_nice" ] || fail "bad writes changed flusher_nice to $(cat $nice)"

bdi_threads() { ps -e -o pid=,comm= | awk -v a="flush-$1" -v b="flush-$1/" '$2 == a || index($2, b) == 1 {print $1}'; }
dirty() {	# dirty N: N files, each in a directory of its own (and group)
	local i
	for i in $(seq 0 $(($1 - 1))); do
		mkdir -p "/mnt/pl/d$i" && cp "$ref" "/mnt/pl/d$i/f$RANDOM" || fail "write d$i"
	done
	sync -f /mnt/pl
}
check() {	# check WHAT CPUS NICE: the bdi's flushers (two or more) have them
	local pids
	pids=$(bdi_threads "$bdi")
	[ "$(echo "$pids" | wc -w)" -ge 2 ] || fail "$1: flushers of $bdi: '$pids', want 2 or more"
	# shellcheck disable=SC2086
	wait_until 1 placed_as "$2" "$3" $pids || fail "$1: want CPUs $2 nice $3, have $(placement $pids)"
}

echo 0 > $IDLE	# flushers stay until told
quiet_writeback
mkfs.ext4 -q -F -O ^flex_bg "$dev" && mount_dev ext4 "$dev" /mnt/pl || fail "mkfs/mount"
fresh_fs xfs "$other" /mnt/pl2
echo 4 > /sys/class/bdi/$bdi/flushers
dirty 8
cp "$ref" /mnt/pl2/f && sync -f /mnt/pl2
wait_thread 10 "flush-$obdi" || fail "no flusher for $obdi"
opid=$(threads "flush-$obdi")

say "CPU 1, nice 7: every context's flusher at once, not the other bdi's"
echo 2 > $cpumask && echo 7 > $nice || fail "refused CPU mask 2 / nice 7"
[ "$(cat $cpumask)" = 2 ] && [ "$(cat $nice)" = 7 ] || fail "reads $(cat $cpumask) / $(cat $nice) after 2 / 7"
check "after the change" 1 7
placed_as "$(mask_list "$wq_mask")" "$wq_nice" "$opid" || fail "$obdi's flusher moved too: $(placement "$opid")"

say "the workqueue's change leaves it alone"
echo 1 > $WQ_DIR/cpumask && echo -2 > $WQ_DIR/nice
check "workqueue changed" 1 7
wait_until 1 placed_as 0 -2 "$opid" || fail "$obdi's flusher did not follow the workqueue: $(placement "$opid")"
echo "$wq_mask" > $WQ_DIR/cpumask; echo "$wq_nice" > $WQ_DIR/nice

say "flushers started later: fewer and more contexts, idle exit and respawn"
echo 1 > /sys/class/bdi/$bdi/flushers; echo 4 > /sys/class/bdi/$bdi/flushers
dirty 8
check "after flushers 1 then 4" 1 7
idle_all_flushers
dirty 8
check "after idle exit" 1 7

say "CPU 1 offline: back to the workqueue's CPUs, once logged"
echo 0 > /sys/devices/system/cpu/cpu1/online || fail "cannot offline CPU 1"
dirty 8
wqlist=$(mask_list "$wq_mask")
check "CPU 1 offline" "$wqlist" 7
[ "$(cat $cpumask)" = "$wq_mask" ] || fail "flusher_cpumask reads $(cat $cpumask) with CPU 1 offline, want $wq_mask"
n=$(dmesg | grep -c "bdi $bdi: flusher CPUs 1 are offline")
[ "$n" = 1 ] || fail "$n offline messages for $bdi"
dmesg -l info | grep -q "bdi $bdi: flusher CPUs 1 are offline" || fail "the offline message is not at KERN_INFO"
echo 1 > /sys/devices/system/cpu/cpu1/online || fail "cannot online CPU 1"
check "CPU 1 back" 1 7
[ "$(cat $cpumask)" = 2 ] || fail "flusher_cpumask reads $(cat $cpumask) with CPU 1 back"

say "default"
echo default > $cpumask && echo default > $nice || fail "default refused"
check "back to default" "$(mask_list "$wq_mask")" "$wq_nice"
[ "$(cat $cpumask)" = "$wq_mask" ] && [ "$(cat $nice)" = "$wq_nice" ] || fail "reads $(cat $cpumask) / $(cat $nice) after default"
umount /mnt/pl /mnt/pl2
