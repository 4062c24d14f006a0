#!/bin/bash
# timeout: 500
# md RAID1 of scratch 0 and 1 (256 MB, internal bitmap) with ext4, written
# from a cgroup with the memory and io controllers:
# - fsync'd data is on the array after a shutdown without flush and a
#   remount; on the series with the md bdi's flushers 1 and 4, and the md
#   bdi has a flusher;
# - a member fails and is removed under a running writer: the writer goes
#   on, and every file it fsync'd reads back after a shutdown without
#   flush, a stop and an assembly from the remaining disk alone; on the
#   series no flusher of the md bdi is left after the stop;
# - the member re-added and the recovery done, an assembly from that
#   member alone has a clean ext4 and all the data (the recovery copied it).
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 2
require_cgroup memory io
command -v mdadm >/dev/null || skip "no mdadm"
grep -qs '\[raid1\]' /proc/mdstat || skip "no md raid1"
grep -q '^md0 ' /proc/mdstat && fail "md0 is in use"
# no udev, no systemd: mdadm makes its device nodes and forks what it needs
export MDADM_NO_UDEV=1 MDADM_NO_SYSTEMCTL=1
a=$(scratch 0) b=$(scratch 1)
md=/dev/md0 sys=/sys/block/md0/md mnt=/mnt/md cg=/sys/fs/cgroup
ref=$(make_ref md.ref 8192)
wref=$(make_ref md-w.ref 1024)
done_list=/tmp/md.done stop_flag=/tmp/md.stop

echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
grp=$cg/md-writer
mkdir -p $grp
on_exit "rmdir $grp"
in_w() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$grp" "$@"; }

# flushers_of BDI: names of the bdi's flusher threads (every context)
flushers_of() { ps -e -o comm= | awk -v f="flush-$1" '$1 == f || index($1, f "/") == 1'; }
has_flusher() { [ -n "$(flushers_of "$1")" ]; }
no_flushers() { [ -z "$(flushers_of "$1")" ]; }
# assemble DEV: start the array from DEV alone (degraded, so --run)
assemble() {
	mdadm --assemble $md --config=none --run "$1" </dev/null || fail "assemble from $1"
	wait_until 10 test -b $md || fail "no $md after the assembly"
}
# stop WHEN: stop the (unmounted) array; md deletes the disk, and with it
# the bdi: on the series its flushers go
stop() {
	mdadm --stop $md </dev/null || fail "$1: mdadm --stop"
	wait_until 30 test ! -e /sys/block/md0 || say "$1: md0 still there 30 s after the stop"
	[ "$series" = 1 ] || return 0
	wait_until 30 no_flushers "$mbdi" ||
		fail "$1: $(flushers_of "$mbdi" | tr '\n' ' ')left 30 s after mdadm --stop"
	say "$1: no flusher of $mbdi after the stop"
}
# check_data WHEN: every file written so far reads back
check_data() {
	local f
	for f in "${afiles[@]}"; do cmp "$ref" "$mnt/$f" || fail "$1: $f differs"; done
	while read -r f; do cmp "$wref" "$mnt/$f" || fail "$1: $f differs"; done < $done_list
	say "$1: ${#afiles[@]} files of 8 MB and $(wc -l < $done_list) of 1 MB read back"
}

say "RAID1 of $a and $b"
on_exit "mdadm --zero-superblock $a $b"
mdadm --create $md --config=none --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean --run --bitmap=internal --size=262144 "$a" "$b" </dev/null ||
	fail "mdadm --create"
on_exit "mdadm --stop $md"
wait_until 10 test -b $md || fail "no $md"
[ "$(cat $sys/degraded)" = 0 ] || fail "new array degraded: $(cat $sys/degraded)"
mbdi=$(bdi_of $md)
knob=/sys/class/bdi/$mbdi/flushers
series=0 rounds=stock
if [ -e "$knob" ]; then
	series=1 rounds="1 4"
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $knob is missing"
fi
echo 300 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs
fresh_fs ext4 $md $mnt
on_exit "umount $mnt"

afiles=()
: > $done_list
for n in $rounds; do
	if [ "$n" != stock ]; then
		echo "$n" > "$knob" || fail "flushers $n refused"
	fi
	in_w dd if="$ref" of="$mnt/a-$n" bs=1M conv=fsync status=none || fail "$n: write"
	if [ "$n" != stock ]; then
		wait_until 30 has_flusher "$mbdi" || fail "flushers $n: no flusher of $mbdi"
		say "flushers $n: $(flushers_of "$mbdi" | tr '\n' ' ')"
	fi
	on_disk ext4 $md $mnt "$ref" "a-$n"
	afiles+=("a-$n")
done

say "$b fails under a running writer"
rm -f $stop_flag
# files of 1 MB, each fsync'd and then listed, until told to stop
(
	echo $BASHPID > $grp/cgroup.procs || exit 1
	i=0
	while [ ! -e $stop_flag ] && [ $i -lt 120 ]; do
		dd if="$wref" of="$mnt/w$i" bs=256k conv=fsync status=none || exit 1
		echo "w$i" >> $done_list
		i=$((i + 1))
	done
) &
writer=$!
on_exit "kill $writer"
written() { [ "$(wc -l < $done_list)" -ge "$1" ]; }
wait_until 30 written 3 || fail "the writer fsync'd less than 3 MB in 30 s"
n0=$(wc -l < $done_list)
mdadm $md --fail "$b" </dev/null || fail "mdadm --fail $b"
# md lets go of a failed member once its pending I/O is done
removed() { mdadm $md --remove "$b" </dev/null >/dev/null 2>&1; [ ! -e "$sys/dev-${b#/dev/}" ]; }
wait_until 20 removed || fail "mdadm --remove $b: $(cat "$sys/dev-${b#/dev/}/state" 2>/dev/null)"
[ "$(cat $sys/degraded)" = 1 ] || fail "$b removed, but degraded is $(cat $sys/degraded)"
say "$b failed and removed after $n0 files"
wait_until 30 written $((n0 + 3)) ||
	fail "the writer fsync'd $(( $(wc -l < $done_list) - n0 )) files in 30 s after the failure"
touch $stop_flag
ended() { ! kill -0 "$1" 2>/dev/null; }
wait_until 60 ended $writer || fail "the writer did not stop within 60 s"
wait $writer || fail "the writer failed after the member failure"
say "the writer fsync'd $(( $(wc -l < $done_list) - n0 )) files after the failure"
shutdown_noflush $mnt
umount $mnt || fail "umount after the shutdown"
stop "after the failure"
assemble "$a"
mount_dev ext4 $md $mnt || fail "mount from $a alone"
drop_caches
check_data "from $a"

say "$b re-added"
w0=$(written_kb "$b")
if mdadm $md --re-add "$b" </dev/null; then
	how=re-add
else
	# not possible from the bitmap: a full recovery as a new member
	mdadm --zero-superblock "$b" || fail "mdadm --zero-superblock $b"
	mdadm $md --add "$b" </dev/null || fail "mdadm --add $b"
	how="add, full recovery"
fi
t0=$(date +%s)
in_sync() { [ "$(cat $sys/degraded)" = 0 ] && [ "$(cat $sys/sync_action)" = idle ]; }
wait_until 120 in_sync ||
	fail "recovery onto $b not done after 120 s: $(grep -A3 '^md0 ' /proc/mdstat | tr -s ' \n' ' ')"
say "$how: in sync after $(( $(date +%s) - t0 ))s, $b wrote $(( $(written_kb "$b") - w0 )) kB"
umount $mnt || fail "umount after the recovery"
stop "after the recovery"
assemble "$b"
fsck_fs ext4 $md || fail "ext4 on $b alone is not clean"
mount_dev ext4 $md $mnt || fail "mount from $b alone"
drop_caches
check_data "from $b"
umount $mnt || fail "umount at the end"
stop "at the end"
