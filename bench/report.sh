#!/bin/bash
# Summarise a bench run: report.sh RUNDIR NAME
# RUNDIR holds setup.txt and one directory per pass, stock-N and patched-N,
# each with results.txt ("key value" lines) and w2-series.txt, and optionally
# remarks.txt (lines added to the setup list). Writes
# bench/results/NAME.md, NAME-ratios.png and NAME-w2.png.
set -eu
. "$(dirname "$0")/../scripts/common.sh"
runs=$1 name=$2
res=$TOP/bench/results
mkdir -p "$res"
md=$res/$name.md tab=$runs/table.tsv

# One row per metric: key, stock median/min/max, patched median/min/max,
# ratio (patched/stock of the same pass) median/min/max. A patched metric
# W4.fN.* (and W4.cg.fN.*) that stock lacks is compared with stock's
# W4.f1.* (W4.cg.f1.*).
for f in "$runs"/*-[0-9]*/results.txt; do
	d=$(basename "$(dirname "$f")")
	awk -v k="${d%-*}" -v r="${d##*-}" '$1 !~ /^kernel\./ {print k, r, $1, $2}' "$f"
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
function lo(s,   a) { srt(s, a); return a[1] }
function hi(s,   a, n) { n = srt(s, a); return a[n] }
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
		printf "\t%s\t%s\t%s", s == "" ? "-" : med(s), s == "" ? "-" : lo(s), s == "" ? "-" : hi(s)
		printf "\t%s\t%s\t%s", p == "" ? "-" : med(p), p == "" ? "-" : lo(p), p == "" ? "-" : hi(p)
		if (q == "") printf "\t-\t-\t-\n"
		else printf "\t%.3f\t%.3f\t%.3f\n", med(q), lo(q), hi(q)
	}
}' | sort > "$tab"

# Plot 1: ratio per metric, median bar with the min-max of the passes.
gnuplot <<EOF
set terminal pngcairo size 900,500 font ",10" noenhanced
set output "$res/$name-ratios.png"
set title "patched / stock, median of passes (bars: min-max)"
set style data histogram
set boxwidth 0.6
set style fill solid 0.5
set yrange [0:*]
set xtics rotate by -35
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot "< awk -F'\t' '\$8 != \"-\"' $tab" using 0:8:xtic(1) with boxes notitle, \
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
set grid
plot "$runs/stock-1/w2-series.txt" using 1:(\$2/1024) with linespoints title "stock", \
     "$runs/patched-1/w2-series.txt" using 1:(\$2/1024) with linespoints title "patched"
EOF
fi

row() { awk -F'\t' -v k="$1" '$1 == k {
	printf "| %s | %s (%s-%s) | %s (%s-%s) | %s (%s-%s) |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$tab"; }
rows() {
	local k keys
	keys=$(cut -f1 "$tab" | grep -E "$1") || { echo "(not run)"; return 0; }
	echo "| metric | stock median (min-max) | patched median (min-max) | patched/stock (min-max) |"
	echo "|---|---|---|---|"
	for k in $keys; do row "$k"; done
}
setup() { sed -n "s/^$1=//p" "$runs/setup.txt"; }
multi=$(grep -h '^kernel.flushers' "$runs"/patched-1/results.txt | cut -d' ' -f2)
w4note="The patched kernel has the flushers knob: W4 runs with 1, 2 and 4 flushers; each is compared with stock."
grep -q '^W4.f2' "$tab" || w4note="The patched kernel has no flushers knob yet (one flusher per bdi): W4 compares one flusher with stock."
{
	echo "# Benchmark $name: stock vs patched 6.12"
	echo
	echo "- Kernels: Debian linux-source-6.12 $(setup debian), non-debug bench config (config/base.config + bench.config), stock and with $(setup patches) patches (top: $(setup series_head)); flusher threads in the patched guest: $([ "$multi" = 1 ] && echo yes || echo no)."
	echo "- Guest: $(cat "$runs/stock-1/kernel.txt") (stock); $(cat "$runs/patched-1/kernel.txt") (patched)."
	echo "- QEMU $(qemu-system-x86_64 --version | head -1 | sed 's/.*version //'), accelerator $(setup reps | sed 's/.*accel=//'), host $(setup host); passes per kernel and setup: $(setup reps | sed 's/ accel=.*//')."
	echo "- Disks: vda-vdj throttled like a SATA drive (\`$(setup throttle)\`: 40 MiB/s, 150 IOPS); vdk unthrottled (\"fast\"); raw sparse files, cache=unsafe."
	echo "- Each pass boots a kernel with fresh disks and runs every workload once; passes alternate the kernel that goes first. Ratios pair the passes of the same number. Writeback sysctls at kernel defaults."
	echo "- Sizes (divided by div): W1 16 files x 16 MB, random 64 kB writes; W2 1 MB files for 40 s; W3 64 MB per disk; W4 4 x 128 MB; W5 256 MB fast with 512 MB slow; W6 64 MB slow, 256 MB fast, 16 MB random."
	echo "- Throughput = bytes written / (write + sync) time, MB/s; W5 is the fast disk's device writeout rate."
	[ -f "$runs/remarks.txt" ] && sed 's/^/- /' "$runs/remarks.txt"
	echo
	echo "## W6: O_DIRECT limits"
	rows '^W6\.'
	echo
	echo "## W1: random buffered writes, slow disk (seed: +8% over pdflush)"
	rows '^W1\.'
	echo
	echo "## W2: smoothness of writeout during file creation (seed: \"a LOT more smooth\")"
	echo "Lower coefficient of variation (cv) is smoother. Time series: [$name-w2.png]($name-w2.png)."
	rows '^W2\.'
	echo
	echo "## W3: ten slow disks at once (seed: +25%)"
	rows '^W3\.'
	echo
	echo "## W4: parallel writers on XFS, fast disk (upstream 2025 RFC); W4.cg: writers in a child cgroup"
	echo "$w4note"
	rows '^W4\.'
	echo
	echo "## W5: isolation, fast disk with a slow disk's backlog"
	rows '^W5\.'
	echo
	echo "## Buffered throughput as a fraction of O_DIRECT"
	echo "| workload | device limit (O_DIRECT) | stock | patched |"
	echo "|---|---|---|---|"
	frac() {	# frac METRIC LIMIT_METRIC DISKS DESCRIPTION
		awk -F'\t' -v k="$1" -v l="$2" -v n="$3" -v d="$4" '$1 == k {s = $2; p = $5} $1 == l {lim = $2 * n}
			END {if (lim) printf "| %s | %s | %.2f | %.2f |\n", k, d, s / lim, p / lim}' "$tab"; }
	grep -q '^W6\.' "$tab" || echo "| (needs W6) | | | |"
	frac W1.MBps W6.slow.rand64k_MBps 1 "slow, random 64 kB"
	frac W3.MBps W6.slow.seq_MBps 10 "10 x slow, sequential 1 MB"
	frac W4.f1.MBps W6.fast.seq_MBps 1 "fast, sequential 1 MB"
	echo
	echo "![ratios]($name-ratios.png)"
	echo
	echo "Raw results: one results.txt per pass under build/out/bench-$name (not kept in git)."
} > "$md"
log "wrote $md, $res/$name-ratios.png, $res/$name-w2.png"
