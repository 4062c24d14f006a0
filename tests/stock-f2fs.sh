#!/bin/bash
# timeout: 400
# Writeback of f2fs (on scratch disk 2, whose bdi it uses), with the writer
# in a memory+io cgroup. f2fs takes the shutdown ioctl, so each check
# stops it dead (nothing more written), mounts it again with cold caches
# and reads back (on_disk):
# - fsync: the fsynced file survives (roll-forward recovery); the other
#   dirty file stays dirty and is lost (or the check proves nothing);
# - syncfs, sync: the file survives and the disk wrote it; a control file
#   written after is lost;
# - periodic: 4 MB dirty, no sync: writeback starts within expire 2 s +
#   interval 1 s + 2 s of the write and within 30 s
#   the bdi is clean (but for node and meta pages, which wait for the
#   checkpoint) and the disk wrote the data; reason=periodic;
# - the series, with flushers 1 and 4: the flusher of the context of each
#   file is created and runs (flush-<bdi>[/k]); after the unmount the
#   disk's flushers all exit once idle (0.2 s here);
# - at the end fsck.f2fs finds the filesystem clean.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_cgroup memory io
grep -qw f2fs /proc/filesystems || skip "no f2fs in the kernel"
command -v mkfs.f2fs >/dev/null || skip "no f2fs-tools"
dev=$(scratch 2) mnt=/mnt/f2fs cg=/sys/fs/cgroup/stock-f2fs
bdi=$(bdi_of "$dev")
ref=$(make_ref f2fs.ref 4096)
bound=5		# expire 2 s + interval 1 s + 2 s
META_KB=1024	# node and meta pages stay dirty until the checkpoint

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
# flushers_of BDI: pids of the flushers of every context of BDI
flushers_of() { ps -e -o pid=,comm= | awk -v n="flush-$1" '$2 == n || index($2, n "/") == 1 {print $1}'; }
no_flushers() { [ -z "$(flushers_of "$1")" ]; }
mark() { w0=$(written_kb "$dev"); }
wrote() { echo $(($(written_kb "$dev") - w0)); }
# lost FILE: FILE (not on disk at the shutdown) is not the reference
lost() { ! cmp -s "$ref" "$1" || fail "$tag: $1 survived the shutdown: the check cannot fail"; }
settled() { [ "$(bdi_dirty_kb "$bdi")" -le $META_KB ] && [ "$(wrote)" -ge 4096 ]; }

quiet_writeback
keep_dirty "$bdi"
mkfs.f2fs -q -f -t 0 "$dev" >/dev/null || fail "mkfs.f2fs"
on_exit "umount $mnt"
for nr in $rounds; do
	tag="flushers $nr" has=1
	[ "$nr" = stock ] && tag=stock
	mount_dev f2fs "$dev" $mnt || fail "mount f2fs"
	if [ "$nr" != stock ]; then
		knob=/sys/class/bdi/$bdi/flushers
		[ -e "$knob" ] || fail "no $knob"
		# what the kernel does with the number: said, and used
		err=$( { echo "$nr" > "$knob"; } 2>&1) || say "$bdi: writing $nr to flushers failed: $err"
		has=$(cat "$knob")
		[ "$has" = "$nr" ] || say "$bdi: asked for $nr flushers, has $has"
	fi
	say "$tag: f2fs on $dev ($bdi), $has flusher(s)"
	d=$mnt/r$nr
	as_writer mkdir "$d"
	sync

	# fsync
	as_writer cp "$ref" "$d/other"
	mark
	as_writer dd if="$ref" of="$d/fsynced" bs=1M conv=fsync status=none
	[ "$(wrote)" -ge 4096 ] || fail "$tag: fsync: the disk wrote only $(wrote) kB"
	dirty=$(bdi_dirty_kb "$bdi")
	say "$tag: fsync: disk wrote $(wrote) kB, $dirty kB left dirty on $bdi"
	[ "$dirty" -ge 2048 ] || fail "$tag: fsync wrote the other file too ($dirty kB dirty on $bdi)"
	on_disk f2fs "$dev" $mnt "$ref" "r$nr/fsynced"
	lost "$d/other"

	# syncfs, then sync
	for how in syncfs sync; do
		as_writer cp "$ref" "$d/$how"
		mark
		if [ $how = syncfs ]; then sync -f $mnt || fail "syncfs"; else sync; fi
		[ "$(wrote)" -ge 4096 ] || fail "$tag: $how: the disk wrote only $(wrote) kB"
		say "$tag: $how: disk wrote $(wrote) kB, $(bdi_dirty_kb "$bdi") kB dirty on $bdi"
		as_writer cp "$ref" "$d/$how-control"
		on_disk f2fs "$dev" $mnt "$ref" "r$nr/$how"
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
		fail "$tag: 30 s after the write $(bdi_dirty_kb "$bdi") kB dirty on $bdi, the disk wrote $(wrote) kB"
	secs=$(awk -v a="$written" -v b="$(uptime_now)" 'BEGIN {printf "%.1f", b - a}')
	# when it started, from the end of the write (negative: before)
	began=$(traced_after "$start" "bdi $bdi: .*reason=periodic")
	[ -n "$began" ] && began=$(awk -v a="$start" -v b="$written" -v d="$began" 'BEGIN {printf "%.1f", a + d - b}')
	say "$tag: periodic: started ${began:-never}s after the write, $bdi clean after ${secs}s, disk wrote $(wrote) kB"
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
			[ -n "$(threads "$name")" ] ||
				fail "$tag: no $name for p$i (inode $ino): $(flushers_of "$bdi" | tr '\n' ' ')"
		done
		say "$tag: flushers: $(ps -e -o comm= | grep "^flush-$bdi" | tr '\n' ' ')"
	fi
	umount $mnt || fail "umount"
	if [ "$nr" != stock ]; then
		# the bdi stays with the disk: its flushers go once idle
		old=$(cat "$FLUSHER_THREADS")
		echo 20 > "$FLUSHER_THREADS"
		wait_until 30 no_flushers "$bdi" ||
			fail "$tag: flushers of $bdi left 30 s after umount: $(flushers_of "$bdi" | tr '\n' ' ')"
		echo "$old" > "$FLUSHER_THREADS"
	fi
done

fsck.f2fs --dry-run "$dev" > /tmp/fsck.log 2>&1
rc=$?
if [ $rc != 0 ] || grep -q '\[Fail\]' /tmp/fsck.log; then
	tail -20 /tmp/fsck.log
	fail "fsck.f2fs: exit $rc"
fi
release_bdi "$bdi"
