#!/bin/bash
# Summarise a bench run: report.sh RUNDIR NAME
# RUNDIR holds setup.txt and one directory per boot, stock-N and patched-N
# (and stock-N.smp1, patched-N.smp1), each with results.txt ("key value"
# lines) and w2-series.txt, and optionally remarks.txt (lines added to the
# setup list). Writes bench/results/NAME.md, NAME-ratios.png, NAME-w2.png
# and NAME-scaling.png.
#
# Ratios are patched/stock of the passes with the same number; the interval
# is the distribution-free confidence interval of their median (order
# statistics of the binomial(n, 1/2)): about 95%, its exact coverage shown.
# An interval that includes 1.00 reads "no difference measured".
set -eu
. "$(dirname "$0")/../scripts/common.sh"
runs=$1 name=$2
res=$TOP/bench/results
mkdir -p "$res"
md=$res/$name.md tab=$runs/table.tsv

# One row per metric: key; stock median/min/max; patched median/min/max;
# ratio median, interval low/high, its coverage (%), pairs. A patched
# metric W4.fN.* (W4.cg.fN.*) that stock lacks (runs from before stock ran
# W4 three times) is compared with stock's W4.f1.* (W4.cg.f1.*).
for f in "$runs"/*-[0-9]*/results.txt; do
	d=$(basename "$(dirname "$f")")
	awk -v k="${d%%-*}" -v r="${d#*-}" '$1 !~ /^(kernel|bench)\./ {print k, r, $1, $2}' "$f"
	# W2's writeout during creation in all, for runs whose guest did not
	# report it: their samples were about 1.25 s apart under TCG, not 1 s,
	# and their number varied with the guest's load, so the sum compares
	# where their per-sample mean (W2.mean_kBps) cannot
	[ ! -s "${f%/*}/w2-series.txt" ] || grep -q '^W2.written_MB ' "$f" || awk -v k="${d%%-*}" -v r="${d#*-}" '$2 > 0 {s = 1} s {x += $2}
		END {printf "%s %s W2.written_MB %.0f\n", k, r, x / 1024}' "${f%/*}/w2-series.txt"
done | awk '
function srt(s, a,   n, i, j, t) {	# split s into a, sorted (POSIX awk)
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n
}
function med(s,   a, n) {
	n = srt(s, a)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x) {	# 3-4 significant digits, no exponent
	x += 0
	return sprintf(x >= 100 || x <= -100 ? "%.0f" : x >= 10 || x <= -10 ? "%.1f" : "%.3g", x)
}
function lo(s,   a) { srt(s, a); return a[1] }
function hi(s,   a, n) { n = srt(s, a); return a[n] }
function below(n, k,   i, c, p) {	# P(binomial(n, 1/2) < k)
	p = 0; c = 1
	for (i = 0; i < k; i++) { p += c; c = c * (n - i) / (i + 1) }
	return p / 2 ^ n
}
{ v[$1, $3, $2] = $4; reps[$2]; if (!($3 in seen)) { seen[$3]; keys[nk++] = $3 } }
END {
	for (i = 0; i < nk; i++) {
		key = keys[i]; skey = key
		if (!(("stock", key, 1) in v)) sub(/\.f[0-9]+\./, ".f1.", skey)
		s = p = q = ""
		for (r in reps) {
			if (("stock", skey, r) in v) s = s " " v["stock", skey, r]
			if (("patched", key, r) in v) p = p " " v["patched", key, r]
			if (("stock", skey, r) in v && ("patched", key, r) in v && v["stock", skey, r] != 0)
				q = q " " v["patched", key, r] / v["stock", skey, r]
		}
		printf "%s", key
		printf "\t%s\t%s\t%s", s == "" ? "-" : fmt(med(s)), s == "" ? "-" : fmt(lo(s)), s == "" ? "-" : fmt(hi(s))
		printf "\t%s\t%s\t%s", p == "" ? "-" : fmt(med(p)), p == "" ? "-" : fmt(lo(p)), p == "" ? "-" : fmt(hi(p))
		n = srt(q, a)
		if (n == 0) { printf "\t-\t-\t-\t-\t0\n"; continue }
		k = 1	# the widest order statistics with coverage >= 95%
		while (k + 1 <= n / 2 && below(n, k + 1) <= 0.025) k++
		printf "\t%.3f\t%.3f\t%.3f\t%.1f\t%d\n", med(q), a[k], a[n + 1 - k], 100 * (1 - 2 * below(n, k)), n
	}
}' | sort > "$tab"

# verdict KEY: the ratio with its interval, or "no difference measured"
verdict() {
	awk -F'\t' -v k="$1" '$1 == k {
		if ($12 < 2) printf "%s (%d pass)", $8, $12
		else if ($9 <= 1 && $10 >= 1) printf "no difference measured (%s-%s, %s%%)", $9, $10, $11
		else printf "**%s** (%s-%s, %s%%)", $8, $9, $10, $11 }' "$tab"
}
val() { awk -F'\t' -v k="$1" -v c="$2" '$1 == k {print $c}' "$tab"; }
rows() {	# rows REGEX: one table row per matching metric
	local k keys
	keys=$(cut -f1 "$tab" | grep -E "$1") || { echo "(not run)"; return 0; }
	echo "| metric | stock median (min-max) | patched median (min-max) | patched/stock (interval, coverage) |"
	echo "|---|---|---|---|"
	for k in $keys; do
		echo "| $k | $(val "$k" 2) ($(val "$k" 3)-$(val "$k" 4)) | $(val "$k" 5) ($(val "$k" 6)-$(val "$k" 7)) | $(verdict "$k") |"
	done
}
# pairs "HEADINGS" "METRICS" WORKLOAD...: a table of the workloads' medians,
# stock / patched, one column per metric ("-" where a kernel has none);
# workloads without the first metric are left out (no table without any)
pairs() {
	local heads=$1 metrics=$2 w m line table=
	shift 2
	for w in "$@"; do
		[ -n "$(val "$w.${metrics%% *}" 2)" ] || continue
		line="| $w"
		for m in $metrics; do
			line="$line | $(val "$w.$m" 2 | grep . || echo -) / $(val "$w.$m" 5 | grep . || echo -)"
		done
		table+="$line |"$'\n'
	done
	[ -n "$table" ] || return 0
	echo "| workload | ${heads// \/ / | } |"
	echo "|---$(printf '|---%.0s' $metrics)|"
	printf '%s' "$table"
}
# shape WORKLOAD...: the I/O pattern and CPU cost; rounds WORKLOAD...: how
# writeback ran
shape() {
	pairs "write requests / mean request kB / merges / sequential fraction / writeback CPU ms/GiB / system CPU ms/GiB / of it irq / user CPU ms/GiB" \
		"write_reqs req_kB merges seq_frac wb_cpu_ms_GiB sys_cpu_ms_GiB irq_cpu_ms_GiB user_cpu_ms_GiB" "$@"
}
rounds() {
	pairs "writeback rounds / background / periodic / background wakeups / first background round, s" \
		"wb_rounds wb_bg_rounds wb_periodic_rounds wb_wakeups wb_first_bg_s" "$@"
}

# a plot of an earlier report of this name that this one does not draw goes
rm -f "$res/$name-w2.png" "$res/$name-scaling.png"

# Plot 1: ratio per throughput metric, median with its interval.
gnuplot <<EOF
set terminal pngcairo size 1000,500 font ",10" noenhanced
set output "$res/$name-ratios.png"
set title "patched / stock: median of paired passes, bars: ~95% interval"
set style data histogram
set boxwidth 0.6
set style fill solid 0.5
set yrange [0:*]
set xtics rotate by -35
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot "< awk -F'\t' '\$8 != \"-\" && \$1 ~ /(MBps|kBps|fraction)\$/' $tab" using 0:8:xtic(1) with boxes notitle, \
     "" using 0:8:9:10 with yerrorbars lc rgb "black" pt 0 notitle
EOF

if [ -s "$runs/stock-1/w2-series.txt" ] && [ -s "$runs/patched-1/w2-series.txt" ]; then
# Plot 2: W2 writeout per second, first pass of each kernel.
gnuplot <<EOF
set terminal pngcairo size 900,400 font ",10" noenhanced
set output "$res/$name-w2.png"
set title "W2: writeout of the slow disk during file creation (first pass)"
set xlabel "seconds"
set ylabel "MB/s written"
set y2label "MB dirty"
set y2tics
set grid
plot "$runs/stock-1/w2-series.txt" using 1:(\$2/1024) with linespoints title "stock, written", \
     "$runs/patched-1/w2-series.txt" using 1:(\$2/1024) with linespoints title "patched, written", \
     "$runs/stock-1/w2-series.txt" using 1:(\$3/1024) axes x1y2 with lines dt 2 title "stock, dirty", \
     "$runs/patched-1/w2-series.txt" using 1:(\$3/1024) axes x1y2 with lines dt 2 title "patched, dirty"
EOF
fi

# Plot 3: W4S, throughput and writeback CPU per GiB against writers/flushers
scaling=$runs/scaling.tsv
for c in 1 2; do for n in 1 2 4 8; do
	k=W4S.cpu$c.n$n
	[ -n "$(val "$k.MBps" 2)" ] && echo "$c $n $(val "$k.MBps" 2) $(val "$k.MBps" 5) $(val "$k.wb_cpu_ms_GiB" 2) $(val "$k.wb_cpu_ms_GiB" 5)"
done; done > "$scaling"
if [ -s "$scaling" ]; then
gnuplot <<EOF
set terminal pngcairo size 1000,420 font ",10" noenhanced
set output "$res/$name-scaling.png"
set multiplot layout 1,2
set logscale x 2
set xlabel "writers (and flushers on the series)"
set grid
set key left top
set title "W4S throughput, MB/s (medians)"
plot for [c=1:2] "$scaling" using (\$1 == c ? \$2 : 1/0):3 with linespoints title sprintf("stock, %d CPU", c), \
     for [c=1:2] "$scaling" using (\$1 == c ? \$2 : 1/0):4 with linespoints dt 2 title sprintf("patched, %d CPU", c)
set title "writeback CPU per GiB, ms (medians)"
plot for [c=1:2] "$scaling" using (\$1 == c ? \$2 : 1/0):5 with linespoints title sprintf("stock, %d CPU", c), \
     for [c=1:2] "$scaling" using (\$1 == c ? \$2 : 1/0):6 with linespoints dt 2 title sprintf("patched, %d CPU", c)
unset multiplot
EOF
fi

setup() { sed -n "s/^$1=//p" "$runs/setup.txt"; }
plot() { [ ! -s "$res/$name-$1.png" ] || printf '%s' "$2"; }	# plot NAME TEXT: TEXT if drawn
first() { ls -d "$runs"/"$1"-[0-9]* 2>/dev/null | grep -v smp1 | head -n1; }
npass() { ls -d "$runs"/"$1"-[0-9]* 2>/dev/null | grep -vc smp1 || true; }
multi=$(grep -h '^kernel.flushers' "$(first patched)/results.txt" | cut -d' ' -f2)
{
	echo "# Benchmark $name: stock vs patched 6.12"
	echo
	echo "- Kernels: Debian linux-source-6.12 $(setup debian), non-debug bench config (config/base.config + bench.config), stock and with $(setup patches) patches (top: $(setup series_head)); flusher threads in the patched guest: $([ "$multi" = 1 ] && echo yes || echo no)."
	echo "- Guest: $(cat "$(first stock)/kernel.txt") (stock); $(cat "$(first patched)/kernel.txt") (patched)."
	echo "- QEMU $(qemu-system-x86_64 --version | head -1 | sed 's/.*version //'), accelerator $(setup reps | sed 's/.*accel=//'), host $(setup host); setup: $(setup reps | sed 's/ accel=.*//'); passes done: stock $(npass stock), patched $(npass patched)."
	echo "- Host load average at the start of each boot: $(cat "$runs"/*/host-load 2>/dev/null | sort -n | awk '{a[NR] = $1} END {if (NR) printf "%s to %s", a[1], a[NR]; else printf "-"}')."
	echo "- Disks: vda-vdj throttled like a SATA drive (\`$(setup throttle)\`: 40 MiB/s, 150 IOPS); vdk unthrottled (\"fast\"); raw sparse files, cache=unsafe; fresh for every boot."
	echo "- Passes alternate the kernel that goes first; ratios pair the passes of the same number. Writeback sysctls at kernel defaults; one flusher per bdi unless a workload sets \`flushers\`."
	echo "- Sizes (divided by div): W1 16 files x 16 MB, random 64 kB writes; W2 1 MB files for 40 s; W3 64 MB per disk; W4 4 x 128 MB; W5 256 MB fast with 512 MB slow; L 1 GiB backlog, 30 s of fsync=1; W4S 512 MB over N writers; W6 runs of 20 s."
	echo "- Throughput = bytes written / (write + sync) time, MB/s, timed from the first write where the run has startup_s results (fio's start-up, left out), else from fio's launch; W5 is the fast disk's device writeout rate."
	[ -f "$runs/remarks.txt" ] && sed 's/^/- /' "$runs/remarks.txt"
	echo
	echo "## Throughput"
	rows '^(W1|W3|W5)\.(MBps|startup|fraction|fast)'
	echo
	echo "## W2: smoothness of writeout during file creation"
	echo "Lower coefficient of variation (cv) is smoother.$(plot w2 " Time series: [$name-w2.png]($name-w2.png).")"
	rows '^W2\.(cv|mean|written)'
	echo
	echo "## W4: parallel writers on XFS, fast disk; W4.cg: writers in a child cgroup"
	echo "On the series W4 runs with 1, 2 and 4 flushers in turn; stock runs the same workload three times, and fN is compared with stock's run in the same place in the boot (older runs: with stock's only run, f1). Runs with startup_s are timed from the first write (startup_s: from fio's launch to it, not timed), older ones from fio's launch."
	rows '^W4\.(cg\.)?f[0-9]+\.(MBps|startup|extents|sys_cpu|user_cpu)'
	echo
	echo "## How writeback shaped the I/O, and its CPU cost (medians, stock / patched)"
	echo "From the disks' stat files and the block_rq_issue tracepoint: these do not depend on the emulated CPU's speed. Writeback CPU: flush-* and bdi-default threads plus all unbound kworkers (stock's writeback runs there; both kernels' kworkers also run other work)."
	echo
	shape W1 W2 W3 W4.f1 W4.f2 W4.f4 W4.cg.f1 W4.cg.f4 W5
	echo
	echo "How writeback ran (writeback_start and writeback_wake_background tracepoints of the workload's disks; medians, stock / patched; \"-\" where a kernel had no background round; the first background round counts from before fio's launch, so it includes fio's start-up, W4's startup_s):"
	echo
	rounds W1 W2 W3 W4.f1 W4.cg.f1 W5
	echo
	echo "## Latency"
	rows '^L\.'
	echo
	echo "## W4S: scaling with writers and flushers (XFS, 8 AGs, fast disk)"
	echo "The host has two cores: at SMP=2 the guest's vCPUs, QEMU's I/O threads and the host share them, which caps what more flushers can gain.$(plot scaling " ![scaling]($name-scaling.png)")"
	echo
	rows '^W4S\..*\.MBps'
	echo
	shape $(for c in 1 2; do for n in 1 2 4 8; do echo W4S.cpu$c.n$n; done; done)
	echo
	echo "## Buffered throughput as a fraction of O_DIRECT"
	echo "O_DIRECT with the workload's request size and disks, queue depth 8, in the same pass (W6)."
	echo
	echo "| workload | O_DIRECT reference | stock | patched |"
	echo "|---|---|---|---|"
	frac() {	# frac METRIC SCALE LIMIT_METRIC DESCRIPTION
		awk -F'\t' -v k="$1" -v x="$2" -v l="$3" -v d="$4" '$1 == k {s = $2 * x; p = $5 * x} $1 == l {ls = $2; lp = $5}
			END {if (ls && lp) printf "| %s | %s | %.2f | %.2f |\n", k, d, s / ls, p / lp}' "$tab"; }
	grep -q '^W6\.' "$tab" || echo "| (needs W6) | | | |"
	frac W1.MBps 1 W6.slow.rand64k_MBps "slow, random 64 kB"
	w2secs=$((40 / $(setup reps | sed 's/.*div=\([0-9]*\).*/\1/'))); [ "$w2secs" -ge 10 ] || w2secs=10
	frac W2.written_MB "$(awk -v s=$w2secs 'BEGIN {print 1 / s}')" W6.slow.seq_MBps "slow, sequential 1 MB (W2: MB written during the ${w2secs} s of creation)"
	frac W3.MBps 1 W6.ten.seq_MBps "10 slow at once, sequential 1 MB"
	frac W4.f1.MBps 1 W6.fast.seq4_MBps "fast, 4 jobs, sequential 1 MB"
	frac W5.fast_alone_MBps 1 W6.fast.seq_MBps "fast, sequential 1 MB"
	echo
	echo "## O_DIRECT limits (W6)"
	rows '^W6\.'
	echo
	echo "![ratios]($name-ratios.png)"
	echo
	echo "Raw results: one results.txt (and w2-series.txt: second, kB written, kB dirty, kB under writeback) per boot in ${runs#"$TOP"/}."
} > "$md"
log "wrote $md and its plots"
