#!/bin/bash
# timeout: 500
# LVM as a Debian machine has it (lvm2 2.03, no lvmetad): a VG over
# scratch 1 and 2, a linear LV of 512 MB on each PV, XFS on each, writers
# in a cgroup with the memory and io controllers. Each LV's filesystem
# dirties the LV's own bdi (the dm device's, not the PV's), and what
# fsync and syncfs wrote is on disk: read back after the fs is stopped
# dead (shutdown_noflush) and mounted again. On the series each LV's own
# flushers (flush-<dm bdi>) run its writeback, with the flushers knob of
# LV a's bdi at 1 and LV b's at 4 (the files' directories are in four allocation
# groups: with 4, contexts other than 0 get flushers, none beyond 3);
# after lvremove no flusher of the LVs' bdis is left.
# No udev, dmeventd or lvmpolld, /etc read-only: LVM gets a config
# directory of its own (LVM_SYSTEM_DIR) that sees only these disks and
# keeps no metadata backups; DM_DISABLE_UDEV=1 makes it create the nodes.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 3
require_cgroup memory io
command -v lvm >/dev/null || skip "no lvm2"
export DM_DISABLE_UDEV=1 LVM_SUPPRESS_FD_WARNINGS=1 LVM_SYSTEM_DIR=/tmp/stock-lvm
vg=stockvg pv1=$(scratch 1) pv2=$(scratch 2)
cg=/sys/fs/cgroup
ref=$(make_ref lvm.ref 1024)
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
lv_node() { echo "/dev/$(dmsetup info -c --noheadings -o blkdevname "$vg-$1")"; }
in_cg() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg/dm" "$@"; }
# flushers_of BDI: the names of the bdi's flusher threads, all contexts
flushers_of() { ps -e -o comm= | awk -v n="flush-$1" '$1 == n || index($1, n "/") == 1' | sort | tr '\n' ' '; }
gone() { [ -z "$(flushers_of "$1")" ]; }
# ran BDI N: on the series, the bdi's flushers ran its writeback: flush-BDI
# and, with N contexts, at least one of flush-BDI/1..N-1, none beyond
ran() {
	local bdi=$1 n=$2 want=1 names
	[ $series = 1 ] || return 0
	[ "$n" -gt 1 ] && want=2
	wait_until 10 eval '[ $(flushers_of $bdi | wc -w) -ge $want ]'
	names=$(flushers_of "$bdi")
	say "flushers of $bdi: $names"
	[[ " $names" = *" flush-$bdi "* ]] || fail "$bdi: no flush-$bdi"
	[ "$(echo "$names" | wc -w)" -ge $want ] || fail "$bdi, $n contexts: flushers $names"
	echo "$names" | tr ' ' '\n' | awk -F/ -v n="$n" 'NF == 2 && $2 >= n {exit 1}' ||
		fail "$bdi, $n contexts: flushers $names"
}

# check LV N: XFS on the LV, the bdi's flushers at N (- leaves them); from
# the cgroup a file is fsync'd and four, one per directory, written by
# syncfs; all are on disk after a shutdown
check() {
	local lv=$1 n=$2 dev bdi mnt=/mnt/lv-$1 dirty s d
	dev=$(lv_node "$lv") bdi=$(bdi_of "$dev")
	mkfs_dev xfs "$dev" || fail "mkfs.xfs on $dev"
	# before the mount: XFS asks for one flusher per allocation group
	if [ "$n" != - ]; then
		echo "$n" > "/sys/class/bdi/$bdi/flushers" || fail "$bdi: flushers $n refused"
	fi
	mount_dev xfs "$dev" "$mnt" || fail "mount $dev"
	in_cg dd if="$ref" of="$mnt/fsync" bs=64k conv=fsync status=none || fail "$lv: fsync from the cgroup"
	for d in 0 1 2 3; do
		mkdir "$mnt/d$d"
		in_cg cp "$ref" "$mnt/d$d/f" || fail "$lv: write from the cgroup"
	done
	dirty=$(bdi_dirty_kb "$bdi")
	say "$lv ($dev, bdi $bdi, flushers $n): $dirty kB dirty"
	[ "$dirty" -ge 2048 ] || fail "$lv: only $dirty kB dirty on $bdi after 4 MB written: not the LV's own bdi?"
	sync -f "$mnt" & s=$!
	wait_until 30 eval '! kill -0 $s 2>/dev/null' || fail "$lv: syncfs did not return within 30 s"
	wait $s || fail "$lv: syncfs failed"
	ran "$bdi" "${n/-/1}"
	on_disk xfs "$dev" "$mnt" "$ref" fsync d0/f d1/f d2/f d3/f
	umount "$mnt" || fail "umount $mnt"
}

quiet_writeback
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/dm
on_exit "rmdir $cg/dm"
wipefs -a -q "$pv1" "$pv2" || fail "wipefs"
lvm_conf "$pv1" "$pv2"
on_exit "lvm_down $pv1 $pv2"
pvcreate -q -y "$pv1" "$pv2" >/dev/null || fail "pvcreate"
vgcreate -q $vg "$pv1" "$pv2" >/dev/null || fail "vgcreate"
lvcreate -q -y -L 512M -n a $vg "$pv1" >/dev/null || fail "lvcreate a"
lvcreate -q -y -L 512M -n b $vg "$pv2" >/dev/null || fail "lvcreate b"
on_exit "umount /mnt/lv-a; umount /mnt/lv-b"
bdis=("$(bdi_of "$(lv_node a)")" "$(bdi_of "$(lv_node b)")")
# on the series: LV a with 1 flusher, b with 4
na=- nb=-
if [ -e "/sys/class/bdi/${bdis[0]}/flushers" ]; then
	na=1 nb=4
	for b in "${bdis[@]}"; do on_exit "echo 0 > /sys/class/bdi/$b/flushers"; done
elif [ "${SERIES:-0}" = 1 ]; then
	fail "no /sys/class/bdi/${bdis[0]}/flushers for an LV"
fi
check a $na
check b $nb

lvremove -q -f $vg/a $vg/b >/dev/null || fail "lvremove"
for b in "${bdis[@]}"; do
	wait_until 30 gone "$b" || fail "flushers of $b left after lvremove: $(flushers_of "$b")"
done
vgremove -q -f $vg >/dev/null || fail "vgremove"
pvremove -q -y "$pv1" "$pv2" >/dev/null || fail "pvremove"
[ -z "$(vg_devs)" ] || fail "dm devices left: $(vg_devs | tr '\n' ' ')"
