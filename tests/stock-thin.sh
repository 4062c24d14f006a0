#!/bin/bash
# timeout: 400
# An LVM thin pool that runs out of space, as a Debian machine has it: a
# 64 MB pool on a VG over scratch 1, a 256 MB thin volume with ext4, the
# pool set to fail writes at once when full (lvchange --errorwhenfull y)
# instead of queueing them for 60 s. With periodic writeback on (expire
# 2 s, interval 1 s), a writer in a cgroup with the memory and io
# controllers writes 128 MB and fsyncs (dd conv=fsync): the fsync must
# fail, in bounded time. While writeback to the full pool keeps failing,
# the same cgroup's data on another disk (ext4 on scratch 3) is written
# back: sync -f within 30 s, and on disk after a shutdown. Then the thin
# volume, the pool, the VG and the PV are removed cleanly (lvremove -f,
# vgremove -f, pvremove), no dm device of the VG is left, and on the
# series the thin volume's flusher ran and no flusher of any of the VG's
# dm devices is left.
# No udev, dmeventd or lvmpolld, /etc read-only: LVM gets a config
# directory of its own (LVM_SYSTEM_DIR) that sees only this disk and
# keeps no metadata backups; DM_DISABLE_UDEV=1 makes it create the nodes.
# lvm runs thin_check (thin-provisioning-tools) when it activates the pool.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_cgroup memory io
command -v lvm >/dev/null || skip "no lvm2"
dmsetup targets 2>/dev/null | grep -qw thin-pool || skip "no dm thin-pool target"
export DM_DISABLE_UDEV=1 LVM_SUPPRESS_FD_WARNINGS=1 LVM_SYSTEM_DIR=/tmp/stock-thin
vg=stockthin pv=$(scratch 1) other=$(scratch 3)
mnt=/mnt/thin omnt=/mnt/thin-other stop=/tmp/thin.stop err=/tmp/thin-dd.err
cg=/sys/fs/cgroup
refo=$(make_ref thin-other.ref 4096)
rm -f $stop $err
series=0
[ -e "$FLUSHER_THREADS" ] && series=1
[ $series = 1 ] || [ "${SERIES:-0}" != 1 ] || fail "the series' $FLUSHER_THREADS is missing"

# lvm_conf DISK...: an lvm.conf that scans only these disks
lvm_conf() {
	local d f=""
	for d; do f="$f\"a|^$d\$|\", "; done
	mkdir -p $LVM_SYSTEM_DIR /run/lvm /run/lock/lvm
	cat > $LVM_SYSTEM_DIR/lvm.conf <<-EOF
	devices {
		filter = [ $f"r|.*|" ]
		obtain_device_list_from_udev = 0
		external_device_info_source = "none"
		use_devicesfile = 0
		hints = "none"
	}
	activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
	global { use_lvmpolld = 0 locking_dir = "/run/lock/lvm" }
	backup { backup = 0 archive = 0 }
	EOF
}
# vg_devs: the VG's dm devices, as "name maj:min"
vg_devs() { dmsetup info -c --noheadings -o name,devno --separator ' ' | awk -v p="$vg-" 'index($1, p) == 1'; }
# lvm_down DISK...: remove whatever is left of the VG and its PVs
lvm_down() {
	local d
	vgremove -q -f $vg
	for _ in 1 2 3; do
		for d in $(vg_devs | awk '{print $1}'); do dmsetup remove --force "$d"; done
	done
	pvremove -q -ff -y "$@"
	rm -rf $LVM_SYSTEM_DIR
}
enter() { echo $BASHPID > "$cg/dm/cgroup.procs" || fail "cannot enter cgroup dm"; }
# flushers_of BDI: the names of the bdi's flusher threads, all contexts
flushers_of() { ps -e -o comm= | awk -v n="flush-$1" '$1 == n || index($1, n "/") == 1' | sort | tr '\n' ' '; }
gone() { [ -z "$(flushers_of "$1")" ]; }
# pool_status: the status line of the VG's thin-pool target
pool_status() { dmsetup status --target thin-pool | awk -v p="$vg-" 'index($1, p) == 1'; }
full() { pool_status | grep -qw out_of_data_space; }
ended() { ! kill -0 "$1" 2>/dev/null; }
state() { if ended "$1"; then echo ended; else echo running; fi; }

echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/dm
on_exit "rmdir $cg/dm"
wipefs -a -q "$pv" || fail "wipefs"
lvm_conf "$pv"
on_exit "lvm_down $pv"
pvcreate -q -y "$pv" >/dev/null || fail "pvcreate"
vgcreate -q $vg "$pv" >/dev/null || fail "vgcreate"
lvcreate -q -y --type thin-pool -L 64M -n pool $vg >/dev/null || fail "lvcreate of the thin pool"
lvcreate -q -y --type thin -V 256M --thinpool pool -n thin $vg >/dev/null || fail "lvcreate of the thin volume"
lvchange -q --errorwhenfull y $vg/pool >/dev/null || fail "lvchange --errorwhenfull y"
pool_status | grep -qw error_if_no_space || fail "the pool queues when full: $(pool_status)"
dev=/dev/$(dmsetup info -c --noheadings -o blkdevname $vg-thin)
bdi=$(bdi_of "$dev")
mapfile -t bdis < <(vg_devs | awk '{print $2}')
say "thin volume $dev (bdi $bdi); the VG's dm devices: ${bdis[*]}"
# little written at mkfs (4 MB of journal, no inode tables, no discard)
# and none later (noinit_itable): nearly all of the pool is for the data
mkfs.ext4 -q -F -T default -b 4096 -J size=4 -E nodiscard,lazy_itable_init=1 "$dev" ||
	fail "mkfs.ext4 on $dev"
mkdir -p $mnt
mount -t ext4 -o noinit_itable "$dev" $mnt || fail "mount $dev"
on_exit "umount $mnt"
fresh_fs ext4 "$other" $omnt
on_exit "umount $omnt"
sync
echo 200 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs

(enter; exec dd if=/dev/zero of=$mnt/big bs=1M count=128 conv=fsync status=none) 2> $err & w=$!
on_exit "kill $w; wait_until 30 ended $w"
wait_until 90 full || fail "the pool did not run out of space within 90 s: $(pool_status)"
say "pool full: $(pool_status)"
# more writes to the full pool, new files each (none truncated under
# writeback), that periodic writeback fails, until told to stop
(
	enter
	for i in $(seq 10); do
		[ -e $stop ] && break
		dd if=/dev/zero of=$mnt/more$i bs=1M count=4 status=none 2>/dev/null
		sleep 0.5
	done
) & k=$!
on_exit "touch $stop; wait_until 30 ended $k"

# meanwhile, the same cgroup's data on the other disk is written back
(enter; exec cp "$refo" $omnt/f) || fail "write to $omnt from the cgroup"
t0=$(date +%s)
sync -f $omnt & s=$!
wait_until 30 ended $s || fail "sync -f of $omnt did not return within 30 s while the pool was full"
wait $s || fail "sync -f of $omnt failed"
say "sync -f of $omnt: $(( $(date +%s) - t0 ))s; the 128 MB writer $(state $w), the other $(state $k)"

touch $stop
wait_until 30 ended $k || fail "writes to the full pool did not end within 30 s"
wait_until 60 ended $w || fail "dd conv=fsync on the full pool did not return within 60 s"
wait $w && fail "fsync of 128 MB in a 64 MB pool succeeded"
say "writer: $(cat $err)"
grep -q 'fsync failed' $err || fail "dd failed, but not in fsync: $(cat $err)"
full || fail "the pool is no longer full: $(pool_status)"
if [ $series = 1 ]; then
	[ -n "$(flushers_of "$bdi")" ] || fail "no flusher of the thin volume's bdi $bdi"
	say "flushers of $bdi: $(flushers_of "$bdi")"
fi

umount $mnt || fail "umount of the thin volume"
lvremove -q -f $vg/thin >/dev/null || fail "lvremove of the thin volume"
lvremove -q -f $vg/pool >/dev/null || fail "lvremove of the pool"
vgremove -q -f $vg >/dev/null || fail "vgremove"
pvremove -q -y "$pv" >/dev/null || fail "pvremove"
[ -z "$(vg_devs)" ] || fail "dm devices left: $(vg_devs | tr '\n' ' ')"
for b in "${bdis[@]}"; do
	wait_until 30 gone "$b" || fail "flushers of $b left after vgremove: $(flushers_of "$b")"
done
on_disk ext4 "$other" $omnt "$refo" f
