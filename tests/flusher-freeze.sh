#!/bin/bash
# Flushers and the forker do not freeze, as mainline's writeback has not
# since commit a2b90f112177
# ("bdi: Do not use freezable workqueue"): each
# has PF_NOFREEZE; a suspend cycle with pm_test set to "freezer", with
# dirty data pending, freezes and thaws every other task, and writeback
# goes on afterwards; while a filesystem is frozen with fsfreeze, its
# writers wait and another disk is written back; after the thaw the data
# reaches the disk.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 4
require_file "$FLUSHER_THREADS"
[ -f /sys/power/pm_test ] || fail "no /sys/power/pm_test"
PF_NOFREEZE=$((0x00008000))
nofreeze() { [ $(( $(awk '{print $9}' "/proc/$1/stat") & PF_NOFREEZE )) -ne 0 ]; }
dev=$(scratch 3) bdi=$(bdi_of "$dev") mnt=/mnt/freeze
quiet_writeback
keep_dirty "$bdi"
fresh_fs xfs "$dev" "$mnt"
echo 2 > "/sys/class/bdi/$bdi/flushers"
mkdir "$mnt/a" "$mnt/b"
dd if=/dev/zero of="$mnt/a/f" bs=1M count=8 status=none
dd if=/dev/zero of="$mnt/b/f" bs=1M count=8 status=none
wait_thread 30 "flush-$bdi" || fail "no flusher"
pids="$(threads bdi-default) $(ps -e -o pid=,comm= | awk '$2 ~ /^flush-/ {print $1}')"
[ "$(echo $pids | wc -w)" -ge 3 ] || fail "want the forker and 2+ flushers, have: $pids"
for p in $pids; do
	nofreeze "$p" || fail "$(cat /proc/$p/comm) ($p) lacks PF_NOFREEZE: flags $(awk '{print $9}' /proc/$p/stat)"
done
say "PF_NOFREEZE on $(echo $pids | wc -w) threads"

say "pm_test=freezer with dirty data"
[ "$(bdi_dirty_kb "$bdi")" -gt $SLACK_KB ] || fail "nothing dirty before the freeze"
echo freezer > /sys/power/pm_test
dmesg -C
echo freeze > /sys/power/state || fail "suspend (pm_test=freezer) failed: $(dmesg | tail -5)"
echo none > /sys/power/pm_test
dmesg | grep -q "Freezing remaining freezable tasks" || fail "no freezing in dmesg: $(dmesg | tail -5)"
dmesg | grep -qi "refused to freeze\|Freezing.*failed" && fail "a task refused to freeze: $(dmesg | grep -i -A3 refused)"
echo 100 > /proc/sys/vm/dirty_expire_centisecs
echo 50 > /proc/sys/vm/dirty_writeback_centisecs
wait_until 30 bdi_clean "$bdi" || fail "writeback did not go on after thaw"

say "fsfreeze: writers wait for the thaw, other disks' writeback goes on"
quiet_writeback
ref=$(make_ref freeze.ref 4096)
odev=$(scratch 2) obdi=$(bdi_of "$(scratch 2)")
fresh_fs ext4 "$odev" /mnt/other
fsfreeze -f "$mnt" || fail "fsfreeze -f"
(cp "$ref" "$mnt/a/g" && cp "$ref" "$mnt/b/g") & writer=$!
sleep 2
kill -0 $writer 2>/dev/null || fail "a write to a frozen fs went through"
cp "$ref" /mnt/other/g
timeout 60 sync -f /mnt/other || fail "syncfs of another disk hung while $mnt is frozen"
bdi_clean "$obdi" || fail "$(bdi_dirty_kb "$obdi") kB dirty on $obdi after its syncfs"
fsfreeze -u "$mnt" || fail "fsfreeze -u"
timeout 60 tail --pid=$writer -f /dev/null || fail "the writer did not finish after the thaw"
wait $writer || fail "the writer failed"
timeout 60 sync -f "$mnt" || fail "syncfs after the thaw hung"
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after syncfs"
on_disk ext4 "$odev" /mnt/other "$ref" g
umount /mnt/other
on_disk xfs "$dev" "$mnt" "$ref" a/g b/g
umount "$mnt"
release_bdi "$bdi"
