#!/bin/bash
# timeout: 300
# sync -f returns while a writer keeps creating files: it writes what was
# dirty when it started, not what is dirtied after (livelock avoidance).
# With the series also while flusher creation fails (fault injection), when
# the sync is written back in bounded chunks without a flusher: each chunk
# must keep the sync's cut-off.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
dev=$(scratch 0) mnt=/mnt/syncw bdi=$(bdi_of "$dev")
fi_dir=$FLUSHER_FAULTS
bound=60
quiet_writeback
keep_dirty "$bdi"
on_exit "release_bdi $bdi"
fresh_fs ext4 "$dev" "$mnt"
on_exit "umount $mnt"
errs=()

# synced NAME: sync -f returns within the bound beside a writer (fio)
# that rewrites 256 files of 1 MB over and over as fast as it can: a file
# written by the sync is dirtied anew after the sync started. A sync that
# waits in the kernel does not end on a signal: poll for it.
synced() {
	local t0 secs w s mb d0
	mkdir -p "$mnt/$1"
	d0=$(awk '$1 == "nr_dirtied" {print $2}' /proc/vmstat)
	fio --name=w --directory="$mnt/$1" --nrfiles=256 --filesize=1m --bs=1m \
		--rw=write --ioengine=psync --time_based --runtime=$((bound + 10)) \
		--file_service_type=sequential --output=/dev/null &
	w=$!
	# fio takes seconds to start under emulation: wait for 64 MB dirtied
	wait_until 60 eval '[ $(( $(awk '\''$1 == "nr_dirtied" {print $2}'\'' /proc/vmstat) - d0 )) -ge 16384 ]' ||
		fail "$1: the writer did not start"
	t0=$(date +%s)
	sync -f "$mnt" & s=$!
	if wait_until $bound eval '! kill -0 $s 2>/dev/null'; then
		secs=$(( $(date +%s) - t0 ))
		say "$1: sync -f returned after ${secs}s"
	else
		errs+=("$1: sync -f did not return within ${bound}s beside a writer")
	fi
	kill -INT $w; wait $w 2>/dev/null
	wait $s
	mb=$(awk -v d0="$d0" '$1 == "nr_dirtied" {print int(($2 - d0) / 256)}' /proc/vmstat)
	say "$1: the writer dirtied $mb MB"
	[ "$mb" -ge 96 ] || errs+=("$1: the writer dirtied only $mb MB: the test shows nothing")
}

synced plain
if [ -e "$fi_dir" ]; then
	idle_all_flushers
	echo 0 > "$fi_dir/verbose"
	echo -1 > "$fi_dir/times"
	echo 100 > "$fi_dir/probability"
	on_exit "echo 0 > $fi_dir/probability"
	trace_on writeback:writeback_forker_fallback
	synced fallback
	no_flusher "$bdi" || errs+=("fallback: a flusher exists although creation fails")
	trace_text | grep -q "writeback_forker_fallback: bdi $bdi:" ||
		errs+=("fallback: no fallback writeback traced")
	echo 0 > "$fi_dir/probability"
elif [ "${SERIES:-0}" = 1 ]; then
	fail "the series' $fi_dir is missing"
fi
for e in "${errs[@]}"; do echo "FAIL: $e"; done
[ ${#errs[@]} = 0 ] || fail "${#errs[@]} checks failed"
sync
