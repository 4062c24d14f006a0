#!/bin/bash
# timeout: 420
# One device whose writeback blocks must not stop the writeback of the
# others. Device "stuck" is dm-linear over disk A with XFS, suspended with
# a file whose pages are under writeback (their bios parked in dm) and
# dirty again: a sync of it sleeps in folio_wait_writeback() in whatever
# runs its writeback. Meanwhile disk B (ext4) must be written back: sync -f
# of B within 30 s. On stock this is a kworker of the "writeback"
# workqueue. With the series (fault injection) also while flusher
# creation fails, so that the stuck writeback runs in the forker's
# fallback; and once creation works again, B must get its flusher.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
command -v dmsetup >/dev/null || skip "no dmsetup"
[ -e /sys/module/dm_mod ] || grep -qw device-mapper /proc/devices || skip "no device-mapper"
a=$(scratch 0) b=$(scratch 1)
ma=/mnt/stuck mb=/mnt/other dm=stuck
bdi_b=$(bdi_of "$b")
fi_dir=$FLUSHER_FAULTS
ref=$(make_ref stuck.ref 8192)
refb=$(make_ref other.ref 4096)
bound=30

quiet_writeback
echo "0 $(blockdev --getsz "$a") linear $a 0" | dmsetup create $dm || fail "dmsetup create"
on_exit "dmsetup resume $dm; umount $ma; dmsetup remove $dm"
# no udev here: the device's node is the one devtmpfs makes, dm-N
dev=/dev/$(dmsetup info -c --noheadings -o blkdevname $dm)
fresh_fs xfs "$dev" "$ma"
fresh_fs ext4 "$b" "$mb"
on_exit "umount $mb"
# the file's blocks are allocated and on disk: rewriting it needs no
# allocation, so nothing but the data waits for the device
cp "$ref" "$ma/f" && sync || fail "write to $ma"
bdi_a=$(bdi_of "$dev")

# stuck: leave the device with a sync blocked on it, in the background
stuck() {
	dmsetup suspend --noflush --nolockfs $dm || fail "dmsetup suspend"
	# rewritten in place: a truncation would wait for the writeback
	dd if="$ref" of="$ma/f" bs=1M conv=notrunc status=none || fail "rewrite"
	# the writer starts the writeback itself: the pages are under it now
	xfs_io -c "sync_range -w 0 0" "$ma/f" || fail "sync_range"
	dd if="$ref" of="$ma/f" bs=1M conv=notrunc status=none || fail "rewrite"	# dirty again
	sync -f "$ma" &
	stuck_sync=$!
	sleep 3
	kill -0 $stuck_sync 2>/dev/null || fail "$1: sync of the suspended device returned: the test shows nothing"
	say "$1: sync of $dm ($bdi_a) blocked"
}
# other NAME: disk B is written back while the stuck device is (a sync
# that waits in the kernel does not end on a signal: poll for it instead)
other() {
	local t0 secs s
	cp "$refb" "$mb/$1" || fail "write to $mb"
	t0=$(date +%s)
	sync -f "$mb" & s=$!
	if wait_until $bound eval '! kill -0 $s 2>/dev/null'; then
		secs=$(( $(date +%s) - t0 ))
		say "$1: sync -f of $bdi_b returned after ${secs}s"
	else
		errs+=("$1: sync -f of $bdi_b did not return within ${bound}s while $dm was stuck")
		other_syncs+=($s)
	fi
}
# unstick: resume the device; the blocked sync returns
unstick() {
	dmsetup resume $dm || fail "dmsetup resume"
	wait_until 60 eval '! kill -0 $stuck_sync 2>/dev/null' ||
		fail "$1: sync of $dm still blocked 60 s after resume"
	wait $stuck_sync || fail "$1: sync of $dm failed"
	local s
	for s in "${other_syncs[@]}"; do wait "$s"; done
}
errs=() other_syncs=()

stuck plain
other plain
unstick plain

if [ -e "$fi_dir" ]; then
	# the series: creation of every flusher fails; the stuck device's
	# writeback and B's run without a flusher
	idle_all_flushers
	echo 0 > $fi_dir/verbose
	echo -1 > $fi_dir/times
	echo 100 > $fi_dir/probability
	on_exit "echo 0 > $fi_dir/probability"
	trace_on writeback:writeback_forker_fallback writeback:writeback_flusher_create
	stuck fallback
	no_flusher "$bdi_a" || fail "fallback: $dm has a flusher although creation fails"
	other fallback
	trace_text | grep -q "writeback_forker_fallback: bdi $bdi_b:" ||
		errs+=("fallback: no fallback writeback traced for $bdi_b")
	# creation works again: B gets its flusher although A is stuck
	echo 0 > $fi_dir/probability
	cp "$refb" "$mb/created"
	wait_thread 10 "flush-$bdi_b" || errs+=("create: no flush-$bdi_b within 10 s while $dm was stuck")
	other create
	unstick fallback
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $fi_dir is missing"
fi

for e in "${errs[@]}"; do echo "FAIL: $e"; done
[ ${#errs[@]} = 0 ] || fail "${#errs[@]} checks failed"
on_disk xfs "$dev" "$ma" "$ref" f
files=plain
[ -e "$fi_dir" ] && files="plain fallback created create"
# shellcheck disable=SC2086
on_disk ext4 "$b" "$mb" "$refb" $files
