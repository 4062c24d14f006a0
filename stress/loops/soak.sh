#!/bin/bash
# timeout: 2700
# Soak: MINUTES (30; QUICK=1: 3) of stress-ng file-system stressors on ext4
# and XFS on two disks at once, XFS's in a child cgroup with the memory
# and io controllers on and memory.max 512M (as systemd runs services), while the writeback
# workqueue's cpumask and, on the series, the bdis' flushers,
# flusher_cpumask and flusher_nice and vm.flusher_idle_centisecs change at
# random every 1-4 s, sync and syncfs run in a loop, and one filesystem is
# frozen and thawed every 30 s. No kernel complaint (judged on the console),
# no hung task, stress-ng's stressors all pass, both filesystems check
# clean at the end.
. "$(dirname "$0")/../../guest/lib.sh"
require_scratch 2
command -v stress-ng >/dev/null || skip "no stress-ng"
minutes=${MINUTES:-30}; [ "${QUICK:-0}" = 1 ] && minutes=3
secs=$((minutes * 60))
devs=("$(scratch 0)" "$(scratch 1)") fss=(ext4 xfs) mnts=(/mnt/soak0 /mnt/soak1)
for i in 0 1; do fresh_fs ${fss[$i]} "${devs[$i]}" "${mnts[$i]}"; done
knobs=() masks=() nices=()
for i in 0 1; do
	b=/sys/class/bdi/$(bdi_of "${devs[$i]}")
	[ -w "$b/flushers" ] && knobs+=("$b/flushers")
	[ -w "$b/flusher_cpumask" ] && masks+=("$b/flusher_cpumask") nices+=("$b/flusher_nice")
done
restore "${masks[@]}" "${nices[@]}"
wqmask=/sys/devices/virtual/workqueue/writeback/cpumask
restore $wqmask
allcpus=$(( (1 << $(nproc)) - 1 ))
# a random CPU mask out of the online CPUs, in hex
randmask() { printf '%x\n' $((RANDOM % allcpus + 1)); }
cg=/sys/fs/cgroup/soak
echo "+memory +io" > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg
echo 512M > $cg/memory.max
on_exit "rmdir $cg"

pids=()
for i in 0 1; do
	mkdir -p "${mnts[$i]}/ng"
	(
		[ $i = 1 ] && echo $BASHPID > $cg/cgroup.procs
		exec stress-ng --temp-path "${mnts[$i]}/ng" --timeout "${secs}s" --metrics-brief \
			--hdd 2 --hdd-bytes 64M --sync-file 1 --sync-file-bytes 32M \
			--fiemap 1 --dirdeep 1 --dirdeep-inodes 2000 --rename 1 \
			--fallocate 1 --fallocate-bytes 32M > "/tmp/ng$i.log" 2>&1
	) &
	pids+=($!)
done
changes=0 syncs=0 freezes=0
( n=0
  while :; do
	for k in "${knobs[@]}"; do echo $((RANDOM % 8 + 1)) > "$k"; done
	for k in "${masks[@]}"; do
		if [ $((RANDOM % 4)) = 0 ]; then echo default; else randmask; fi > "$k"
	done
	for k in "${nices[@]}"; do
		if [ $((RANDOM % 4)) = 0 ]; then echo default; else echo $((RANDOM % 30 - 10)); fi > "$k"
	done
	randmask > $wqmask
	[ -w "$IDLE" ] && echo $((RANDOM % 2900 + 100)) > "$IDLE"
	n=$((n + 1)); echo $n > /tmp/changes
	sleep $((RANDOM % 4 + 1))
  done ) &
churn=$!
( n=0
  while :; do
	sync; sync -f /mnt/soak0; sync -f /mnt/soak1
	n=$((n + 1)); echo $n > /tmp/syncs; sleep 1
  done ) &
syncer=$!
on_exit "kill $churn $syncer 2>/dev/null; fsfreeze -u /mnt/soak0 2>/dev/null; fsfreeze -u /mnt/soak1 2>/dev/null"
end=$(( $(date +%s) + secs ))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 30
	m=${mnts[$((freezes % 2))]}
	fsfreeze -f "$m" || fail "freeze $m"
	sleep 2
	fsfreeze -u "$m" || fail "thaw $m"
	freezes=$((freezes + 1))
done
ngfail=0
for i in 0 1; do
	wait "${pids[$i]}" || { echo "stress-ng on ${fss[$i]} exit $?:"; tail -15 "/tmp/ng$i.log"; ngfail=$((ngfail + 1)); }
done
kill $churn $syncer 2>/dev/null; wait $churn $syncer 2>/dev/null
changes=$(cat /tmp/changes 2>/dev/null || echo 0) syncs=$(cat /tmp/syncs 2>/dev/null || echo 0)
# the child cgroup's writes reached XFS's disk as its own (cgroup writeback)
cgw=$(awk -v d="$(cat "/sys/class/block/$(blkname "${devs[1]}")/dev")" '$1 == d {
	for (i = 2; i <= NF; i++) if ($i ~ /^wbytes=/) {sub(/wbytes=/, "", $i); print int($i / 1048576)}}' $cg/io.stat)
unclean=0
for i in 0 1; do
	umount "${mnts[$i]}" || fail "umount ${mnts[$i]}"
	fsck_fs ${fss[$i]} "${devs[$i]}" || { echo "${fss[$i]} not clean (above)"; unclean=$((unclean + 1)); }
done
grep -h "stress-ng: info: .*\(hdd\|sync-file\|fiemap\|dirdeep\|rename\|fallocate\) " /tmp/ng0.log /tmp/ng1.log | head -14
echo "counts: soak $minutes min, knob changes $changes ($([ ${#knobs[@]} -gt 0 ] && echo "wq cpumask, flushers, placement and idle" || echo "wq cpumask only")), sync rounds $syncs, freezes $freezes, MB written by the cgroup ${cgw:-0}, stress-ng failures $ngfail, unclean filesystems $unclean"
[ "${cgw:-0}" -gt 0 ] || fail "no writes of the child cgroup in its io.stat"
[ $ngfail = 0 ] || fail "stress-ng failed on $ngfail filesystems"
[ $unclean = 0 ] || fail "$unclean filesystems not clean"
