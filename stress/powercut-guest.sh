#!/bin/bash
# Guest side of one power-cut cycle: powercut-guest.sh CYCLE [check]
# First checks what cycle CYCLE-1 recorded as durable (its journal replayed
# by a mount, then e2fsck -fn / xfs_repair -n, then every recorded file read
# back) and appends the counts to /run/out/checks. Unless "check", it then
# writes files on ext4 (scratch0) and XFS (scratch1) until QEMU is killed:
# two writers per filesystem, each file's content naming its path and
# generation; a file is recorded as durable in /run/out/durable-CYCLE (the
# host's disk) only after an fsync of it and its directory, or after a
# sync/syncfs that began after it was written. On the series the bdis'
# flushers change every half second.
. "$(dirname "$0")/../guest/lib.sh"
cycle=$1 mode=${2:-write} out=/run/out
fss=(ext4 xfs) devs=("$(scratch 0)" "$(scratch 1)") mnts=(/mnt/pc0 /mnt/pc1)
# gen_data PATH GEN SIZE: the content of generation GEN of PATH
gen_data() { yes "gen $2 of $1" | head -c "$3"; }
# check_prev: check what cycle CYCLE-1 recorded as durable
check_prev() {
	local prev=$out/durable-$((cycle - 1)) checked=0 lost=0 unclean=0 i
	for i in 0 1; do	# replay the log, check, mount again
		{ mount_dev ${fss[$i]} "${devs[$i]}" "${mnts[$i]}" && umount "${mnts[$i]}" &&
			fsck_fs ${fss[$i]} "${devs[$i]}"; } || { echo "${fss[$i]} not clean"; unclean=$((unclean + 1)); }
		mount_dev ${fss[$i]} "${devs[$i]}" "${mnts[$i]}" || fail "cannot mount ${fss[$i]}"
	done
	touch "$prev"
	while read -r path gen size; do
		checked=$((checked + 1))
		gen_data "$path" "$gen" "$size" | cmp -s - "$path" ||
			{ echo "lost or corrupt: $path (gen $gen, $size bytes)"; lost=$((lost + 1)); }
	done < "$prev"
	echo "cycle $((cycle - 1)): durable $checked, lost or corrupt $lost, unclean $unclean" | tee -a $out/checks
}

if [ "$cycle" = 1 ]; then
	for i in 0 1; do fresh_fs ${fss[$i]} "${devs[$i]}" "${mnts[$i]}"; done
elif grep -q "^cycle $((cycle - 1)):" $out/checks 2>/dev/null; then
	# a resumed run repeats a cycle whose check was done
	for i in 0 1; do mount_dev ${fss[$i]} "${devs[$i]}" "${mnts[$i]}" || fail "cannot mount ${fss[$i]}"; done
else
	check_prev
fi
# what was checked can go: the disks stay small
rm -rf "${mnts[0]}"/c* "${mnts[1]}"/c*
sync
[ "$mode" = check ] && exit 0

knobs=()
for i in 0 1; do
	k=/sys/class/bdi/$(bdi_of "${devs[$i]}")/flushers
	[ -w "$k" ] && knobs+=("$k")
done
[ ${#knobs[@]} = 0 ] ||
	( while :; do for k in "${knobs[@]}"; do echo $((RANDOM % 8 + 1)) > "$k"; done; sleep 0.5; done ) &

dur=$out/durable-$cycle
: > "$dur"
# writer I W: files of writer W on filesystem I, one in three fsynced
writer() {
	local d=${mnts[$1]}/c$cycle/w$2 k=0 f size
	mkdir -p "$d"
	while :; do
		f=$d/f$k size=$(( (RANDOM % 128 + 1) * 4096 ))
		gen_data "$f" "$cycle" "$size" > "$f"
		if [ $((RANDOM % 3)) = 0 ]; then
			sync "$f" "$d" && echo "$f $cycle $size" >> "$dur"
		else
			echo "$f $cycle $size" >> "/tmp/written-$1-$2"
		fi
		k=$((k + 1))
	done
}
for i in 0 1; do for w in 0 1; do writer $i $w & done; done
# syncer: what was written before a sync or syncfs began is durable after it
touch /tmp/recorded
( while :; do
	sleep 1
	cat /tmp/written-* 2>/dev/null | awk 'NF == 3' > /tmp/snap
	if [ $((RANDOM % 2)) = 0 ]; then sync; else sync -f "${mnts[0]}" "${mnts[1]}"; fi
	sort /tmp/snap | comm -13 /tmp/recorded - >> "$dur"
	sort -u /tmp/snap /tmp/recorded -o /tmp/recorded
  done ) &
touch $out/started
sleep infinity
