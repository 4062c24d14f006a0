# Helpers for guest tests (sourced). Tests run as root in the guest with
# four scratch virtio disks, /tmp on tmpfs and debugfs/tracefs mounted.
set -u
FSTYPES=${FSTYPES:-"ext4 xfs"}
TRACE=/sys/kernel/tracing

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
say() { echo "-- $*"; }

# scratch N: device node of scratch disk N (0-based)
scratch() { local l=(a b c d e f g h i j k l); echo "/dev/vd${l[$1]}"; }

# blkname DEV: the whole disk's name in /sys/class/block (vda1 -> vda)
blkname() {
	local n
	n=$(basename "$(readlink -f "$1")")
	[ -e "/sys/class/block/$n/partition" ] &&
		n=$(basename "$(dirname "$(readlink -f "/sys/class/block/$n")")")
	echo "$n"
}
# bdi_of DEV: the bdi name of a block device, maj:min of the whole disk
bdi_of() { cat "/sys/class/block/$(blkname "$1")/dev"; }
# bdi_stat BDI FIELD: a number from debugfs bdi/BDI/stats
bdi_stat() { awk -v f="$2:" '$1 == f {print $2; exit}' "/sys/kernel/debug/bdi/$1/stats"; }
# written_kb DEV: kB the disk has written since boot
written_kb() { awk '{printf "%d\n", $7 / 2}' "/sys/class/block/$(blkname "$1")/stat"; }
# bdi_clean BDI: no dirty or writeback pages on the bdi, give or take the
# per-cpu counters' batch error (the stats sum them approximately)
SLACK_KB=256
bdi_dirty_kb() { echo $(( $(bdi_stat "$1" BdiReclaimable) + $(bdi_stat "$1" BdiWriteback) )); }
bdi_clean() { [ "$(bdi_dirty_kb "$1")" -le $SLACK_KB ]; }

mkfs_dev() {		# mkfs_dev FS DEV
	case $1 in
	ext4) mkfs.ext4 -q -F "$2" ;;
	xfs) mkfs.xfs -q -f "$2" ;;
	*) fail "unknown fs $1" ;;
	esac
}
mount_dev() { mkdir -p "$3" && mount -t "$1" "$2" "$3"; }	# FS DEV MNT
# fresh_fs FS DEV MNT: mkfs and mount
fresh_fs() { mkfs_dev "$1" "$2" >/dev/null && mount_dev "$1" "$2" "$3" || fail "mkfs/mount $1 on $2"; }

# group_fs DEV MNT: ext4 without flex_bg (a writeback context per block
# group), mounted
group_fs() { mkfs.ext4 -q -F -O ^flex_bg "$1" && mount_dev ext4 "$1" "$2" || fail "mkfs/mount ext4 on $1"; }

# shutdown_noflush MNT: stop the fs dead, without writing anything more
# (xfs_io's godown; ext4 takes the same ioctl). What was not on disk is lost.
shutdown_noflush() { xfs_io -x -c shutdown "$1" || fail "shutdown of $1"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# on_disk FS DEV MNT REF FILE...: stop the fs at MNT dead, remount it with
# caches dropped, and compare each FILE (under MNT) with REF
on_disk() {
	local fs=$1 dev=$2 mnt=$3 ref=$4 f
	shift 4
	shutdown_noflush "$mnt"
	umount "$mnt"
	mount_dev "$fs" "$dev" "$mnt" || fail "$fs: remount"
	drop_caches
	for f; do cmp "$ref" "$mnt/$f" || fail "$fs: $f differs after shutdown and remount"; done
}

# make_ref NAME KB: random reference data in /tmp
make_ref() { head -c "$(($2 * 1024))" /dev/urandom > "/tmp/$1"; echo "/tmp/$1"; }

# wait_until SECS CMD...: poll CMD every 0.2s; false on timeout
wait_until() {
	local end=$(( $(date +%s) + $1 )); shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# quiet_writeback: nothing but explicit requests writes back: no periodic
# flushing, thresholds far above what tests dirty.
quiet_writeback() {
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo 360000 > /proc/sys/vm/dirty_expire_centisecs
	echo $((512 << 20)) > /proc/sys/vm/dirty_background_bytes
	echo $((1024 << 20)) > /proc/sys/vm/dirty_bytes
}
# keep_dirty BDI: give the bdi a fixed share of the dirty limit so that
# its small writeout history does not start background writeback (NOTES).
keep_dirty() { echo 40 > "/sys/class/bdi/$1/min_ratio"; }
release_bdi() { echo 0 > "/sys/class/bdi/$1/min_ratio"; }

# trace_on EVENT...: start a fresh trace of writeback events
trace_on() {
	echo 0 > $TRACE/tracing_on
	echo > $TRACE/trace
	echo > $TRACE/set_event
	local e
	for e in "$@"; do echo "$e" >> $TRACE/set_event || fail "no tracepoint $e"; done
	echo 1 > $TRACE/tracing_on
}
trace_text() { cat $TRACE/trace; }

# --- flusher threads (the series)
IDLE=/proc/sys/vm/flusher_idle_centisecs
# flusher_pid BDI: pid of the bdi's flusher from debugfs, or "none"
flusher_pid() { awk '$1 == "flusher:" {print $2}' "/sys/kernel/debug/bdi/$1/stats"; }
flusher_state() { awk '$1 == "flusher_state:" {print $2}' "/sys/kernel/debug/bdi/$1/stats"; }
# threads NAME: pids of the kernel threads whose comm is NAME
threads() { ps -e -o pid=,comm= | awk -v n="$1" '$2 == n {print $1}'; }
# is_kthread PID: a kernel thread (child of kthreadd, no memory map)
is_kthread() { [ "$(awk '{print $4}' "/proc/$1/stat")" = 2 ] && [ -z "$(cat "/proc/$1/maps")" ]; }
no_flusher() { [ -z "$(threads "flush-$1")" ] && [ "$(flusher_pid "$1")" = none ]; }
# idle_all_flushers: write everything back and let every flusher exit
# (but the one of the 9p share that takes the test logs)
idle_all_flushers() {
	local old
	old=$(cat $IDLE)
	sync
	echo 20 > $IDLE
	wait_until 30 eval '[ -z "$(ps -e -o comm= | grep "^flush-" | grep -v "^flush-9p-")" ]' ||
		fail "flushers still there: $(ps -e -o pid=,comm= | grep flush-)"
	echo "$old" > $IDLE
}

# --- writeback contexts (more than one flusher per bdi)
# ctx_stat BDI K FIELD: from debugfs "ctx K: flusher PID STATE b_dirty N ...":
# FIELD is pid, state or a list name
ctx_stat() {
	awk -v k="$2:" -v f="$3" '$1 == "ctx" && $2 == k {
		if (f == "pid") print $4; else if (f == "state") print $5
		else for (i = 6; i < NF; i += 2) if ($i == f) print $(i + 1) }' \
		"/sys/kernel/debug/bdi/$1/stats"
}
# ctx_name BDI K: the name of the flusher of context K
ctx_name() { if [ "$2" = 0 ]; then echo "flush-$1"; else echo "flush-$1/$2"; fi; }
# traced_ctx INO: the context writeback_dirty_inode_enqueue last gave inode INO
traced_ctx() { trace_text | grep -o " ino $1 dirtied .* ctx [0-9]*" | awk 'END {print $NF}'; }
