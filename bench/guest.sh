#!/bin/bash
# One benchmark pass inside the guest: W6, W1, W2, W3, W4, W4.cg, W5, L and
# W4S (README.md, "Benchmarks"). Writes "key value" lines to
# /run/out/results.txt and the W2 time series to /run/out/w2-series.txt.
#   Disks: vda..vdj throttled like a SATA drive, vdk and vdl unthrottled.
#   DIV (env, 1 = full run, 4 = QUICK) divides every size and duration;
#   W (env) selects workloads (default: all but W4S).
# Every write workload also reports how the I/O was shaped and its CPU cost
# (bench/measure.sh).
. "$(dirname "$0")/../guest/lib.sh"
. "$(dirname "$0")/measure.sh"
set -e
DIV=${DIV:-1}
W=${W:-"W6 W1 W2 W3 W4 W4.cg W5 L"}	# the workloads to run
want() { case " $W " in *" $1 "*) ;; *) return 1 ;; esac; }
out=/run/out/results.txt
: > "$out"
echo "$(uname -r) $(uname -v), $(nproc) cpus, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)" > /run/out/kernel.txt
res() { echo "$1 $2" | tee -a "$out"; }
mb() { echo $(($1 / DIV)); }			# a size in MB, scaled
now() { date +%s.%N; }
rate() { awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN {printf "%.2f", b / (t1 - t0)}'; }
elapsed() { awk -v t0="$1" -v t1="$(now)" 'BEGIN {printf "%.2f", t1 - t0}'; }
slow=$(scratch 0) slow1=$(scratch 1) fast=$(scratch 10)
ten=(); for i in $(seq 0 9); do ten+=("$(scratch "$i")"); done
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# fiow DIR JOBNAME ARGS...: buffered fio write job of the bench's defaults
fiow() { fio --name="$2" --directory="$1" --ioengine=psync --group_reporting \
	--eta=never --output=/dev/null "${@:3}"; }
# Timed from the first write: fio's start-up is left out (Debian's fio links
# Ceph's libraries, whose start-up costs about a second of CPU per fio
# process under TCG, more than writing W4's 512 MB). A timed fio logs every
# write ("${logw[@]}": unix ms, ns of latency); first_write LAUNCHED then
# sets t0 to when the first write began and startup to the seconds from
# LAUNCHED to it.
wlog=/tmp/wlog
logw=(--write_lat_log="$wlog" --log_unix_epoch=1)
first_write() {
	t0=$(awk -F, 'NR == 1 || $1 - $2 / 1e6 < t {t = $1 - $2 / 1e6}
		END {printf "%.3f", t / 1000}' "$wlog"_lat.*.log)
	startup=$(awk -v a="$1" -v b="$t0" 'BEGIN {printf "%.2f", b - a}')
	rm -f "$wlog"_*
}
# writers DIR N MB NAME CGROUP: N sequential writers of MB each, a file
# each in DIR/d0..d<N-1>, in CGROUP ("" for the root), timed: one fio
# process that forks a job per writer.
writers() {
	local launched
	launched=$(now)
	(
		[ -z "$5" ] || echo "$BASHPID" > "/sys/fs/cgroup/$5/cgroup.procs"
		fiow "$1" "$4" --filename_format='d$jobnum/$jobname.$filenum' \
			--numjobs="$2" --rw=write --bs=1m --size="${3}m" "${logw[@]}"
	)
	first_write "$launched"
}
dsecs=$((20 / DIV)); [ "$dsecs" -ge 5 ] || dsecs=5	# O_DIRECT run length

# Kernel defaults for writeback (10%/20% of the guest's memory, 30 s expiry);
# the patched kernel has a flusher per bdi, default count.
if [ -e "$FLUSHER_THREADS" ]; then res kernel.flushers 1; else res kernel.flushers 0; fi

# W6: O_DIRECT limits of the disks with each workload's request size and
# disks (W1: random 64 kB; W2: sequential 1 MB; W3: ten disks at once; W4:
# four jobs; W5: the fast disk), time-based runs of DSECS from fio's own
# bandwidth figures. Buffered throughput is reported against these.
if want W6; then
	say "W6 O_DIRECT limits"
	res W6.slow.rand64k_MBps "$(direct_MBps 64k randwrite $dsecs "$slow")"
	res W6.slow.seq_MBps "$(direct_MBps 1m write $dsecs "$slow")"
	res W6.ten.seq_MBps "$(direct_MBps 1m write $dsecs "${ten[@]}")"
	res W6.fast.seq_MBps "$(direct_MBps 1m write $dsecs "$fast")"
	res W6.fast.seq4_MBps "$(direct_MBps 1m write $dsecs "$fast" "$fast" "$fast" "$fast")"
fi

# W1 (the seed's ffsb-like test): random 64 kB buffered writes over 16
# files on the slow disk, until all is on disk.
if want W1; then
	say "W1 random buffered writes, slow disk"
	fresh_fs ext4 "$slow" /mnt/w1
	size=$(mb 16)
	fiow /mnt/w1 layout --rw=write --bs=1m --nrfiles=16 --filesize="${size}m" --size="$((16 * size))m" --create_only=1
	settle
	measure_start "$slow"
	launched=$(now)
	fiow /mnt/w1 w1 --rw=randwrite --bs=64k --nrfiles=16 --filesize="${size}m" \
		--size="$((16 * size))m" --file_service_type=random --randrepeat=1 "${logw[@]}"
	first_write "$launched"
	sync
	res W1.MBps "$(rate $((16 * size)) "$t0" "$(now)")"
	res W1.startup_s "$startup"
	measure_end W1 "$slow"
	umount /mnt/w1
fi

# W2: creating 1 MB files without a pause; the slow disk's writeout
# sampled about every second, with the guest's dirty and writeback kB
# (w2-series.txt: seconds since the start, kB/s written since the last
# sample, kB dirty, kB under writeback).
if want W2; then
	say "W2 file creation, writeout per second"
	fresh_fs ext4 "$slow" /mnt/w2
	settle
	secs=$((40 / DIV)); [ "$secs" -ge 10 ] || secs=10
	measure_start "$slow"
	fiow /mnt/w2 w2 --rw=write --bs=1m --nrfiles=3000 --filesize=1m --size=3000m \
		--create_on_open=1 --openfiles=1 --file_service_type=sequential \
		--time_based --runtime="$secs" &
	pid=$!
	: > /run/out/w2-series.txt
	# a sample takes about 1.25 s under TCG, not 1 s: each is timed
	t0=$(now) tp=$t0 prev=$(written_kb "$slow")
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		cur=$(written_kb "$slow") tc=$(now)
		awk -v a="$t0" -v b="$tc" -v p="$tp" -v k=$((cur - prev)) '$1 ~ /^nr_(dirty|writeback)$/ {m[$1] = $2 * 4}
			END {printf "%.2f %.0f %d %d\n", b - a, k / (b - p), m["nr_dirty"], m["nr_writeback"]}' \
			/proc/vmstat >> /run/out/w2-series.txt
		prev=$cur tp=$tc
	done
	wait "$pid"
	sync
	measure_end W2 "$slow"
	# steady phase: from the first sample with writeout to the end of
	# creation; the mean weighs each sample by its length
	awk '$2 > 0 {s = 1} s {n++; dt = $1 - t; x += $2 * dt; T += dt; r[n] = $2} {t = $1}
		END {m = x / T; for (i = 1; i <= n; i++) v += (r[i] - m) ^ 2
		     printf "W2.mean_kBps %.0f\nW2.cv %.3f\nW2.written_MB %.0f\n", m, sqrt(v / n) / m, x / 1024}' \
		/run/out/w2-series.txt | tee -a "$out"
	umount /mnt/w2
fi

# W3 (the seed's 10-disk test): ten ext4 filesystems on ten slow disks,
# written at once, until all is on disk.
if want W3; then
	say "W3 ten slow disks at once"
	size=$(mb 64)
	for i in $(seq 0 9); do fresh_fs ext4 "$(scratch "$i")" "/mnt/w3/d$i"; done
	settle
	measure_start "${ten[@]}"
	writers /mnt/w3 10 "$size" w3 ""
	sync
	res W3.MBps "$(rate $((10 * size)) "$t0" "$(now)")"
	res W3.startup_s "$startup"
	measure_end W3 "${ten[@]}"
	for i in $(seq 0 9); do umount "/mnt/w3/d$i"; done
fi

# W4 (upstream's parallel writeback): XFS with 4 AGs on the fast disk,
# 4 writers, a file each in a directory each (XFS spreads new directories
# over the AGs). With flushers 1, 2 and 4 where the kernel has the knob;
# stock runs the same three times, so that each run is compared with
# stock's run in the same place in the boot (a boot's first XFS run is the
# slowest on both kernels). W4.cg: the same with the writers in a child
# cgroup with the memory and io controllers on, as systemd runs them.
counts="1 2 4"
knob=/sys/class/bdi/$(bdi_of "$fast")/flushers
size=$(mb 128)
w4() {		# w4 KEY CGROUP: the W4 runs, writers in CGROUP ("" for the root)
	local n j ext f
	for n in $counts; do
		mkfs.xfs -q -f -d agcount=4 "$fast"
		mount_dev xfs "$fast" /mnt/w4
		[ -e "$knob" ] && echo "$n" > "$knob"
		for j in 0 1 2 3; do mkdir "/mnt/w4/d$j"; done
		settle
		measure_start "$fast"
		writers /mnt/w4 4 "$size" w4 "$2"
		sync
		res "$1.f$n.MBps" "$(rate $((4 * size)) "$t0" "$(now)")"
		res "$1.f$n.startup_s" "$startup"
		measure_end "$1.f$n" "$fast"
		ext=0
		for f in /mnt/w4/d*/w4*; do
			ext=$((ext + $(xfs_bmap "$f" | grep -vc -e ':$' -e 'hole')))
		done
		res "$1.f$n.extents_per_file" "$(awk -v e=$ext 'BEGIN {printf "%.1f", e / 4}')"
		umount /mnt/w4
	done
	[ -e "$knob" ] && echo 1 > "$knob"
	return 0
}
if want W4; then
	say "W4 parallel writers, XFS, fast disk"
	w4 W4 ""
fi
if want W4.cg; then
	say "W4.cg the same, writers in a child cgroup"
	echo "+memory +io" > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/w4
	w4 W4.cg w4
	rmdir /sys/fs/cgroup/w4
fi

# W5 (isolation): the fast disk's writeout rate while the slow disk has
# a backlog, as a fraction of its rate alone.
if want W5; then
	say "W5 slow and fast disk at once"
	fresh_fs ext4 "$slow" /mnt/w5s
	fresh_fs ext4 "$fast" /mnt/w5f
	size=$(mb 256)
	fast_rate() {		# fast_rate NAME: write SIZE MB to the fast fs, syncfs it
		local k0 launched
		k0=$(written_kb "$fast") launched=$(now)
		fiow /mnt/w5f "$1" --rw=write --bs=1m --size="${size}m" "${logw[@]}"
		first_write "$launched"
		sync -f /mnt/w5f
		rate $(( ($(written_kb "$fast") - k0) / 1024 )) "$t0" "$(now)"
	}
	settle
	alone=$(fast_rate alone)
	settle
	measure_start "$slow" "$fast"
	fiow /mnt/w5s slow --rw=write --bs=1m --size="$(mb 512)m" &
	pid=$!
	sleep 2
	together=$(fast_rate together)
	wait "$pid"
	sync
	measure_end W5 "$slow" "$fast"
	res W5.fast_alone_MBps "$alone"
	res W5.fast_with_slow_MBps "$together"
	res W5.fraction "$(awk -v a="$alone" -v b="$together" 'BEGIN {printf "%.3f", b / a}')"
	umount /mnt/w5s /mnt/w5f
fi

# L: latency. fsync=1 4 kB writes (fio's sync latency percentiles) while a
# buffered writer fills the same slow disk and background writeback runs;
# then syncfs of a small backlog on a second slow disk, alone and beside a
# large backlog on the first, and sync(1) of the large backlog.
if want L; then
	say "L fsync latency under a buffered writer; sync beside a backlog"
	fresh_fs ext4 "$slow" /mnt/l0
	fresh_fs ext4 "$slow1" /mnt/l1
	settle
	fiow /mnt/l0 fill --rw=write --bs=1m --size="$(mb 1024)m" &
	pid=$!
	sleep 3
	fio --name=small-fsync --directory=/mnt/l0 --ioengine=psync --rw=write --bs=4k --size=64m \
		--fsync=1 --invalidate=0 --time_based --runtime=$((30 / DIV)) --eta=never \
		--output-format=json --output=/tmp/fsync.json
	fio_json /tmp/fsync.json 'lat = jobs[0]["sync"]["lat_ns"]
for name, key in (("p50", "50.000000"), ("p99", "99.000000")):
	print("L.fsync_%s_ms %.2f" % (name, lat["percentile"][key] / 1e6))
print("L.fsync_max_ms %.2f" % (lat["max"] / 1e6))' | tee -a "$out"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	sync
	small() {	# small NAME: syncfs time of 16 MB just written to /mnt/l1
		local t0
		fiow /mnt/l1 "$1" --rw=write --bs=1m --size=16m
		t0=$(now)
		sync -f /mnt/l1
		elapsed "$t0"
	}
	res L.syncfs_small_alone_s "$(small alone)"
	fiow /mnt/l0 backlog --rw=write --bs=1m --size="$(mb 1024)m" &
	pid=$!
	sleep 5
	res L.syncfs_small_beside_backlog_s "$(small beside)"
	wait "$pid"
	t0=$(now)
	sync
	res L.sync_backlog_s "$(elapsed "$t0")"
	umount /mnt/l0 /mnt/l1
fi

# W4S (scaling): XFS with 8 AGs on the fast disk, N = 1, 2, 4, 8 writers
# (a directory each) and, where the kernel has the knob, N flushers; the
# same bytes in all. Keys name the guest's CPUs: run at SMP=1 and SMP=2.
if want W4S; then
	say "W4S writers and flushers 1-8, XFS 8 AGs, fast disk"
	cpus=$(nproc) total=$(mb 512)
	for n in 1 2 4 8; do
		mkfs.xfs -q -f -d agcount=8 "$fast"
		mount_dev xfs "$fast" /mnt/w4s
		[ -e "$knob" ] && echo "$n" > "$knob"
		for j in $(seq 0 $((n - 1))); do mkdir "/mnt/w4s/d$j"; done
		settle
		measure_start "$fast"
		writers /mnt/w4s "$n" $((total / n)) w4s ""
		sync
		res "W4S.cpu$cpus.n$n.MBps" "$(rate "$total" "$t0" "$(now)")"
		measure_end "W4S.cpu$cpus.n$n" "$fast"
		umount /mnt/w4s
	done
	[ -e "$knob" ] && echo 1 > "$knob"
fi
say "done"
res bench.done 1
