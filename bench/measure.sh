# shellcheck shell=bash
# Guest-side measurements of a workload, sourced by bench/guest.sh after
# guest/lib.sh: how writeback shaped the I/O (from the disks' stat files and
# the block_rq_issue tracepoint, which do not depend on the emulated CPU's
# speed) and what it cost in CPU.
#   measure_start DEV...   before the workload
#   measure_end KEY DEV... after it (and its sync): prints KEY.* results
# Results (res lines):
#   KEY.write_reqs    write requests completed by the disks (stat field 5)
#   KEY.req_kB        mean size of a write request
#   KEY.merges        write requests merged into others (stat field 6)
#   KEY.seq_frac      fraction of issued write requests that start where the
#                     previous write request to the same disk ended
#   KEY.wb_cpu_ms_GiB CPU of the writeback threads per GiB written: flush-*
#                     and bdi-default, plus the unbound kworkers (stock's
#                     writeback runs there; they also run other work, so
#                     this is an upper bound on both kernels); their run
#                     time in ns from /proc/PID/schedstat, not the ticks of
#                     /proc/PID/stat, which sample a few ms of work badly
#   KEY.sys_cpu_ms_GiB system CPU (system + irq + softirq) of the guest per
#                     GiB written
#   KEY.irq_cpu_ms_GiB of it irq and softirq (I/O completions among them)
#   KEY.user_cpu_ms_GiB user CPU of the guest per GiB written: fio's own
#                     work, the same code on both kernels, so under TCG it
#                     shows how fast the emulator ran the guest in that run
# and how writeback ran, from the writeback tracepoints of the disks' bdis:
#   KEY.wb_rounds     writeback rounds (writeback_start: one per chunk of
#                     inodes a flusher or worker writes)
#   KEY.wb_bg_rounds, KEY.wb_periodic_rounds  of them background and
#                     periodic (kupdate) rounds
#   KEY.wb_wakeups    background writeback requested (writeback_wake_background)
#   KEY.wb_first_bg_s seconds from the start to the first background round
BENCH_TRACE=/sys/kernel/tracing/instances/bench

# disk_stat DEV...: write requests, merges and sectors summed over the disks
disk_stat() {
	local d
	for d in "$@"; do cat "/sys/class/block/$(blkname "$d")/stat"; done |
		awk '{r += $5; m += $6; s += $7} END {print r + 0, m + 0, s + 0}'
}
# wb_ns: "PID ns" (run time) of each writeback thread and unbound kworker;
# a process that exits meanwhile is skipped (awk given all the stat files
# would stop at the first that is gone, and the threads after it be lost)
wb_ns() {
	local d comm ns _
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null < "$d/comm" || continue
		case $comm in
		flush-* | bdi-default | kworker/u*)
			read -r ns _ 2>/dev/null < "$d/schedstat" && echo "${d#/proc/} $ns" ;;
		esac
	done
}
# wb_ms_since SNAPSHOT: ms run since the snapshot (of wb_ns) by the threads
# there are now (one started since counts from 0; one that exited in
# between is lost, which only undercounts: pids are not reused so soon)
wb_ms_since() {
	wb_ns | awk -v snap="$1" 'BEGIN {n = split(snap, a, "\n"); for (i = 1; i <= n; i++) {split(a[i], f, " "); t0[f[1]] = f[2]}}
		{t += $2 - t0[$1]} END {printf "%.3f\n", t / 1e6}'
}
# cpu_ticks: the guest's system (with irq and softirq), user and irq +
# softirq ticks
cpu_ticks() { awk '$1 == "cpu" {print $4 + $7 + $8, $2 + $3, $7 + $8}' /proc/stat; }
# per_gib MS SECTORS: MS per GiB of SECTORS (512 bytes) written
per_gib() { awk -v ms="$1" -v s="$2" 'BEGIN {printf "%.0f", ms / (s / 2097152)}'; }

measure_start() {
	[ -d $BENCH_TRACE ] || mkdir $BENCH_TRACE
	echo 0 > $BENCH_TRACE/tracing_on
	echo 16384 > $BENCH_TRACE/buffer_size_kb
	echo block:block_rq_issue > $BENCH_TRACE/set_event
	echo writeback:writeback_start >> $BENCH_TRACE/set_event
	echo writeback:writeback_wake_background >> $BENCH_TRACE/set_event
	echo > $BENCH_TRACE/trace
	echo 1 > $BENCH_TRACE/tracing_on
	echo bench_start > $BENCH_TRACE/trace_marker
	M_DISK=$(disk_stat "$@") M_WB=$(wb_ns) M_CPU=$(cpu_ticks)
}

measure_end() {
	local key=$1 devs d r0 m0 s0 r1 m1 s1 wb sys user irq
	shift
	echo 0 > $BENCH_TRACE/tracing_on
	read -r r0 m0 s0 <<< "$M_DISK"
	read -r r1 m1 s1 < <(disk_stat "$@")
	wb=$(wb_ms_since "$M_WB")
	# the guest's CPU in ms: ticks * 1000 / hz
	read -r sys user irq < <(echo "$M_CPU" "$(cpu_ticks)" |
		awk -v hz="$(getconf CLK_TCK)" '{f = 1000 / hz; print ($4 - $1) * f, ($5 - $2) * f, ($6 - $3) * f}')
	devs=$(for d in "$@"; do cat "/sys/class/block/$(blkname "$d")/dev"; done | tr ':' ',' | tr '\n' ' ')
	[ $r1 -gt $r0 ] || { echo "measure_end $key: no write requests" >&2; return 0; }
	res "$key.write_reqs" $((r1 - r0))
	res "$key.req_kB" "$(awk -v s=$((s1 - s0)) -v r=$((r1 - r0)) 'BEGIN {printf "%.1f", s / 2 / r}')"
	res "$key.merges" $((m1 - m0))
	grep -q 'overrun\|LOST' $BENCH_TRACE/trace && echo "measure_end $key: trace lost events" >&2
	res "$key.seq_frac" "$(awk -v devs=" $devs" '
		{ for (i = 1; i < NF; i++) if ($i == "block_rq_issue:") break }
		i < NF && index(devs, " " $(i + 1) " ") && $(i + 2) ~ /W/ {
			for (j = i + 3; j <= NF && $j != "+"; j++);
			if (j > NF || $(j + 1) == 0) next
			d = $(i + 1); s = $(j - 1); n++
			if ((d in end) && end[d] == s) seq++
			end[d] = s + $(j + 1)
		}
		END {printf "%.3f", n ? seq / n : 0}' $BENCH_TRACE/trace)"
	awk -v devs=" ${devs//,/:}" -v key="$key" '
		function t(i) { return substr($(i - 1), 1, length($(i - 1)) - 1) }
		/bench_start/ { for (i = 1; i < NF; i++) if ($i == "tracing_mark_write:") t0 = t(i) }
		{ for (i = 1; i < NF; i++) if ($i ~ /^writeback_(start|wake_background):$/) break }
		i < NF && $(i + 1) == "bdi" && index(devs, " " substr($(i + 2), 1, length($(i + 2)) - 1) " ") {
			if ($i == "writeback_wake_background:") { wake++; next }
			rounds++
			if ($0 ~ / reason=background /) { bg++; if (first == "") first = t(i) }
			if ($0 ~ / reason=periodic /) periodic++
		}
		END {
			printf "%s.wb_rounds %d\n%s.wb_bg_rounds %d\n", key, rounds, key, bg
			printf "%s.wb_periodic_rounds %d\n%s.wb_wakeups %d\n", key, periodic, key, wake
			if (first != "" && t0 != "") printf "%s.wb_first_bg_s %.2f\n", key, first - t0
		}' $BENCH_TRACE/trace | tee -a "$out"
	if [ -r /proc/self/schedstat ]; then
		res "$key.wb_cpu_ms_GiB" "$(per_gib "$wb" $((s1 - s0)))"
	else
		echo "measure_end $key: no /proc/PID/schedstat (CONFIG_SCHED_INFO), no writeback CPU" >&2
	fi
	res "$key.sys_cpu_ms_GiB" "$(per_gib "$sys" $((s1 - s0)))"
	res "$key.irq_cpu_ms_GiB" "$(per_gib "$irq" $((s1 - s0)))"
	res "$key.user_cpu_ms_GiB" "$(per_gib "$user" $((s1 - s0)))"
}

# direct_MBps BS RW SECS DEV...: O_DIRECT throughput of the disks at once
# (one fio job per disk, queue depth 8), from fio's own bandwidth figure:
# its start-up is not counted
direct_MBps() {
	local bs=$1 rw=$2 secs=$3 d args=()
	shift 3
	for d in "$@"; do args+=(--name="d$d" --filename="$d"); done
	fio --direct=1 --ioengine=libaio --iodepth=8 --rw="$rw" --bs="$bs" --randrepeat=1 --eta=never \
		--time_based --runtime="$secs" --group_reporting --output-format=json \
		--output=/tmp/direct.json "${args[@]}" >&2
	fio_json /tmp/direct.json 'print("%.2f" % (jobs[0]["write"]["bw_bytes"] / 1048576))'
}
# fio_json FILE CODE: run python CODE with "jobs" from fio's JSON in FILE
fio_json() {
	python3 -c "import json, sys
text = open(sys.argv[1]).read()
jobs = json.loads(text[text.index('{'):])['jobs']  # after fio's notes
$2" "$1" || { echo "bad fio output $1:" >&2; head -5 "$1" >&2; return 1; }
}
