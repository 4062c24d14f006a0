#!/bin/bash
# One benchmark pass inside the guest: W6, W1, W2, W3, W4, W5 (README.md,
# "Benchmarks"). Writes "key value" lines to /run/out/results.txt and the
# W2 time series to /run/out/w2-series.txt.
#   Disks: vda..vdj throttled like a SATA drive, vdk and vdl unthrottled.
#   DIV (env, 1 = full run, 4 = QUICK) divides every size and duration;
#   W (env) selects workloads (default: all, "W6 W1 W2 W3 W4 W4.cg W5").
. "$(dirname "$0")/../guest/lib.sh"
set -e
DIV=${DIV:-1}
W=${W:-"W6 W1 W2 W3 W4 W4.cg W5"}	# the workloads to run
want() { case " $W " in *" $1 "*) ;; *) return 1 ;; esac; }
out=/run/out/results.txt
: > "$out"
echo "$(uname -r) $(uname -v), $(nproc) cpus, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)" > /run/out/kernel.txt
res() { echo "$1 $2" | tee -a "$out"; }
mb() { echo $(($1 / DIV)); }			# a size in MB, scaled
now() { date +%s.%N; }
rate() { awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN {printf "%.2f", b / (t1 - t0)}'; }
slow=$(scratch 0) fast=$(scratch 10)
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# fiow DIR JOBNAME ARGS...: buffered fio write job of the bench's defaults
fiow() { fio --name="$2" --directory="$1" --ioengine=psync --group_reporting \
	--output=/dev/null "${@:3}"; }

# Kernel defaults for writeback (10%/20% of the guest's memory, 30 s expiry);
# the patched kernel has a flusher per bdi, default count.
if [ -e "$FLUSHER_THREADS" ]; then res kernel.flushers 1; else res kernel.flushers 0; fi

# W6: O_DIRECT limits of the devices: sequential 1 MB and random 64 kB.
if want W6; then
	say "W6 O_DIRECT"
	for d in slow:"$slow" fast:"$fast"; do
		name=${d%%:*} dev=${d#*:}
		size=$(mb 256); [ "$name" = slow ] && size=$(mb 64)
		t0=$(now)
		fio --name=w6 --filename="$dev" --direct=1 --ioengine=libaio --iodepth=8 \
			--rw=write --bs=1m --size="${size}m" --output=/dev/null
		res "W6.$name.seq_MBps" "$(rate "$size" "$t0" "$(now)")"
	done
	size=$(mb 16)
	t0=$(now)
	fio --name=w6r --filename="$slow" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bs=64k --size="${size}m" --randrepeat=1 --output=/dev/null
	res W6.slow.rand64k_MBps "$(rate "$size" "$t0" "$(now)")"
fi

# W1 (the seed's ffsb-like test): random 64 kB buffered writes over 16
# files on the slow disk, until all is on disk.
if want W1; then
	say "W1 random buffered writes, slow disk"
	fresh_fs ext4 "$slow" /mnt/w1
	size=$(mb 16)
	fiow /mnt/w1 layout --rw=write --bs=1m --nrfiles=16 --filesize="${size}m" --size="$((16 * size))m" --create_only=1
	settle
	t0=$(now)
	fiow /mnt/w1 w1 --rw=randwrite --bs=64k --nrfiles=16 --filesize="${size}m" \
		--size="$((16 * size))m" --file_service_type=random --randrepeat=1
	sync
	res W1.MBps "$(rate $((16 * size)) "$t0" "$(now)")"
	umount /mnt/w1
fi

# W2: creating 1 MB files without a pause; the slow disk's writeout
# sampled every second (vmstat's bo).
if want W2; then
	say "W2 file creation, writeout per second"
	fresh_fs ext4 "$slow" /mnt/w2
	settle
	secs=$((40 / DIV)); [ "$secs" -ge 10 ] || secs=10
	fiow /mnt/w2 w2 --rw=write --bs=1m --nrfiles=3000 --filesize=1m --size=3000m \
		--create_on_open=1 --openfiles=1 --file_service_type=sequential \
		--time_based --runtime="$secs" &
	pid=$!
	: > /run/out/w2-series.txt
	prev=$(written_kb "$slow") t=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		cur=$(written_kb "$slow") t=$((t + 1))
		echo "$t $((cur - prev))" >> /run/out/w2-series.txt
		prev=$cur
	done
	wait "$pid"
	# steady phase: from the first second with writeout to the end of creation
	awk '$2 > 0 {s = 1} s {n++; x += $2; xx += $2 * $2}
		END {m = x / n; sd = sqrt(xx / n - m * m);
		     printf "W2.mean_kBps %.0f\nW2.cv %.3f\n", m, sd / m}' /run/out/w2-series.txt | tee -a "$out"
	umount /mnt/w2
fi

# W3 (the seed's 10-disk test): ten ext4 filesystems on ten slow disks,
# written at once, until all is on disk.
if want W3; then
	say "W3 ten slow disks at once"
	size=$(mb 64)
	for i in $(seq 0 9); do fresh_fs ext4 "$(scratch "$i")" "/mnt/w3-$i"; done
	settle
	t0=$(now)
	for i in $(seq 0 9); do
		fiow "/mnt/w3-$i" w3 --rw=write --bs=1m --size="${size}m" &
	done
	wait
	sync
	res W3.MBps "$(rate $((10 * size)) "$t0" "$(now)")"
	for i in $(seq 0 9); do umount "/mnt/w3-$i"; done
fi

# W4 (upstream's parallel writeback): XFS with 4 AGs on the fast disk,
# 4 writers, a file each in a directory each (XFS spreads new directories
# over the AGs). With flushers 1, 2 and 4 where the kernel has the knob.
# W4.cg: the same with the writers in a child cgroup with the memory and
# io controllers on, as systemd runs them.
counts=1
knob=/sys/class/bdi/$(bdi_of "$fast")/flushers
[ -e "$knob" ] && counts="1 2 4"
size=$(mb 128)
w4() {		# w4 KEY CGROUP: the W4 runs, writers in CGROUP ("" for the root)
	local n j t0 ext f procs=/sys/fs/cgroup/$2/cgroup.procs
	for n in $counts; do
		mkfs.xfs -q -f -d agcount=4 "$fast"
		mount_dev xfs "$fast" /mnt/w4
		[ -e "$knob" ] && echo "$n" > "$knob"
		for j in 0 1 2 3; do mkdir "/mnt/w4/d$j"; done
		settle
		t0=$(now)
		for j in 0 1 2 3; do
			(echo $BASHPID > "$procs" && fiow "/mnt/w4/d$j" w4 --rw=write --bs=1m --size="${size}m") &
		done
		wait
		sync
		res "$1.f$n.MBps" "$(rate $((4 * size)) "$t0" "$(now)")"
		ext=0
		for f in /mnt/w4/d*/w4*; do
			ext=$((ext + $(xfs_bmap "$f" | grep -vc -e ':$' -e 'hole')))
		done
		res "$1.f$n.extents_per_file" "$(awk -v e=$ext 'BEGIN {printf "%.1f", e / 4}')"
		umount /mnt/w4
	done
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
		local k0 t0
		k0=$(written_kb "$fast") t0=$(now)
		fiow /mnt/w5f "$1" --rw=write --bs=1m --size="${size}m"
		sync -f /mnt/w5f
		rate $(( ($(written_kb "$fast") - k0) / 1024 )) "$t0" "$(now)"
	}
	settle
	alone=$(fast_rate alone)
	settle
	fiow /mnt/w5s slow --rw=write --bs=1m --size="$(mb 512)m" &
	pid=$!
	sleep 2
	together=$(fast_rate together)
	wait "$pid"
	res W5.fast_alone_MBps "$alone"
	res W5.fast_with_slow_MBps "$together"
	res W5.fraction "$(awk -v a="$alone" -v b="$together" 'BEGIN {printf "%.3f", b / a}')"
	sync
	umount /mnt/w5s /mnt/w5f
fi
say "done"
res bench.done 1
