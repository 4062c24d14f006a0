#!/bin/bash
# timeout: 360
# NFSv4.2 over loopback, nfsd and the client in this guest: the client's
# writeback sends the data to nfsd, which puts it on ext4 on scratch 3
# (a sync export: on COMMIT nfsd syncs the file to disk). The writer runs in
# a memory+io cgroup and keeps its files open, because NFS writes a file
# back when it is closed, which would do the job of the writeback under
# test. With flushers 1 and 4 on the client's bdi where the knob exists,
# else once:
# - sync: the client's data is dirty, nothing writes back by itself (no
#   periodic writeback, high thresholds); after sync -f of the client's
#   mount its bdi and the server's get clean, and the server's disk has
#   written the data: two levels of writeback;
# - periodic: with dirty_expire 2 s and dirty_writeback 1 s, the client's
#   dirty and unstable pages (written, not yet committed: counted as
#   Writeback) are gone within 2 + 1 + 5 s, without any sync;
# - the series: the flusher of each written file's context appears
#   (flush-<bdi>, flush-<bdi>/<k>; NFS has no grouping hook, so the inode
#   number picks the context), and none is left once the client is
#   unmounted.
# Then nfsd stops (rpc.nfsd 0) with 4 MB dirty on the client: a sync of the
# hard mount blocks; meanwhile ext4 on scratch 2 must still be written
# back (its sync -f within 30 s; on the series its flusher appears). Once
# nfsd runs again the blocked sync returns. At the end each file is read
# back from the server's disk after a shutdown without flush (client
# unmounted, nfsd stopped), and the other disk's file likewise.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_cgroup memory io
grep -qw nfsd /proc/filesystems || skip "no NFS server (CONFIG_NFSD)"
grep -qw nfs4 /proc/filesystems || skip "no NFSv4 client (CONFIG_NFS_V4)"
for t in rpc.nfsd rpc.mountd exportfs mount.nfs4 mountpoint xfs_io; do
	command -v $t >/dev/null || skip "no $t"
done
sdev=$(scratch 3) odev=$(scratch 2)
exp=/mnt/export mnt=/mnt/nfs other=/mnt/nfs-other cg=/sys/fs/cgroup
sbdi=$(bdi_of "$sdev") obdi=$(bdi_of "$odev")
ref=$(make_ref nfs.ref 4096) small=$(make_ref nfs-small.ref 1024)
series=0
[ -e "$FLUSHER_THREADS" ] && series=1
bound=8		# expire 2 s + interval 1 s + 5 s
errs=0 writer="" mountd="" server=down marks=0
checks=()	# "REF FILE": FILE under the export must read back as REF
err() { echo "FAIL: $*"; errs=$((errs + 1)); }
gone() { ! kill -0 "$1" 2>/dev/null; }
enter() { echo $BASHPID > "$cg/nfsw/cgroup.procs" || fail "cannot enter cgroup nfsw"; }
# flushers_of BDI: the flusher threads of BDI, of any context
flushers_of() { ps -e -o comm= | awk -v b="flush-$1" '$1 == b || index($1, b "/") == 1'; }
no_client_flushers() { [ -z "$(flushers_of "$cbdi")" ]; }
# fresh_ext4 DEV MNT: mkfs and mount, without the background zeroing of the
# inode tables: it would add to what the disk writes, and dirty metadata
fresh_ext4() {
	{ mkfs_dev ext4 "$1" >/dev/null && mkdir -p "$2" && mount -t ext4 -o noinit_itable "$1" "$2"; } ||
		fail "mkfs/mount ext4 on $1"
}

ip link set lo up 2>/dev/null || busybox ip link set lo up || fail "cannot bring lo up"
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/nfsw
on_exit "rmdir $cg/nfsw"
# the state of nfs-utils (etab, rmtab) and nfsd's client records (legacy
# v4recovery or nfsdcltrack's database), on a tmpfs: / is read-only
mount -t tmpfs -o size=16m nfsstate /var/lib/nfs || fail "tmpfs on /var/lib/nfs"
on_exit "umount /var/lib/nfs"
mkdir /var/lib/nfs/v4recovery /var/lib/nfs/nfsdcltrack
: > /var/lib/nfs/etab
: > /var/lib/nfs/rmtab

quiet_writeback
fresh_ext4 "$sdev" $exp
on_exit "umount $exp"
keep_dirty "$sbdi"
if ! mountpoint -q /proc/fs/nfsd; then
	mount -t nfsd nfsd /proc/fs/nfsd || fail "mount of the nfsd filesystem"
	on_exit "umount /proc/fs/nfsd"
fi
restore /proc/fs/nfsd/nfsv4gracetime	# rpc.nfsd -G sets it
# sync (the default, said here as the test relies on it): COMMIT syncs
exportfs -o rw,sync,no_root_squash,fsid=0,insecure,no_subtree_check "127.0.0.1:$exp" ||
	fail "exportfs"
on_exit "exportfs -ua"
# mountd answers nfsd's export upcalls; v4 only, so no MOUNT service and
# no rpcbind
rpc.mountd -F -N 2 -N 3 > /tmp/nfs.mountd 2>&1 &
mountd=$!
on_exit "kill $mountd; wait $mountd"
# it must have the upcall channels open: an upcall with no reader fails,
# and its negative answer is cached
mountd_ready() {
	local f n=0
	for f in /proc/"$mountd"/fd/*; do
		case $(readlink "$f") in
		*/auth.unix.ip/channel | */nfsd.export/channel | */nfsd.fh/channel) n=$((n + 1)) ;;
		esac
	done
	[ $n -ge 3 ]
}
wait_until 30 mountd_ready || fail "rpc.mountd not ready: $(tail -3 /tmp/nfs.mountd)"
# nfsd: v4 only (v2 is not in the kernel, -N 2 is refused), on loopback;
# the grace period after a restart gives the client time to reclaim its
# open files (its reconnection backs off to some 10-20 s)
nfsd_opts=(-N 3 -H 127.0.0.1 -p 2049 -G 30)
server_start() {
	rpc.nfsd "${nfsd_opts[@]}" 8 || fail "rpc.nfsd failed"
	[ "$(cat /proc/fs/nfsd/threads)" -gt 0 ] || fail "rpc.nfsd started no nfsd thread"
	server=up
}
server_stop() { rpc.nfsd 0 || fail "rpc.nfsd 0 failed"; server=down; }
server_start
on_exit "rpc.nfsd 0"
# no client has state to reclaim yet: no grace period (opens would wait)
echo Y > /proc/fs/nfsd/v4_end_grace 2>/dev/null || say "grace period not ended early: first opens wait"

mkdir -p $mnt
mount -t nfs4 -o hard,vers=4.2 127.0.0.1:/ $mnt || fail "NFSv4.2 mount of 127.0.0.1:/"
on_exit "umount -f -l $mnt"
# the client's bdi: an anonymous one, named after the superblock's device
cbdi=$(mountpoint -d $mnt)
[ -d "/sys/class/bdi/$cbdi" ] || fail "no bdi $cbdi for the NFS mount"
say "client's bdi $cbdi, server's disk $sbdi"
keep_dirty "$cbdi"
knob=/sys/class/bdi/$cbdi/flushers
counts=1
if [ -e "$knob" ]; then
	counts="1 4"
	restore "$knob"
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $knob is missing"
fi

# The writer: xfs_io in cgroup nfsw, reading its commands from a fifo. It
# holds every file it writes open until writer_stop.
writer_kill() { [ -z "$writer" ] || { kill "$writer"; wait "$writer"; }; }
on_exit writer_kill
writer_start() {
	rm -f /tmp/nfs.cmd
	mkfifo /tmp/nfs.cmd || fail "mkfifo"
	exec 5<>/tmp/nfs.cmd
	(enter; exec xfs_io) < /tmp/nfs.cmd > /tmp/nfs.writer 2>&1 &
	writer=$!
}
# wr REF FILE...: the writer writes REF over each FILE; returns when all of
# it is in the page cache (the writer creates a marker file after each)
wr() {
	local r=$1 f
	shift
	for f; do
		marks=$((marks + 1))
		echo "open $f"
		echo "pwrite -q -b 1m -i $r 0 $(stat -c %s "$r")"
		echo "open -f /tmp/nfs.mark$marks"
	done >&5
	wait_until 60 test -e /tmp/nfs.mark$marks || fail "writer: $(tail -3 /tmp/nfs.writer)"
}
# writer_stop: the writer closes its files and exits
writer_stop() {
	echo quit >&5
	wait_until 60 gone "$writer" || fail "the writer did not exit"
	wait "$writer" || err "writer: $(tail -3 /tmp/nfs.writer)"
	writer=""
	exec 5>&-
}
# new FILE: create FILE empty, print its inode number (a stat of a dirty
# NFS file would write it back first)
new() { : > "$1" && stat -c %i "$1"; }
both_clean() { bdi_clean "$cbdi" && bdi_clean "$sbdi"; }
dirty_check() {		# dirty_check WHAT KB: KB or more dirty on the client
	local d
	d=$(bdi_dirty_kb "$cbdi")
	[ "$d" -ge $(($2 - SLACK_KB)) ] || fail "$1: only $d kB dirty on $cbdi after writing $2 kB: the check shows nothing"
}
# ctx_check N INO...: on the series, the flusher of each inode's context
# among N runs
ctx_check() {
	local n=$1 i name
	shift
	[ "$series" = 1 ] || return 0
	for i; do
		name=$(ctx_name "$cbdi" $((i % n)))
		wait_thread 10 "$name" || err "flushers $n: no $name for inode $i"
	done
}

for n in $counts; do
	if [ -e "$knob" ]; then
		echo "$n" > "$knob" || fail "flushers $n refused on $cbdi"
		say "flushers $n"
	fi
	writer_start

	quiet_writeback
	ino=$(new "$mnt/s$n")
	before=$(written_kb "$sdev")
	wr "$ref" "$mnt/s$n"
	dirty_check "sync" 4096
	sync -f $mnt & s=$!
	wait_until 60 gone $s || fail "sync -f of the NFS mount hangs with nfsd running"
	wait $s || fail "sync -f of the NFS mount failed"
	# the sync waits for the WRITEs; the COMMIT after them may be in flight
	wait_until 10 both_clean || fail "after sync -f: $(bdi_dirty_kb "$cbdi") kB dirty or unstable on the client, $(bdi_dirty_kb "$sbdi") kB dirty on the server"
	wrote=$(( $(written_kb "$sdev") - before ))
	say "sync: client and server clean, the server's disk wrote $wrote kB"
	[ "$wrote" -ge 4096 ] || fail "after sync -f of the client the server's disk wrote only $wrote kB"
	ctx_check "$n" "$ino"
	checks+=("$ref s$n")

	inos=() pfiles=()
	for i in 0 1 2 3; do
		inos+=("$(new "$mnt/p$n-$i")")
		pfiles+=("$mnt/p$n-$i")
		checks+=("$small p$n-$i")
	done
	echo 200 > /proc/sys/vm/dirty_expire_centisecs
	echo 100 > /proc/sys/vm/dirty_writeback_centisecs
	start=$(date +%s)
	wr "$small" "${pfiles[@]}"
	# (written slowly here: the oldest pages may be written meanwhile)
	dirty_check "periodic" 1024
	wait_until 30 bdi_clean "$cbdi" || fail "periodic: $(bdi_dirty_kb "$cbdi") kB dirty or unstable on $cbdi after 30 s"
	secs=$(( $(date +%s) - start ))
	say "periodic: the client's bdi clean after ${secs}s"
	[ "$secs" -le $bound ] || err "flushers $n: periodic writeback of the client took ${secs}s, bound ${bound}s"
	quiet_writeback
	ctx_check "$n" "${inos[@]}"
	[ "$series" = 1 ] && say "flushers of $cbdi: $(flushers_of "$cbdi" | tr '\n' ' ')"
	writer_stop
done

say "nfsd stopped with dirty pages on the client; another disk meanwhile"
fresh_ext4 "$odev" $other
on_exit "umount $other"
# on the series: no flusher anywhere, so that the other disk's must start
# while the NFS writeback is stuck (a global sync: nfsd must run)
[ "$series" = 1 ] && idle_all_flushers
writer_start
new "$mnt/stuck" >/dev/null
wr "$ref" "$mnt/stuck"
checks+=("$ref stuck")
dirty_check "stuck" 4096
# should the test end here, nfsd comes back before the client is unmounted
restart_if_down() { [ "$server" = up ] || rpc.nfsd "${nfsd_opts[@]}" 8; }
on_exit restart_if_down
server_stop
sync -f $mnt & stuck=$!
sleep 3
gone $stuck && fail "sync -f of the NFS mount returned with nfsd stopped: the check shows nothing"
(enter; exec cp "$ref" "$other/f") || fail "write to $other"
t0=$(date +%s)
sync -f $other & s=$!
if wait_until 30 gone $s; then
	say "sync -f of $obdi returned after $(( $(date +%s) - t0 ))s while the NFS writeback was stuck"
	wait $s || err "sync -f of $other failed"
	if [ "$series" = 1 ]; then
		f=$(flushers_of "$obdi")
		[ -n "$f" ] || err "no flusher for $obdi while the NFS writeback was stuck"
		say "flushers of $obdi: $(echo "$f" | tr '\n' ' ')"
	fi
else
	err "sync -f of $other ($obdi) did not return within 30 s while the NFS writeback was stuck"
fi
gone $stuck && fail "the sync of the NFS mount returned while nfsd was stopped"
t0=$(date +%s)
server_start
wait_until 120 gone $stuck || fail "the blocked sync of the NFS mount did not return within 120 s of nfsd's restart"
say "the blocked sync returned $(( $(date +%s) - t0 ))s after nfsd's restart"
wait $stuck || fail "the blocked sync of the NFS mount failed after nfsd's restart"
wait_until 10 bdi_clean "$cbdi" || fail "after nfsd's restart and sync: $(bdi_dirty_kb "$cbdi") kB dirty or unstable on $cbdi"
wait_until 60 gone $s || fail "sync -f of $other still blocked"
writer_stop

say "teardown: the data must be on the server's disk"
umount $mnt || fail "umount of the NFS mount"
server_stop
if [ "$series" = 1 ]; then
	wait_until 30 no_client_flushers ||
		err "flushers of $cbdi left after its unmount: $(flushers_of "$cbdi" | tr '\n' ' ')"
fi
kill "$mountd"
wait "$mountd"
exportfs -ua || fail "exportfs -ua"
shutdown_noflush $exp
umount $exp || fail "umount of $exp after nfsd stopped"
mount_dev ext4 "$sdev" $exp || fail "remount of $exp"
drop_caches
for c in "${checks[@]}"; do
	read -r r f <<< "$c"
	cmp "$r" "$exp/$f" || err "$f differs on the server's disk"
done
on_disk ext4 "$odev" $other "$ref" f
[ $errs = 0 ] || fail "$errs checks failed"
