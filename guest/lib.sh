# Helpers for guest tests (sourced). Tests run as root in the guest with
# scratch virtio disks (serial scratchN), /tmp on tmpfs and debugfs/tracefs
# mounted. A test exits 0 (pass), 77 (skip, reason on its last line) or
# else (fail); what it changes it undoes with on_exit.
set -u
FSTYPES=${FSTYPES:-"ext4 xfs"}
TRACE=/sys/kernel/tracing

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
say() { echo "-- $*"; }

# on_exit CMD: run CMD (eval'd) when the test ends, however it ends; the
# last registered runs first. A timeout's SIGTERM runs them too.
_on_exit=()
on_exit() { _on_exit+=("$1"); }
_run_on_exit() {
	local i rc=$?
	# (quietly: what it restores may be gone with a removed device)
	for ((i = ${#_on_exit[@]} - 1; i >= 0; i--)); do eval "${_on_exit[$i]}" 2>/dev/null || true; done
	return $rc
}
trap _run_on_exit EXIT
trap 'exit 143' TERM INT

# restore FILE...: put back each FILE's value of now when the test ends
# (a bdi's "flushers" goes back to its default, 0)
restore() {
	local f
	for f; do
		[ -w "$f" ] || continue
		case $f:$(cat "$f") in
		*/flushers:*) on_exit "echo 0 > '$f'" ;;
		*/flusher_cpumask:* | */flusher_nice:*) on_exit "echo default > '$f'" ;;
		*/pm_test:*) on_exit "echo none > '$f'" ;;
		*_bytes:0) ;;	# the ratio is in force; restoring it zeroes this
		*) on_exit "echo '$(cat "$f")' > '$f'" ;;
		esac
	done
}

# --- what a test needs; each skips with its reason when it is missing
# missing WHY: a part of the series is not there: a skip on another kernel,
# a failure on one that has the series (SERIES=1, run-tests.sh --series)
missing() { [ "${SERIES:-0}" = 1 ] && fail "the series' $*"; skip "$*"; }
# require_file PATH...: the kernel has these files (features of the series)
require_file() {
	local f
	for f; do [ -e "$f" ] || missing "no $f"; done
}
# require_knob GLOB: some file matches GLOB, e.g. /sys/class/bdi/*/flushers
require_knob() { compgen -G "$1" >/dev/null || missing "no $1"; }
# require_scratch N: at least N scratch disks
require_scratch() {
	local b n=0
	for b in /sys/block/*/serial; do	# no newline at the end of these
		case $(cat "$b" 2>/dev/null) in scratch*) n=$((n + 1)) ;; esac
	done
	[ "$n" -ge "$1" ] || skip "needs $1 scratch disks, has $n"
}
# require_cgroup CTRL...: cgroup v2 controllers; io means cgroup writeback
require_cgroup() {
	local c
	for c; do
		grep -qw "$c" /sys/fs/cgroup/cgroup.controllers && continue
		[ "$c" = io ] && skip "no cgroup writeback (no io controller)"
		skip "no $c cgroup controller"
	done
}
# the series' parts
FLUSHER_THREADS=/proc/sys/vm/flusher_idle_centisecs
FLUSHER_FAULTS=/sys/kernel/debug/fail_flusher_create
FLUSHER_KNOBS='/sys/class/bdi/*/flushers'

# scratch N: device node of scratch disk N (0-based), found by its serial
scratch() {
	local b
	for b in /sys/block/*; do
		[ "$(cat "$b/serial" 2>/dev/null)" = "scratch$1" ] && { echo "/dev/${b##*/}"; return; }
	done
	fail "no scratch disk $1"
}

# Undo what tests commonly change: writeback sysctls, the bdis' knobs, the
# flusher fault injection, the PM test mode.
restore /proc/sys/vm/dirty_* /proc/sys/vm/laptop_mode $FLUSHER_THREADS \
	/sys/class/bdi/*/min_ratio /sys/class/bdi/*/flushers \
	$FLUSHER_FAULTS/probability $FLUSHER_FAULTS/delay_ms /sys/power/pm_test

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
# fsck_fs FS DEV: check the unmounted fs read-only; when it is not clean,
# print the end of the checker's report and return 1
fsck_fs() {
	local check
	case $1 in
	ext4) check=(e2fsck -fn) ;;
	xfs) check=(xfs_repair -n) ;;
	*) fail "unknown fs $1" ;;
	esac
	"${check[@]}" "$2" > /tmp/fsck.log 2>&1 || { tail -5 /tmp/fsck.log; return 1; }
}
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

# trace_on EVENT...: start a fresh trace of writeback events, in a trace
# instance of the test's own (TRACE), removed when the test ends
trace_on() {
	if [ "$TRACE" = /sys/kernel/tracing ]; then
		TRACE=/sys/kernel/tracing/instances/test-$$
		mkdir "$TRACE" || fail "cannot create trace instance $TRACE"
		on_exit "echo 0 > $TRACE/tracing_on; rmdir $TRACE"
	fi
	echo 0 > $TRACE/tracing_on
	echo > $TRACE/trace
	echo > $TRACE/set_event
	local e
	for e in "$@"; do echo "$e" >> $TRACE/set_event || fail "no tracepoint $e"; done
	echo 1 > $TRACE/tracing_on
}
trace_text() { cat $TRACE/trace; }
# uptime_now: seconds since boot, in the trace's clock
uptime_now() { awk '{print $1}' /proc/uptime; }
# traced_after T PATTERN: seconds from T (an uptime_now) to the first traced
# event since T that matches PATTERN (grep), or nothing
traced_after() {
	trace_text | grep -v '^#' | grep -- "$2" | awk -v t="$1" '{
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			s = substr($i, 1, length($i) - 1) + 0
			if (s >= t) { printf "%.1f\n", s - t; exit }
			next
		}}'
}
# within SECS X: X (seconds, a decimal) is not over SECS
within() { awk -v b="$1" -v x="$2" 'BEGIN {exit !(x != "" && x <= b)}'; }

# --- flusher threads (the series)
IDLE=/proc/sys/vm/flusher_idle_centisecs
# flusher_pid BDI: pid of the bdi's flusher from debugfs, or "none"
flusher_pid() { awk '$1 == "flusher:" {print $2}' "/sys/kernel/debug/bdi/$1/stats"; }
flusher_state() { awk '$1 == "flusher_state:" {print $2}' "/sys/kernel/debug/bdi/$1/stats"; }
# wb_states BDI: the state bits (hex) of each wb of the bdi, from wb_stats
wb_states() { awk '$1 == "state:" {print $2}' "/sys/kernel/debug/bdi/$1/wb_stats"; }
# no_start_all BDI: no wb of the bdi has a wakeup_flusher_threads() request
# pending (WB_start_all, bit 3)
no_start_all() { ! wb_states "$1" | grep -q '[89a-f]$'; }
# threads NAME: pids of the kernel threads whose comm is NAME
threads() { ps -e -o pid=,comm= | awk -v n="$1" '$2 == n {print $1}'; }
# is_kthread PID: a kernel thread (child of kthreadd, no memory map)
is_kthread() { [ "$(awk '{print $4}' "/proc/$1/stat")" = 2 ] && [ -z "$(cat "/proc/$1/maps")" ]; }
no_flusher() { [ -z "$(threads "flush-$1")" ] && [ "$(flusher_pid "$1")" = none ]; }
# wait_thread SECS NAME / wait_no_thread SECS NAME: until a kernel thread
# named NAME runs / none does; false on timeout
wait_thread() { wait_until "$1" eval "[ -n \"\$(threads '$2')\" ]"; }
wait_no_thread() { wait_until "$1" eval "[ -z \"\$(threads '$2')\" ]"; }
# --- where writeback threads run
WQ_DIR=/sys/devices/virtual/workqueue/writeback
cpus_of() { awk '$1 == "Cpus_allowed_list:" {print $2}' "/proc/$1/status" 2>/dev/null; }
nice_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $17}'; }
# mask_list HEXMASK: the CPU list of a mask, as Cpus_allowed_list shows it
mask_list() {
	local m=$((16#${1//,/})) i=0 start=-1 out=""
	while [ $m -gt 0 ] || [ $start -ge 0 ]; do
		if [ $((m & 1)) = 1 ]; then
			[ $start -ge 0 ] || start=$i
		elif [ $start -ge 0 ]; then
			[ $start = $((i - 1)) ] && out="$out,$start" || out="$out,$start-$((i - 1))"
			start=-1
		fi
		m=$((m >> 1)) i=$((i + 1))
	done
	echo "${out#,}"
}
# placed_as CPULIST NICE PID...: every PID that still runs has them
placed_as() {
	local want=$1 nice=$2 p; shift 2
	for p in "$@"; do
		[ -d "/proc/$p" ] || continue
		[ "$(cpus_of "$p")" = "$want" ] && [ "$(nice_of "$p")" = "$nice" ] || return 1
	done
}
# placement PID...: "pid comm cpus nice" of each, for failure messages
placement() {
	local p
	for p in "$@"; do echo "$p $(cat "/proc/$p/comm" 2>/dev/null) $(cpus_of "$p") $(nice_of "$p")"; done | tr '\n' ';'
}
# traced_pids: the pids of the tasks of the trace's events (comm-PID [CPU])
traced_pids() { trace_text | grep -v '^#' | awk '{t = $1; sub(/.*-/, "", t); print t}' | sort -un; }
# traced_cpus: the CPUs the trace's events came from
traced_cpus() { trace_text | grep -v '^#' | grep -o '\[[0-9]*\]' | tr -d '[]' | sed 's/^0*\(.\)/\1/' | sort -un; }

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
# check_ctx BDI MNT N NR GROUPFN: files MNT/d0/f .. d<N-1>/f are dirty; each
# one's traced context (writeback_dirty_inode_enqueue) is GROUPFN(ino) % NR,
# each context's debugfs b_dirty counts at least its files, and the files
# use two contexts or more. Sets CTX_USED to the number of contexts used.
check_ctx() {
	local bdi=$1 mnt=$2 n=$3 nr=$4 group=$5 i ino want got used=""
	local -A files=()
	for i in $(seq 0 $((n - 1))); do
		ino=$(stat -c %i "$mnt/d$i/f")
		want=$(( $($group "$ino") % nr )) got=$(traced_ctx "$ino")
		[ "$got" = "$want" ] || fail "inode $ino (d$i): context ${got:-none}, want $want"
		files[$want]=$(( ${files[$want]:-0} + 1 ))
	done
	for i in "${!files[@]}"; do
		got=$(ctx_stat "$bdi" "$i" b_dirty)
		[ "${got:-0}" -ge "${files[$i]}" ] ||
			fail "ctx $i: b_dirty ${got:-none}, but ${files[$i]} of the files are dirty on it"
		used="$used $i"
	done
	[ ${#files[@]} -ge 2 ] || fail "all $n files on one context:$used"
	CTX_USED=${#files[@]}
	say "files on contexts:$used"
}
