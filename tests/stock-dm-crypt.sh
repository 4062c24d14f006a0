#!/bin/bash
# timeout: 300
# dm-crypt as a Debian machine has it: LUKS2 with a key file (a fast
# PBKDF) on scratch 0, ext4 on the mapping, writers in a cgroup with the
# memory and io controllers. The ext4's bdi is the dm-crypt device's own,
# and the data written there must reach the disk beneath:
# - by fsync: dd conv=fsync from the cgroup;
# - by periodic writeback (expire 2 s, interval 1 s): the dm device's bdi
#   is clean within expire + interval + 5 s and the disk wrote at least
#   the file's size;
# then the fs is stopped dead (shutdown_noflush), the mapping closed and
# opened again, and both files read back. On the series the dm bdi's
# flusher ran (flush-<dm bdi>) and none is left once the mapping is closed.
# No udev here: DM_DISABLE_UDEV=1 has libdevmapper make the nodes itself
# instead of waiting for udev; LUKS2's lock directory is on the tmpfs /run.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_cgroup memory io
command -v cryptsetup >/dev/null || skip "no cryptsetup"
dmsetup targets 2>/dev/null | grep -qw crypt || skip "no dm-crypt target"
export DM_DISABLE_UDEV=1
disk=$(scratch 0) name=stockcrypt mnt=/mnt/crypt key=/tmp/crypt.key
cg=/sys/fs/cgroup
bound=8		# expire 2 s + interval 1 s + 5 s
ref=$(make_ref crypt.ref 4096)
head -c 64 /dev/urandom > $key
mkdir -p /run/cryptsetup
series=0
[ -e "$FLUSHER_THREADS" ] && series=1
[ $series = 1 ] || [ "${SERIES:-0}" != 1 ] || fail "the series' $FLUSHER_THREADS is missing"

in_cg() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg/dm" "$@"; }
# flushers_of BDI: the names of the bdi's flusher threads, all contexts
flushers_of() { ps -e -o comm= | awk -v n="flush-$1" '$1 == n || index($1, n "/") == 1' | sort | tr '\n' ' '; }
gone() { [ -z "$(flushers_of "$1")" ]; }
# open_crypt: map the LUKS volume; sets dev (its /dev/dm-N) and bdi
open_crypt() {
	cryptsetup open --key-file $key "$disk" $name || fail "cryptsetup open"
	dev=/dev/$(dmsetup info -c --noheadings -o blkdevname $name)
	bdi=$(bdi_of "$dev")
}
# no lazy inode table init: it would encrypt 64 MB in the background
mount_crypt() { mkdir -p $mnt && mount -t ext4 -o noinit_itable "$dev" $mnt || fail "mount $dev"; }

quiet_writeback
echo "+memory +io" > $cg/cgroup.subtree_control || fail "cannot enable memory and io controllers"
mkdir -p $cg/dm
on_exit "rmdir $cg/dm"
cryptsetup luksFormat --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--batch-mode --key-file $key "$disk" || fail "luksFormat of $disk"
on_exit "cryptsetup close $name || dmsetup remove --force $name"
open_crypt
on_exit "umount $mnt"
# a small journal: mkfs writes it all through dm-crypt
mkfs.ext4 -q -F -J size=8 "$dev" || fail "mkfs.ext4 on $dev"
mount_crypt
say "$name: $dev (bdi $bdi) over $disk ($(bdi_of "$disk"))"
keep_dirty "$bdi"

in_cg dd if="$ref" of=$mnt/fsync bs=64k conv=fsync status=none || fail "fsync from the cgroup"

echo 200 > /proc/sys/vm/dirty_expire_centisecs
echo 100 > /proc/sys/vm/dirty_writeback_centisecs
before=$(written_kb "$disk") t0=$(date +%s)
in_cg cp "$ref" $mnt/periodic || fail "write from the cgroup"
dirty=$(bdi_dirty_kb "$bdi")
[ "$dirty" -ge 2048 ] || fail "only $dirty kB dirty on $bdi after a 4 MB write: not the dm device's bdi?"
wait_until $bound bdi_clean "$bdi" ||
	fail "periodic: $(bdi_dirty_kb "$bdi") kB still dirty on $bdi after ${bound}s"
secs=$(( $(date +%s) - t0 )) wrote=$(( $(written_kb "$disk") - before ))
say "periodic: $bdi clean after ${secs}s, $disk wrote $wrote kB"
[ "$wrote" -ge 4096 ] || fail "periodic: $disk wrote only $wrote kB of the 4096 kB file"
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
release_bdi "$bdi"
if [ $series = 1 ]; then
	[ -n "$(flushers_of "$bdi")" ] || fail "no flusher of $bdi after its periodic writeback"
	say "flushers of $bdi: $(flushers_of "$bdi")"
fi
# the data is clean: this commits only the journal (the blocks that
# periodic writeback allocated), so that the file is there after replay
sync -f $mnt

shutdown_noflush $mnt
umount $mnt || fail "umount after shutdown"
cryptsetup close $name || fail "cryptsetup close"
wait_until 30 gone "$bdi" || fail "flushers of $bdi left after the close: $(flushers_of "$bdi")"
open_crypt
mount_crypt
drop_caches
for f in fsync periodic; do
	cmp "$ref" $mnt/$f || fail "$f differs after shutdown, close and open"
done
umount $mnt || fail "umount"
cryptsetup close $name || fail "cryptsetup close"
