#!/bin/bash
# timeout: 600
# Writeback of btrfs, whose bdi is its own (btrfs-N, a new one at each
# mount, linked from /sys/fs/btrfs/<fsid>/bdi), not one of the disks it
# spans: raid1 data and metadata on scratch disks 0 and 1, each behind
# dm-linear. btrfs has no shutdown ioctl in 6.12, so an unclean stop is
# dm-flakey dropping every write on both, unmount, linear again, mount
# with cold caches. The writer runs in a memory+io cgroup.
# - fsync: the fsynced file survives an unclean stop (log replay); the
#   other dirty file stays dirty and is lost (or the check proves nothing);
# - syncfs, sync: the file survives; both disks wrote it (raid1: a copy
#   each) before any unmount; a control file written after is lost;
# - periodic: 4 MB dirty, no sync: writeback starts within expire 2 s +
#   interval 1 s + 2 s of the write, and within 30 s the btrfs bdi is clean (but for btree pages, which wait for the
#   transaction commit) and both disks wrote the data; reason=periodic;
# - the series, with flushers 1 and 4 on the btrfs bdi: the flusher of the
#   context of each file is created and runs (flush-btrfs-N[/k]), none for
#   the disks' or dm devices' bdis (btrfs submits its own bios), and none
#   is left of a btrfs bdi after its unmount;
# - at the end a scrub finds no errors and btrfs check is clean.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_cgroup memory io
grep -qw btrfs /proc/filesystems || skip "no btrfs in the kernel"
command -v mkfs.btrfs >/dev/null || skip "no btrfs-progs"
command -v dmsetup >/dev/null || skip "no dmsetup"
dmsetup targets 2>/dev/null | grep -qw flakey || skip "no dm-flakey"
disks=("$(scratch 0)" "$(scratch 1)")
mnt=/mnt/btrfs cg=/sys/fs/cgroup/stock-btrfs
ref=$(make_ref btrfs.ref 4096)
bound=5		# expire 2 s + interval 1 s + 2 s
META_KB=1024	# btree pages stay dirty until the transaction commits

if [ -e "$FLUSHER_THREADS" ]; then
	rounds="1 4"
else
	[ "${SERIES:-0}" = 1 ] && fail "the series' $FLUSHER_THREADS is missing"
	rounds=stock
fi

echo "+memory +io" > /sys/fs/cgroup/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg
on_exit "rmdir $cg"
# as_writer CMD...: run CMD in the writer's cgroup
as_writer() { (echo $BASHPID > $cg/cgroup.procs || exit 1; exec "$@") || fail "writer: $*"; }

devs=()
for i in 0 1; do
	d=${disks[$i]}
	echo "0 $(blockdev --getsz "$d") linear $d 0" | dmsetup create btrfs$i || fail "dmsetup create"
	on_exit "dmsetup remove btrfs$i; rm -f /dev/mapper/btrfs$i"
	dmsetup mknodes btrfs$i		# no udev: /dev/mapper for btrfs check's scan
	devs+=("/dev/$(dmsetup info -c --noheadings -o blkdevname btrfs$i)")
done
on_exit "btrfs device scan --forget"
on_exit "umount $mnt"
on_exit "dmsetup resume btrfs0; dmsetup resume btrfs1"

# table NAME linear|drop: the dm device NAME maps its disk, or drops every
# write to it (dm-flakey always down); reads work
table() {
	local d=${disks[${1#btrfs}]} t rc
	t="0 $(blockdev --getsz "$d") linear $d 0"
	[ "$2" = drop ] && t="0 $(blockdev --getsz "$d") flakey $d 0 0 180 1 drop_writes"
	# no lockfs: a freeze would commit the transaction
	dmsetup suspend --nolockfs "$1" && dmsetup load "$1" --table "$t"
	rc=$?
	dmsetup resume "$1" || fail "dmsetup resume $1"
	[ $rc = 0 ] || fail "$1: cannot switch to $2"
}

# mount_fs: mount, find the fs's bdi, give it the round's flushers
mount_fs() {
	local f err
	mkdir -p $mnt
	mount -t btrfs -o "device=${devs[0]},device=${devs[1]}" "${devs[0]}" $mnt || fail "mount btrfs"
	if [ -z "${fsdir:-}" ]; then
		for f in /sys/fs/btrfs/*/devices/"${devs[0]#/dev/}"; do fsdir=${f%/devices/*}; done
	fi
	[ -L "$fsdir/bdi" ] || fail "no bdi link in /sys/fs/btrfs for ${devs[0]}"
	bdi=$(basename "$(readlink "$fsdir/bdi")")
	[ -d "/sys/class/bdi/$bdi" ] || fail "btrfs's bdi $bdi is not in /sys/class/bdi"
	keep_dirty "$bdi"
	has=1
	[ "$nr" = stock ] && return
	knob=/sys/class/bdi/$bdi/flushers
	[ -e "$knob" ] || fail "no $knob"
	# what the kernel does with the number: said, and used
	err=$( { echo "$nr" > "$knob"; } 2>&1) || say "$bdi: writing $nr to flushers failed: $err"
	has=$(cat "$knob")
	[ "$has" = "$nr" ] || say "$bdi: asked for $nr flushers, has $has"
}
# flushers_of BDI: pids of the flushers of every context of BDI (a comm
# holds 15 characters: flush-btrfs-12/3 is flush-btrfs-12/)
flushers_of() { ps -e -o pid=,comm= | awk -v n="flush-$1" '$2 == n || index($2, n "/") == 1 {print $1}'; }
no_flushers() { [ -z "$(flushers_of "$1")" ]; }
bdi_gone() { [ ! -e "/sys/class/bdi/$1" ]; }
# umount_fs: unmount; the bdi goes, and on the series its flushers
umount_fs() {
	umount $mnt || fail "umount"
	wait_until 10 bdi_gone "$bdi" || fail "bdi $bdi still there after umount"
	[ "$nr" = stock ] && return
	wait_until 30 no_flushers "$bdi" ||
		fail "$tag: flushers of $bdi left 30 s after umount: $(flushers_of "$bdi" | tr '\n' ' ')"
}
# crash: stop btrfs uncleanly (no write reaches the disks from now on),
# unmount, put the disks back, mount again with cold caches
crash() {
	table btrfs0 drop; table btrfs1 drop
	umount_fs
	table btrfs0 linear; table btrfs1 linear
	echo 3 > /proc/sys/vm/drop_caches
	mount_fs
}
# mark / both_wrote KB / wrote: what each disk wrote since mark
mark() { wa=$(written_kb "${disks[0]}") wb=$(written_kb "${disks[1]}"); }
both_wrote() { [ $(($(written_kb "${disks[0]}") - wa)) -ge "$1" ] && [ $(($(written_kb "${disks[1]}") - wb)) -ge "$1" ]; }
wrote() { echo "$(($(written_kb "${disks[0]}") - wa)) and $(($(written_kb "${disks[1]}") - wb)) kB"; }
# lost FILE: FILE (not on disk at the stop) is not the reference
lost() { ! cmp -s "$ref" "$1" || fail "$tag: $1 survived the unclean stop: the check cannot fail"; }
settled() { [ "$(bdi_dirty_kb "$bdi")" -le $META_KB ] && both_wrote 4096; }

quiet_writeback
mkfs.btrfs -q -f -K -d raid1 -m raid1 "${devs[@]}" >/dev/null || fail "mkfs.btrfs"
for nr in $rounds; do
	tag="flushers $nr"
	[ "$nr" = stock ] && tag=stock
	mount_fs
	say "$tag: btrfs (dev $(mountpoint -d $mnt)) has bdi $bdi, $has flusher(s)"
	d=$mnt/r$nr
	as_writer mkdir "$d"
	sync

	# fsync
	as_writer cp "$ref" "$d/other"
	mark
	as_writer dd if="$ref" of="$d/fsynced" bs=1M conv=fsync status=none
	both_wrote 4096 || fail "$tag: fsync: the disks wrote only $(wrote)"
	dirty=$(bdi_dirty_kb "$bdi")
	say "$tag: fsync: disks wrote $(wrote), $dirty kB left dirty on $bdi"
	[ "$dirty" -ge 2048 ] || fail "$tag: fsync wrote the other file too ($dirty kB dirty on $bdi)"
	crash
	cmp "$ref" "$d/fsynced" || fail "$tag: fsynced file differs after an unclean stop"
	lost "$d/other"

	# syncfs, then sync
	for how in syncfs sync; do
		as_writer cp "$ref" "$d/$how"
		mark
		if [ $how = syncfs ]; then sync -f $mnt || fail "syncfs"; else sync; fi
		both_wrote 4096 || fail "$tag: $how: the disks wrote only $(wrote)"
		say "$tag: $how: disks wrote $(wrote), $(bdi_dirty_kb "$bdi") kB dirty on $bdi"
		as_writer cp "$ref" "$d/$how-control"
		crash
		cmp "$ref" "$d/$how" || fail "$tag: $how: file differs after an unclean stop"
		lost "$d/$how-control"
	done

	# periodic writeback of $has files (one a context), 4 MB in all
	# (a new interval wakes the flushers: before the trace)
	echo 200 > /proc/sys/vm/dirty_expire_centisecs
	echo 100 > /proc/sys/vm/dirty_writeback_centisecs
	if [ "$nr" = stock ]; then
		sync
		trace_on writeback:writeback_start
	else
		idle_all_flushers
		trace_on writeback:writeback_start writeback:writeback_flusher_create
	fi
	mark
	start=$(uptime_now)
	for i in $(seq 0 $((has - 1))); do
		as_writer dd if="$ref" of="$d/p$i" bs=$((4096 / has))k skip="$i" count=1 status=none
	done
	written=$(uptime_now)
	dirty=$(bdi_dirty_kb "$bdi")
	# (under a slow guest periodic writeback may start during the write)
	[ "$dirty" -ge 2048 ] || [ -n "$(traced_after "$start" "bdi $bdi: .*reason=periodic")" ] ||
		fail "$tag: only $dirty kB dirty on $bdi after the write, no periodic writeback: the test shows nothing"
	wait_until 30 settled ||
		fail "$tag: 30 s after the write $(bdi_dirty_kb "$bdi") kB dirty on $bdi, the disks wrote $(wrote)"
	secs=$(awk -v a="$written" -v b="$(uptime_now)" 'BEGIN {printf "%.1f", b - a}')
	# when it started, from the end of the write (negative: before)
	began=$(traced_after "$start" "bdi $bdi: .*reason=periodic")
	[ -n "$began" ] && began=$(awk -v a="$start" -v b="$written" -v d="$began" 'BEGIN {printf "%.1f", a + d - b}')
	say "$tag: periodic: started ${began:-never}s after the write, $bdi clean after ${secs}s, disks wrote $(wrote)"
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo 360000 > /proc/sys/vm/dirty_expire_centisecs
	[ -n "$began" ] || fail "$tag: no periodic writeback traced on $bdi"
	within $bound "$began" || fail "$tag: periodic writeback started ${began}s after the write, bound ${bound}s"
	! trace_text | grep -q "bdi $bdi: .*reason=background" ||
		fail "$tag: background writeback ran on $bdi: the test did not isolate periodic writeback"

	if [ "$nr" != stock ]; then
		for i in $(seq 0 $((has - 1))); do
			ino=$(stat -c %i "$d/p$i")
			k=$((ino % has))
			name=$(ctx_name "$bdi" $k)
			trace_text | grep -q "writeback_flusher_create: bdi $bdi: ctx=$k " ||
				fail "$tag: no flusher created for context $k of $bdi (p$i, inode $ino)"
			[ -n "$(threads "$name")$(threads "${name:0:15}")" ] ||
				fail "$tag: no $name for p$i (inode $ino): $(ps -e -o comm= | grep '^flush-' | tr '\n' ' ')"
		done
		for dev in "${disks[@]}" "${devs[@]}"; do
			b=$(bdi_of "$dev")
			! trace_text | grep -q "writeback_flusher_create: bdi $b: " ||
				fail "$tag: a flusher was created for $dev ($b) by btrfs's writeback"
			no_flushers "$b" || fail "$tag: $dev ($b) has flushers: $(flushers_of "$b" | tr '\n' ' ')"
		done
		say "$tag: flushers: $(ps -e -o comm= | grep "^flush-$bdi" | tr '\n' ' ')"
	fi
	umount_fs
done

nr=stock tag=end
mount_fs
btrfs scrub start -B $mnt > /tmp/scrub.log 2>&1
rc=$?
if [ $rc != 0 ] || ! grep -q 'no errors found' /tmp/scrub.log; then
	cat /tmp/scrub.log
	fail "scrub: exit $rc"
fi
umount_fs
# on the disks themselves (linear maps them whole): with the dm devices
# there, btrfs check's scan finds the disks too and cannot open them
for i in 0 1; do dmsetup remove btrfs$i && rm -f /dev/mapper/btrfs$i || fail "dmsetup remove btrfs$i"; done
btrfs device scan --forget
btrfs check --readonly "${disks[0]}" > /tmp/check.log 2>&1 || { tail -5 /tmp/check.log; fail "btrfs check"; }
