#!/bin/bash
# Guest side of `make fstests`: run fstests' check on scratch disks.
#   guest.sh FSTESTS_DIR FSTYP FLUSHERS TEST...
# TEST_DEV is scratch 0, SCRATCH_DEV scratch 1, SCRATCH_DEV_POOL scratch
# 1-4 for btrfs. FLUSHERS > 0: every bdi that appears while check runs
# gets that many flushers (the series' knob; a mount of the scratch fs
# makes a new bdi for btrfs). Each test runs on its own ("./check TEST")
# and its result is appended at once to /run/out/done.txt as "TEST STATUS
# SECONDS" (pass, fail, notrun); fstests' files go to /run/out/results.
set -u
. "$(dirname "$0")/../guest/lib.sh"
dir=$1 fstyp=$2 flushers=$3; shift 3

# fstests' users and groups, in writable copies of /etc/passwd and group
for f in passwd group; do
	cp /etc/$f /tmp/$f && mount --bind /tmp/$f /etc/$f || fail "writable /etc/$f"
done
uid=31000
for u in fsgqa 123456-fsgqa fsgqa2; do
	echo "$u:x:$uid:$uid::/tmp:/bin/bash" >> /etc/passwd
	echo "$u:x:$uid:" >> /etc/group
	uid=$((uid + 1))
done
busybox ip link set lo up 2>/dev/null

export FSTYP=$fstyp TEST_DIR=/mnt/test SCRATCH_MNT=/mnt/scratch
export TEST_DEV SCRATCH_DEV RESULT_BASE=/run/out/results
TEST_DEV=$(scratch 0)
if [ "$fstyp" = btrfs ]; then
	SCRATCH_DEV_POOL="$(scratch 1) $(scratch 2) $(scratch 3) $(scratch 4)"
	export SCRATCH_DEV_POOL
else
	SCRATCH_DEV=$(scratch 1)
fi
mkdir -p $TEST_DIR $SCRATCH_MNT
mkfs_opts=(-f); [ "$fstyp" = ext4 ] && mkfs_opts=(-F -q)
"mkfs.$fstyp" "${mkfs_opts[@]}" "$TEST_DEV" >/dev/null || fail "mkfs of TEST_DEV"

if [ "$flushers" -gt 0 ]; then
	[ -n "$(compgen -G "$FLUSHER_KNOBS")" ] || fail "FLUSHERS=$flushers: this kernel has no flushers knob"
	# every bdi, at once and whenever one appears
	(while :; do
		for k in /sys/class/bdi/*/flushers; do
			[ "$(cat "$k" 2>/dev/null)" = "$flushers" ] || echo "$flushers" > "$k" 2>/dev/null
		done
		sleep 0.5
	done) &
	setter=$!
	on_exit "kill $setter"
fi
cd "$dir" || fail "no fstests in $dir"
for t; do
	echo "guest: fstests $t" > /dev/kmsg
	start=$(date +%s)
	./check "$t" > "/tmp/check.out" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	r=$RESULT_BASE/$t
	if [ -f "$r.notrun" ]; then st=notrun
	elif [ -f "$r.out.bad" ] || [ -f "$r.dmesg" ] || [ $rc != 0 ]; then st=fail
	else st=pass
	fi
	cat /tmp/check.out
	echo "$t $st $secs" >> /run/out/done.txt
done
