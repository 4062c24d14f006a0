#!/bin/bash
# timeout: 500
# FUSE: fuse2fs serving an ext4 image (256 MB) that lives on XFS (scratch
# 0), so two levels of writeback, and a bdi whose "device" is a process
# that can stop or go away. fuse2fs uses libfuse 2 here: no writeback_cache,
# write(2) goes to the daemon at once and the FUSE bdi's dirty pages come
# from shared mmap writes, which a python3 holder keeps (its close would
# write them back). The bdi is strictlimit with max_ratio 1%; a
# min_ratio of 1% keeps 4 MB dirty below its freerun ceiling. Writers run
# in cgroup fuse-writer (memory and io on).
# 1. fsync (write(2) and mmap data) and syncfs (mmap data: nothing dirty
#    after it, its writes answered within 30 s) reach the image: after
#    the unmount fuse2fs exits and debugfs reads the files from the image.
#    On the series, with flushers 1 and 4 on the FUSE bdi: the writeback
#    of syncfs is traced on its flusher, and none is left after unmount.
# 2. Daemon stopped (SIGSTOP) with 4 MB of the bdi written back but not
#    answered: an fsync of the file blocks. Meanwhile ext4 on scratch 1 is
#    written back: its sync -f returns within 30 s (on the series on its
#    own flusher) and its data is on disk after shutdown and remount.
#    SIGCONT: the fsync returns within 60 s, the data is in the image.
# 3. Abort (/sys/fs/fuse/connections/N/abort) with the daemon stopped, a
#    write(2) writer blocked and 4 MB of writeback in flight: the writer
#    fails and ends, the writeback ends (bdi clean), umount -l works, the
#    bdi and the connection go, and (series) no flusher of the bdi is left.
# At the end the XFS is shut down without flush and remounted: the images
# of 1 and 2 pass e2fsck -fn and hold the data (fuse2fs fsyncs the image
# on fsync and on exit). syncfs(2) of a FUSE mount does not wait for the
# daemon on 6.12 (FUSE_SYNCFS is for virtiofs only, and page writeback
# ends once fuse has copied the data to pages of its own), so fsync is
# the call that blocks on a stopped daemon.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_cgroup memory io
grep -qw fuse /proc/filesystems || skip "no FUSE in the kernel"
[ -c /dev/fuse ] || fail "FUSE is in the kernel, but there is no /dev/fuse (devtmpfs makes it)"
for t in fuse2fs debugfs python3; do command -v $t >/dev/null || skip "no $t"; done
series=0
if compgen -G "$FLUSHER_KNOBS" >/dev/null; then
	series=1
elif [ "${SERIES:-0}" = 1 ]; then
	missing "no $FLUSHER_KNOBS"
fi
cg=/sys/fs/cgroup grp=/sys/fs/cgroup/fuse-writer conns=/sys/fs/fuse/connections
base=/mnt/fusebase fm=/mnt/fuse om=/mnt/fuseother
xdev=$(scratch 0) odev=$(scratch 1)
obdi=$(bdi_of "$odev")
refw=$(make_ref fuse-w.ref 2048)	# written with write(2)
refm=$(make_ref fuse-m.ref 4096)	# written through a shared mapping
refo=$(make_ref fuse-o.ref 4096)	# the other disk's
fpid="" fbdi="" fconn="" wpid=""
declare -A hpid=() hfd=()
final=()	# "IMAGE FILE REF" to check after the XFS shutdown

mounted() { awk -v m="$1" '$2 == m {f = 1} END {exit !f}' /proc/mounts; }
ended() { ! kill -0 "$1" 2>/dev/null; }
served_or_ended() { mounted $fm || ended "$fpid"; }
stopped() { [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = T ]; }
enter_w() { echo $BASHPID > $grp/cgroup.procs || fail "cannot enter $grp"; }
# flushers_of BDI: names of the bdi's flusher threads (every context)
flushers_of() { ps -e -o comm= | awk -v f="flush-$1" '$1 == f || index($1, f "/") == 1'; }
no_flushers() { [ -z "$(flushers_of "$1")" ]; }
# on_flusher BDI: the trace has a writeback_start of BDI run by its flusher
on_flusher() { trace_text | grep -Eq "^ *flush-$1(/[0-9]+)?-[0-9]+ .*writeback_start: bdi $1: "; }
# in_image IMG FILE REF: FILE of the unmounted ext4 image IMG holds REF
in_image() { debugfs -R "cat /$2" "$1" 2>/dev/null | cmp -s - "$3"; }

mkdir -p $fm $om
if ! mounted $conns; then
	mount -t fusectl none $conns || fail "cannot mount fusectl on $conns"
	on_exit "umount $conns"
fi
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $grp
on_exit "rmdir $grp"
fresh_fs xfs "$xdev" $base
on_exit "umount $base"
fresh_fs ext4 "$odev" $om
on_exit "umount $om"
quiet_writeback

# The holder: hold.py FILE REF maps FILE shared and fills it with REF
# (dirty pages), then runs the commands it reads (fill, fsync, syncfs,
# quit), answering "CMD ERRNO" each; at quit it unmaps and closes FILE.
cat > /tmp/hold.py <<'EOF'
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
data = open(sys.argv[2], 'rb').read()
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, len(data))
m = mmap.mmap(fd, len(data))
m[:] = data
print('dirty', flush=True)
for line in sys.stdin:
    cmd, err = line.strip(), 0
    if cmd == 'quit':
        break
    if cmd == 'fill':
        m[:] = data
    elif cmd == 'fsync':
        try:
            os.fsync(fd)
        except OSError as e:
            err = e.errno
    elif cmd == 'syncfs' and libc.syncfs(fd) != 0:
        err = ctypes.get_errno()
    print(cmd, err, flush=True)
m.close()
os.close(fd)
print('closed', flush=True)
EOF
# hold NAME FILE REF: holder NAME (in the cgroup) on FILE, its pages dirty;
# it reads its commands from a fifo, its answers go to /tmp/hold-NAME.out
hold() {
	local fifo=/tmp/hold-$1.in fd
	rm -f "$fifo" "/tmp/hold-$1.out"
	mkfifo "$fifo" || fail "mkfifo"
	(enter_w; exec python3 /tmp/hold.py "$2" "$3") < "$fifo" > "/tmp/hold-$1.out" 2>&1 &
	hpid[$1]=$!
	exec {fd}> "$fifo"
	hfd[$1]=$fd
	wait_until 60 said "$1" dirty || fail "holder $1: no mapping of $2: $(tail -1 "/tmp/hold-$1.out")"
}
said() { grep -q "^$2" "/tmp/hold-$1.out"; }
tell() { ( trap '' PIPE; echo "$2" >&"${hfd[$1]}" ) 2>/dev/null || fail "holder $1 is gone: $(tail -1 "/tmp/hold-$1.out")"; }
# answer NAME SECS CMD: holder NAME answers CMD within SECS, without error
answer() {
	wait_until "$2" said "$1" "$3 " || fail "holder $1: no answer to $3 within $2 s"
	said "$1" "$3 0" || fail "holder $1: $3 failed: $(grep "^$3 " "/tmp/hold-$1.out")"
}
# release NAME: holder NAME unmaps, closes and ends within 30 s; its status
release() {
	local fd=${hfd[$1]} pid=${hpid[$1]} rc
	tell "$1" quit
	exec {fd}>&-
	unset "hfd[$1]"
	wait_until 30 ended "$pid" || fail "holder $1 did not end within 30 s"
	wait "$pid"; rc=$?
	unset "hpid[$1]"
	return $rc
}
# dirty_kb WHAT: the FUSE bdi holds the 4 MB of a holder dirty
dirty_kb() {
	local kb
	kb=$(bdi_stat "$fbdi" BdiReclaimable)
	[ "$kb" -ge 3072 ] || fail "$1: only $kb kB dirty on $fbdi: it wrote back by itself, the test shows nothing"
}

# fuse_up NAME: a fresh image NAME.img on the XFS served by fuse2fs (our
# child, in the foreground) at $fm: sets img, fpid, fbdi, fconn
fuse_up() {
	img=$base/$1.img
	truncate -s 256M "$img" || fail "truncate $img"
	mkfs.ext4 -q -F "$img" || fail "mkfs.ext4 $img"
	fuse2fs "$img" $fm -f >> /tmp/fuse2fs.log 2>&1 &
	fpid=$!
	wait_until 30 served_or_ended
	mounted $fm || fail "fuse2fs did not mount $img: $(tail -1 /tmp/fuse2fs.log)"
	# the device number of the mount (as mountpoint -d shows it) names the
	# bdi, its minor the connection
	fbdi=$(awk -v m=$fm '$5 == m {print $3}' /proc/self/mountinfo)
	fconn=$conns/${fbdi#*:}
	[ -d "/sys/class/bdi/${fbdi:-none}" ] || fail "no bdi '$fbdi' for $fm"
	[ -e "$fconn/abort" ] || fail "no $fconn/abort for $fm"
	echo 1 > "/sys/class/bdi/$fbdi/min_ratio" || fail "min_ratio 1 on $fbdi"
	say "$1: bdi $fbdi, max_ratio $(cat "/sys/class/bdi/$fbdi/max_ratio"), strict_limit $(cat "/sys/class/bdi/$fbdi/strict_limit")"
	if [ $series = 1 ]; then
		[ -e "/sys/class/bdi/$fbdi/flushers" ] || fail "no flushers knob on the FUSE bdi $fbdi"
	fi
}
# gone WHAT: the bdi and the connection went with the unmount, and (series)
# the bdi's flushers
gone() {
	wait_until 30 eval "[ ! -d /sys/kernel/debug/bdi/$fbdi ]" || fail "$1: bdi $fbdi still there 30 s after the unmount"
	wait_until 30 eval "[ ! -d $fconn ]" || fail "$1: $fconn still there 30 s after the unmount"
	[ $series = 1 ] || return 0
	wait_until 30 no_flushers "$fbdi" ||
		fail "$1: $(flushers_of "$fbdi" | tr '\n' ' ')left 30 s after the unmount"
}
# fuse_down WHAT: unmount; fuse2fs writes its cache, fsyncs the image, exits
fuse_down() {
	umount $fm || fail "$1: umount $fm"
	wait_until 30 ended "$fpid" || fail "$1: fuse2fs still runs 30 s after the unmount"
	wait "$fpid" || say "$1: fuse2fs exited with $?"
	fpid=""
	gone "$1"
}
# whatever a failed run leaves: no stopped daemon, holder, writer or mount
fuse_cleanup() {
	local p
	[ -n "$fpid" ] && kill -CONT "$fpid"
	for p in "${hpid[@]}" $wpid; do kill "$p"; done
	if mounted $fm; then
		sleep 1
		umount $fm || { echo 1 > "$fconn/abort"; umount -l $fm; }
	fi
	[ -n "$fpid" ] && { wait_until 10 ended "$fpid" || kill -9 "$fpid"; }
}
on_exit fuse_cleanup

# 1. fsync and syncfs, with N flushers on the FUSE bdi (series)
check1() {
	local n=$1 t=flushers-$1 left
	[ "$n" = stock ] && t=stock
	fuse_up "c1-$n"
	if [ "$n" != stock ]; then
		echo "$n" > "/sys/class/bdi/$fbdi/flushers" || fail "$t: flushers refused $n"
	fi
	trace_on writeback:writeback_start
	(enter_w; exec dd if="$refw" of=$fm/w bs=1M conv=fsync status=none) || fail "$t: write and fsync of $fm/w"
	hold m $fm/m "$refm"
	dirty_kb "$t: mmap"
	tell m fsync
	answer m 60 fsync
	(enter_w; exec dd if="$refw" of=$fm/sw bs=1M status=none) || fail "$t: write of $fm/sw"
	hold s $fm/s "$refm"
	dirty_kb "$t: mmap"
	sync -f $fm || fail "$t: syncfs of $fm"
	left=$(bdi_stat "$fbdi" BdiReclaimable)
	[ "$left" -le "$SLACK_KB" ] || fail "$t: $left kB still dirty on $fbdi after syncfs"
	wait_until 30 bdi_clean "$fbdi" ||
		fail "$t: $(bdi_stat "$fbdi" BdiWriteback) kB of $fbdi not answered 30 s after syncfs"
	if [ "$n" != stock ]; then
		on_flusher "$fbdi" || fail "$t: no writeback of $fbdi traced on its flusher"
		say "$t: syncfs written back by $(flushers_of "$fbdi" | tr '\n' ' ')"
	fi
	release m || fail "$t: holder m: $(tail -1 /tmp/hold-m.out)"
	release s || fail "$t: holder s: $(tail -1 /tmp/hold-s.out)"
	fuse_down "$t"
	for f in w:$refw m:$refm sw:$refw s:$refm; do
		in_image "$img" "${f%%:*}" "${f#*:}" || fail "$t: ${f%%:*} differs in $img"
		final+=("$img ${f%%:*} ${f#*:}")
	done
	say "$t: fsync'ed and syncfs'ed data in the image"
}

# 2. the daemon stopped with writeback in flight; another disk goes on
check2() {
	local t0 s errs=()
	fuse_up c2
	hold d $fm/d "$refm"
	dirty_kb "stopped"
	trace_on writeback:writeback_start
	kill -STOP "$fpid"
	wait_until 10 stopped "$fpid" || fail "fuse2fs did not stop"
	tell d syncfs
	tell d fsync
	sleep 3
	! said d "fsync " || fail "fsync returned with the daemon stopped: the test shows nothing"
	say "daemon stopped: $(bdi_stat "$fbdi" BdiReclaimable) kB dirty and $(bdi_stat "$fbdi" BdiWriteback) kB under writeback on $fbdi, $(cat "$fconn/waiting") requests waiting; syncfs: $(grep '^syncfs' /tmp/hold-d.out || echo blocked), fsync blocked"
	(enter_w; exec cp "$refo" $om/f) || fail "write to $om"
	t0=$(date +%s)
	sync -f $om & s=$!
	if wait_until 30 ended $s; then
		say "sync -f of $obdi returned after $(( $(date +%s) - t0 )) s"
		wait $s || errs+=("sync -f of $om failed")
	else
		errs+=("sync -f of $obdi did not return within 30 s while the FUSE daemon was stopped")
	fi
	if [ $series = 1 ]; then
		on_flusher "$obdi" || errs+=("no writeback of $obdi traced on its flusher while the daemon was stopped")
	fi
	kill -CONT "$fpid"
	answer d 60 fsync
	wait_until 60 ended $s || fail "sync -f of $om still blocked"
	release d || fail "holder d: $(tail -1 /tmp/hold-d.out)"
	for e in "${errs[@]}"; do echo "FAIL: $e"; done
	[ ${#errs[@]} = 0 ] || fail "${#errs[@]} checks failed"
	fuse_down stopped
	in_image "$img" d "$refm" || fail "d differs in $img"
	final+=("$img d $refm")
	on_disk ext4 "$odev" $om "$refo" f
	say "data in the image after SIGCONT; $obdi's on disk"
}

# 3. abort of the connection under load
check3() {
	local rc
	fuse_up c3
	if [ $series = 1 ]; then
		echo 4 > "/sys/class/bdi/$fbdi/flushers" || fail "abort: flushers refused 4"
	fi
	trace_on writeback:writeback_start
	hold a $fm/a "$refm"
	tell a syncfs
	answer a 60 syncfs
	wait_until 30 bdi_clean "$fbdi" || fail "abort: $fbdi not clean 30 s after syncfs"
	if [ $series = 1 ]; then
		on_flusher "$fbdi" || fail "abort: no writeback of $fbdi traced on its flusher"
	fi
	tell a fill
	answer a 60 fill
	dirty_kb "abort"
	(enter_w; while dd if=/dev/zero of=$fm/w bs=64k count=64 conv=notrunc status=none; do :; done; exit 1) \
		2> /tmp/fuse-writer.log &
	wpid=$!
	sleep 2
	if [ ! -s $fm/w ] || ended $wpid; then
		fail "abort: the writer did not write: $(tail -1 /tmp/fuse-writer.log)"
	fi
	kill -STOP "$fpid"
	wait_until 10 stopped "$fpid" || fail "fuse2fs did not stop"
	tell a syncfs
	sleep 1
	say "abort: $(bdi_stat "$fbdi" BdiWriteback) kB under writeback on $fbdi, $(cat "$fconn/waiting") requests waiting"
	echo 1 > "$fconn/abort" || fail "abort of $fconn refused"
	wait_until 30 ended $wpid || fail "abort: the writer still runs 30 s after the abort"
	wait $wpid
	wpid=""
	[ -s /tmp/fuse-writer.log ] || fail "abort: the writer ended without an error"
	say "abort: the writer ended: $(tail -1 /tmp/fuse-writer.log)"
	wait_until 30 bdi_clean "$fbdi" ||
		fail "abort: $(bdi_dirty_kb "$fbdi") kB of $fbdi dirty or under writeback 30 s after the abort"
	release a; rc=$?
	say "abort: the holder ended ($rc): $(tail -1 /tmp/hold-a.out)"
	# (after the abort fuse2fs leaves the mount alone when it goes on)
	kill -CONT "$fpid"
	umount -l $fm || say "abort: umount -l $fm returned $?"
	! mounted $fm || fail "abort: $fm still mounted after umount -l"
	wait_until 30 ended "$fpid" || fail "abort: fuse2fs still runs 30 s after the abort"
	wait "$fpid"
	fpid=""
	gone abort
	say "abort: writer and holder ended, the bdi, its connection and flushers gone"
}

if [ $series = 1 ]; then
	check1 1
	check1 4
else
	check1 stock
fi
check2
check3

say "XFS shut down without flush and remounted: the images as fuse2fs left them"
shutdown_noflush $base
umount $base || fail "umount $base"
mount_dev xfs "$xdev" $base || fail "remount $base"
drop_caches
for img in $(printf '%s\n' "${final[@]}" | awk '{print $1}' | sort -u); do
	fsck_fs ext4 "$img" || fail "$img: e2fsck -fn found errors after the XFS shutdown"
done
for e in "${final[@]}"; do
	read -r img f ref <<< "$e"
	in_image "$img" "$f" "$ref" || fail "$f differs in $img after the XFS shutdown"
done
say "${#final[@]} files in $(printf '%s\n' "${final[@]}" | awk '{print $1}' | sort -u | wc -l) images intact"
