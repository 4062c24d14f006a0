#!/bin/bash
# timeout: 500
# Two levels of writeback: ext4 on a loop device (buffered, no direct I/O)
# over a file on XFS (scratch 2). The loop bdi's writeback writes into the
# file, whose pages the XFS disk's bdi writes back. A writer in a cgroup
# (memory and io) writes 32 MB into the ext4; on the series the flushers of
# both bdis change meanwhile (4, 1, 2) and both bdis have a flusher. After
# sync the ext4 is clean (e2fsck -fn), the XFS disk wrote the 32 MB, and
# after the XFS is shut down without flush and remounted and the file
# attached again, the ext4 is still clean and the data reads back. The
# loop device detached and removed leaves no flusher of its bdi (series).
# Removal under load: a second loop device, written raw and buffered, is
# detached while the writer goes on (the kernel tears it down at the last
# close): the writer ends, the device lets go, a sync started meanwhile
# returns, and another disk (scratch 3) is written back periodically
# meanwhile; its bdi leaves no flusher once removed (series).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_cgroup memory io
command -v losetup >/dev/null || skip "no losetup"
xdev=$(scratch 2) odev=$(scratch 3)
low=/mnt/loop-xfs up=/mnt/loop-ext4 cg=/sys/fs/cgroup grp=/sys/fs/cgroup/loop-writer
xbdi=$(bdi_of "$xdev") obdi=$(bdi_of "$odev")
ref=$(make_ref loop.ref 4096)
oref=$(make_ref loop-other.ref 4096)
loops=()

echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $grp
on_exit "rmdir $grp"
in_w() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$grp" "$@"; }

# flushers_of BDI: names of the bdi's flusher threads (every context)
flushers_of() { ps -e -o comm= | awk -v f="flush-$1" '$1 == f || index($1, f "/") == 1'; }
has_flusher() { [ -n "$(flushers_of "$1")" ]; }
no_flushers() { [ -z "$(flushers_of "$1")" ]; }
ended() { ! kill -0 "$1" 2>/dev/null; }
# synced SECS WHEN: a sync returns within SECS (polled: it may block)
synced() {
	local s
	sync & s=$!
	wait_until "$1" ended $s || fail "$2: sync did not return within $1 s"
	wait $s
}
# attach FILE: a loop device over FILE, buffered; prints its name
attach() { losetup -f --show --direct-io=off "$1"; }
detached() { [ ! -e "/sys/block/${1#/dev/}/loop/backing_file" ]; }
# remove LOOP: delete the detached device (LOOP_CTL_REMOVE), its bdi with it
rm_loop() {
	python3 -c "import fcntl, os; fcntl.ioctl(os.open('/dev/loop-control', os.O_RDWR), 0x4C81, ${1#/dev/loop})" 2>/dev/null
}
remove() {
	wait_until 60 detached "$1" || fail "$2: $1 still attached 60 s after losetup -d"
	wait_until 10 rm_loop "$1" || fail "$2: LOOP_CTL_REMOVE of $1 failed"
	[ "$series" = 1 ] || return 0
	wait_until 30 no_flushers "$3" ||
		fail "$2: $(flushers_of "$3" | tr '\n' ' ')left 30 s after the removal of $1"
	say "$2: no flusher of $3 after the removal"
}

fresh_fs xfs "$xdev" $low
on_exit "umount $low"
detach_all() { local l; for l in "${loops[@]}"; do losetup -d "$l"; done; }
on_exit detach_all
truncate -s 256M $low/img
loop=$(attach $low/img) || fail "losetup"
loops+=("$loop")
lbdi=$(bdi_of "$loop")
fresh_fs ext4 "$loop" $up
on_exit "umount $up"
lknob=/sys/class/bdi/$lbdi/flushers xknob=/sys/class/bdi/$xbdi/flushers
series=0
if [ -e "$lknob" ] && [ -e "$xknob" ]; then
	series=1
	on_exit "echo 0 > $lknob"
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $lknob or $xknob is missing"
fi
sync
# periodic writeback every second of what is 2 s old: both levels write
# while the writer runs
echo 200 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs

say "32 MB into ext4 on $loop ($lbdi) over XFS on $xdev ($xbdi)"
x0=$(written_kb "$xdev")
(
	echo $BASHPID > $grp/cgroup.procs || exit 1
	for i in 0 1 2 3 4 5 6 7; do
		dd if="$ref" of="$up/f$i" bs=1M status=none || exit 1
		sleep 1
	done
) &
writer=$!
on_exit "kill $writer"
if [ $series = 1 ]; then
	for n in 4 1 2; do
		sleep 1
		if ended $writer; then
			[ $n != 4 ] || fail "the writer ended before flushers $n: the test shows nothing"
			say "the writer ended before flushers $n"
		fi
		echo $n > "$lknob" || fail "flushers $n refused on $lbdi"
		echo $n > "$xknob" || fail "flushers $n refused on $xbdi"
		[ "$(cat "$lknob") $(cat "$xknob")" = "$n $n" ] ||
			fail "flushers read $(cat "$lknob") and $(cat "$xknob") after $n"
		say "flushers $n on $lbdi and $xbdi under the writer"
	done
fi
wait_until 120 ended $writer || fail "the writer still runs after 120 s"
wait $writer || fail "the writer failed"
if [ $series = 1 ]; then
	both() { has_flusher "$lbdi" && has_flusher "$xbdi"; }
	wait_until 30 both ||
		fail "flushers: '$(flushers_of "$lbdi" | tr '\n' ' ')' of $lbdi, '$(flushers_of "$xbdi" | tr '\n' ' ')' of $xbdi"
	say "flushers: $(flushers_of "$lbdi" | tr '\n' ' ')$(flushers_of "$xbdi" | tr '\n' ' ')"
fi
synced 60 "after the writer"
umount $up || fail "umount of the ext4"
fsck_fs ext4 "$loop" || fail "ext4 on $loop not clean after sync and umount"
losetup -d "$loop" || fail "losetup -d $loop"
remove "$loop" "detach" "$lbdi"
# what the loop device wrote into the file, XFS writes to its disk
synced 60 "after the detach"
wrote=$(( $(written_kb "$xdev") - x0 ))
say "$xdev wrote $wrote kB"
[ "$wrote" -ge 32768 ] || fail "$xdev wrote only $wrote kB of the 32 MB"
shutdown_noflush $low
umount $low || fail "umount of the XFS after the shutdown"
mount_dev xfs "$xdev" $low || fail "remount of the XFS"
loop=$(attach $low/img) || fail "losetup again"
loops+=("$loop")
fsck_fs ext4 "$loop" || fail "ext4 not clean after the XFS's shutdown and remount"
mount_dev ext4 "$loop" $up || fail "mount of the ext4 again"
drop_caches
for i in 0 1 2 3 4 5 6 7; do
	cmp "$ref" "$up/f$i" || fail "f$i differs after the XFS's shutdown and remount"
done
say "32 MB read back through both levels"
umount $up || fail "umount of the ext4 again"
losetup -d "$loop"

say "removal under load: a raw loop device detached while written"
truncate -s 128M $low/raw
loop=$(attach $low/raw) || fail "losetup of the raw file"
loops+=("$loop")
rbdi=$(bdi_of "$loop")
# 32 MB at up to 10 MB/s through one open of the device, buffered
(
	echo $BASHPID > $grp/cgroup.procs || exit 1
	for _ in $(seq 32); do head -c 1M /dev/zero; sleep 0.1; done |
		dd of="$loop" bs=1M iflag=fullblock status=none
) &
rw=$!
on_exit "kill $rw"
dirty() { [ "$(bdi_dirty_kb "$rbdi")" -gt 1024 ]; }
wait_until 30 dirty || fail "nothing dirty on $rbdi 30 s after the raw writer started"
ended $rw && fail "the raw writer ended before the detach: the test shows nothing"
timeout 30 losetup -d "$loop" || fail "losetup -d $loop under the writer"
t0=$(date +%s)
if detached "$loop"; then say "$loop detached at once"; else say "$loop detaches at its last close"; fi
# meanwhile another disk is written back (periodic writeback); held open,
# or the last close would write it back
exec 4<"$odev"
on_exit "exec 4<&-"
o0=$(written_kb "$odev")
in_w dd if="$oref" of="$odev" bs=1M status=none || fail "write to $odev"
wait_until 10 bdi_clean "$obdi" ||
	fail "$obdi: $(bdi_dirty_kb "$obdi") kB still dirty 10 s after its write, $loop detached under a writer"
wrote=$(( $(written_kb "$odev") - o0 ))
[ "$wrote" -ge 4096 ] || fail "$odev wrote only $wrote kB of 4 MB"
say "$odev written back $(( $(date +%s) - t0 ))s after the detach"
exec 4<&-
ended $rw && say "the raw writer ended before the sync"
sync & s=$!
wait_until 120 ended $rw || fail "the raw writer still runs 2 minutes after the detach"
wait $rw || say "the raw writer ended with an error"
wait_until 60 ended $s || fail "a sync started beside the detached device did not return within 60 s"
wait $s
say "the writer and a sync ended $(( $(date +%s) - t0 ))s after the detach"
remove "$loop" "detach under load" "$rbdi"
synced 60 "at the end"
