#!/bin/bash
# needs: series
# Flushers and the forker do not freeze, as mainline's writeback has not
# since commit a2b90f112177
# ("bdi: Do not use freezable workqueue"): each
# has PF_NOFREEZE; a suspend cycle with pm_test set to "freezer", with
# dirty data pending, freezes and thaws every other task, and writeback
# goes on afterwards; writeback of a filesystem frozen with fsfreeze waits
# for the thaw and then completes.
. "$(dirname "$0")/../guest/lib.sh"
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
wait_until 30 eval '[ -n "$(threads "flush-$bdi")" ]' || fail "no flusher"
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

say "fsfreeze: writeback waits for the thaw"
quiet_writeback
ref=$(make_ref freeze.ref 4096)
cp "$ref" "$mnt/a/g"; cp "$ref" "$mnt/b/g"
fsfreeze -f "$mnt" || fail "fsfreeze -f"
sync -f "$mnt" & syncer=$!
sleep 3
kill -0 $syncer 2>/dev/null || fail "syncfs of a frozen fs returned before the thaw"
fsfreeze -u "$mnt" || fail "fsfreeze -u"
timeout 60 tail --pid=$syncer -f /dev/null || fail "syncfs did not finish after the thaw"
wait $syncer || fail "syncfs failed"
bdi_clean "$bdi" || fail "$(bdi_dirty_kb "$bdi") kB dirty after syncfs"
on_disk xfs "$dev" "$mnt" "$ref" a/g b/g
umount "$mnt"
release_bdi "$bdi"
