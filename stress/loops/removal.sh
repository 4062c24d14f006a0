#!/bin/bash
# timeout: 5400
# Device removal under dirty load: CYCLES (50; QUICK=1: 5) cycles each of
# a null_blk disk powered off through configfs and of a loop device
# detached and removed, while writers dirty a filesystem on it (ext4 and
# XFS in turn) and, on the series, its flushers change between 2 and 8.
# Removal completes, the writers end (null_blk: with errors) instead of
# hanging, and nothing of the device is left behind: no flusher thread, no
# bdi in debugfs or sysfs. The loop device's synced file reads back.
. "$(dirname "$0")/../../guest/lib.sh"
cycles=${CYCLES:-50}; [ "${QUICK:-0}" = 1 ] && cycles=5
quiet_writeback
echo 500 > /proc/sys/vm/dirty_writeback_centisecs
ref=$(make_ref removal.ref 1024)
cycles_run=0 hangs=0 leaks=0 errored=0 lost=0

# writers MNT N: N writers creating 1 MB files until a write fails
writers() {
	local w
	wpids=()
	for w in $(seq "$2"); do
		( i=0; while dd if=/dev/zero of="$1/w$w-$i" bs=64k count=16 status=none 2>/dev/null; do
			i=$((i + 1)); done ) &
		wpids+=($!)
	done
}
# end_writers SECS: wait for the writers; KILL what is left after SECS
# seconds and count a hang for any that does not go then
end_writers() {
	local p
	wait_until "$1" eval '! kill -0 ${wpids[@]} 2>/dev/null' && return 0
	kill -KILL "${wpids[@]}" 2>/dev/null
	wait_until 30 eval '! kill -0 ${wpids[@]} 2>/dev/null' && return 1
	for p in "${wpids[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		echo "writer $p hangs:"; cat "/proc/$p/stack" 2>/dev/null
	done
	hangs=$((hangs + 1)); return 1
}
# knob_churn BDI: change the bdi's flushers every 0.3 s (the series only)
knob_churn() {
	local k=/sys/class/bdi/$1/flushers
	[ -w "$k" ] || return 0
	( while :; do echo $((RANDOM % 7 + 2)) 2>/dev/null > "$k"; sleep 0.3; done ) &
	churn=$!
}
stop_churn() { [ -n "${churn:-}" ] || return 0; kill "$churn"; wait "$churn" 2>/dev/null; churn=; }
# gone BDI: nothing of the bdi is left; count a leak otherwise
no_threads_of() { ! ps -e -o comm= | grep -qE "^flush-$1(/[0-9]+)?\$"; }
gone() {
	wait_until 10 no_threads_of "$1" ||
		{ echo "threads of $1 left: $(ps -e -o pid=,comm= | grep "flush-$1")"; leaks=$((leaks + 1)); }
	[ ! -e "/sys/kernel/debug/bdi/$1" ] || { echo "bdi $1 left in debugfs"; leaks=$((leaks + 1)); }
	[ ! -e "/sys/class/bdi/$1" ] || { echo "bdi $1 left in sysfs"; leaks=$((leaks + 1)); }
}

nb=/sys/kernel/config/nullb/stress
for c in $(seq "$cycles"); do
	fs=ext4; [ $((c % 2)) = 0 ] && fs=xfs
	# null_blk: powered off under the writers
	mkdir $nb && echo 512 > $nb/size && echo 1 > $nb/memory_backed &&
		echo 1 > $nb/power || fail "cycle $c: null_blk"
	wait_until 5 test -b /dev/stress || fail "cycle $c: no /dev/stress"
	bdi=$(bdi_of /dev/stress)
	fresh_fs $fs /dev/stress /mnt/nb
	knob_churn "$bdi"
	writers /mnt/nb 3
	sleep "$((RANDOM % 3 + 1))"
	timeout 60 sh -c "echo 0 > $nb/power" || { echo "cycle $c: power off hangs"; hangs=$((hangs + 1)); }
	stop_churn
	end_writers 60 && errored=$((errored + 1))
	timeout 60 umount /mnt/nb || { echo "cycle $c: umount hangs"; hangs=$((hangs + 1)); }
	timeout 60 rmdir $nb || { echo "cycle $c: rmdir hangs"; hangs=$((hangs + 1)); }
	gone "$bdi"

	# loop: lazily unmounted and detached under the writers, then removed
	truncate -s 320M /tmp/loop.img
	loop=$(losetup -f --show /tmp/loop.img) || fail "cycle $c: losetup"
	bdi=$(bdi_of "$loop")
	fresh_fs $fs "$loop" /mnt/loop
	cp "$ref" /mnt/loop/synced && sync -f /mnt/loop || fail "cycle $c: synced file"
	knob_churn "$bdi"
	writers /mnt/loop 3
	sleep "$((RANDOM % 3 + 1))"
	umount -l /mnt/loop && losetup -d "$loop" || fail "cycle $c: lazy umount/detach"
	stop_churn
	kill "${wpids[@]}" 2>/dev/null
	end_writers 60
	# the last close writes the fs back, then the loop device lets go
	wait_until 60 eval "[ ! -e /sys/block/${loop#/dev/}/loop/backing_file ]" ||
		{ echo "cycle $c: $loop still attached"; hangs=$((hangs + 1)); }
	timeout 60 python3 -c "import fcntl, os; fcntl.ioctl(os.open('/dev/loop-control', os.O_RDWR), 0x4C81, ${loop#/dev/loop})" ||
		{ echo "cycle $c: LOOP_CTL_REMOVE of $loop failed"; hangs=$((hangs + 1)); }
	gone "$bdi"
	loop=$(losetup -f --show /tmp/loop.img) || fail "cycle $c: losetup again"
	fsck_fs $fs "$loop" || { echo "cycle $c: $fs on $loop not clean (above)"; lost=$((lost + 1)); }
	mount_dev $fs "$loop" /mnt/loop && cmp -s "$ref" /mnt/loop/synced ||
		{ echo "cycle $c: synced file lost"; lost=$((lost + 1)); }
	umount /mnt/loop; losetup -d "$loop"; rm -f /tmp/loop.img
	cycles_run=$c
done
echo "counts: removal cycles $cycles_run (null_blk + loop each), null_blk writers ended by errors $errored, hangs $hangs, leaks $leaks, lost or unclean $lost"
[ $((hangs + leaks + lost)) = 0 ] || fail "hangs $hangs, leaks $leaks, lost or unclean $lost"
