#!/bin/bash
# `make fstests`: fstests on stock and on the series, test by test, kept
# and resumable; then fstests/report.sh writes the comparison.
#   FSTESTS (a built or unbuilt fstests checkout; default: the snapshot
#     ../shared/fstests/*.tar.xz, unpacked and built in build/fstests)
#   KERNELS ("vanilla patched"), FLAVOUR (bench: non-debug; test: debug),
#   FSTYP ("ext4 xfs btrfs"), FLUSHERS ("0 4": 0 is the kernel's default,
#     N sets every bdi to N flushers; stock runs only 0),
#   TESTS (names like generic/044) or GROUP ("quick freeze shutdown
#     recoveryloop"), less fstests/expunge/{all,FSTYP},
#   NAME (of the kept run, default "main"), FRESH=1 starts it over.
# Every finished test's result is appended at once to
# fstests/results/runs/NAME/KERNEL-FLAVOUR-FSTYP-fN.txt ("test status
# seconds"); a run goes on with the tests that are missing there, also on
# another machine, while the kernels' sources, the configs, fstests and
# this harness stay the same. Each boot runs at most BOOT_TESTS tests (30).
set -eu
. "$(dirname "$0")/../scripts/common.sh"
kernels=${KERNELS:-vanilla patched} flavour=${FLAVOUR:-bench}
fstyps=${FSTYP:-ext4 xfs btrfs} settings=${FLUSHERS:-0 4}
name=${NAME:-main} per_boot=${BOOT_TESTS:-30}
unset MAKEFLAGS MAKEOVERRIDES MFLAGS

# fstests, built once
src=${FSTESTS:-}
if [ -z "$src" ]; then
	src=$BUILD/fstests
	tarball=$(ls "$TOP"/../shared/fstests/xfstests-*.tar.xz 2>/dev/null | tail -n1)
	[ -n "$tarball" ] || die "no fstests: set FSTESTS=DIR"
	if [ "$(cat "$src/.tarball" 2>/dev/null)" != "$(basename "$tarball")" ]; then
		rm -rf "$src"; mkdir -p "$src"
		tar -xJf "$tarball" -C "$src"
		basename "$tarball" > "$src/.tarball"
	fi
fi
src=$(cd "$src" && pwd)
if [ ! -x "$src/ltp/fsstress" ]; then
	log "building fstests in $src"
	make -C "$src" -j"$(nproc)" >"$BUILD/fstests-build.log" 2>&1 ||
		die "fstests build failed: see $BUILD/fstests-build.log"
fi
case $src in "$TOP"/*) ;; *) die "FSTESTS must be under $TOP (the guest sees only the project)" ;; esac
fst_id=$( (cat "$src/.tarball" 2>/dev/null || git -C "$src" rev-parse HEAD 2>/dev/null || echo "$src") | md5sum | cut -c1-12)

# tests_of FSTYP: TESTS, or the tests of GROUP (generic and FSTYP's own)
# less those in fstests/expunge/{all,FSTYP} ("test  # reason")
groups=${GROUP:-quick freeze shutdown recoveryloop}
tests_of() {
	if [ -n "${TESTS:-}" ]; then echo "$TESTS" | tr ' ' '\n'; return; fi
	local d g
	for d in generic "$1"; do
		for g in $groups; do
			awk -v g="$g" -v d="$d" '{for (i = 2; i <= NF; i++) if ($i == g) print d "/" $1}' \
				"$src/tests/$d/group.list"
		done | sort -u
	done | grep -vxF -f <(cat "$TOP"/fstests/expunge/{all,"$1"} 2>/dev/null |
		sed 's/#.*//' | awk 'NF {print $1}'; echo none)
}

runs=$TOP/fstests/results/runs/$name
[ "${FRESH:-0}" = 1 ] && rm -rf "$runs"
mkdir -p "$runs"
for kernel in $kernels; do
	"$TOP/scripts/tree.sh" "$kernel"
	image=$("$TOP/scripts/build.sh" "$kernel" "$flavour" | tail -n1)
	# what a kept result depends on
	sources=$({
		cat "$BUILD/debian-version"; [ "$kernel" = patched ] && series_code
		cat "$TOP"/config/base.config "$TOP/config/${flavour/test/debug}.config" "$TOP"/fstests/guest.sh
		echo "$fst_id"
	} | md5sum | cut -c1-16)
	for fstyp in $fstyps; do
		for n in $settings; do
			[ "$kernel" = vanilla ] && [ "$n" != 0 ] && continue
			kept=$runs/$kernel-$flavour-$fstyp-f$n.txt
			[ "$(sed -n 's/^# sources //p' "$kept" 2>/dev/null)" = "$sources" ] ||
				echo "# sources $sources" > "$kept"
			while :; do
				todo=$(tests_of "$fstyp" | while read -r t; do
					grep -q "^$t " "$kept" || echo "$t"; done | head -n "$per_boot" | tr '\n' ' ')
				[ -n "$todo" ] || break
				boot=$OUT/fstests/$kernel-$flavour-$fstyp-f$n
				log "fstests $kernel-$flavour $fstyp flushers=$n: $todo"
				rm -rf "$boot"; mkdir -p "$boot"
				DISKS=5 DISK_SIZE=8G DISKDIR=$BUILD/disks-fstests TIMEOUT=${TIMEOUT:-7200} QUIET=1 \
					"$TOP/scripts/boot.sh" "$image" "$boot" \
					"bash fstests/guest.sh '${src}' $fstyp $n $todo" || true
				# what finished is kept; a test that did not finish is a crash
				[ -f "$boot/done.txt" ] && cat "$boot/done.txt" >> "$kept"
				for t in $todo; do
					grep -q "^$t " "$kept" && continue
					echo "$t crash 0" >> "$kept"
					log "$t did not finish: see $boot/console.log"
					cp "$boot/console.log" "$runs/$kernel-$flavour-$fstyp-f$n.${t//\//-}.console"
					break
				done
				# fstests' output of each test that did not pass
				keep=$runs/logs/$kernel-$flavour-$fstyp-f$n
				for f in "$boot"/results/*/*.out.bad "$boot"/results/*/*.dmesg; do
					[ -f "$f" ] || continue
					t=${f#"$boot"/results/}; t=${t%.*}; t=${t%.out}
					mkdir -p "$keep/${t%/*}"
					cp "$f" "$keep/${f#"$boot"/results/}"
					[ -f "$boot/results/$t.full" ] && tail -n 200 "$boot/results/$t.full" > "$keep/$t.full.tail"
					# the console around the test
					awk -v t="guest: fstests $t" 'index($0, t) {on = 1} on && /guest: fstests / && !index($0, t) {exit} on' \
						"$boot/console.log" > "$keep/$t.console"
				done
			done
		done
	done
done
"$TOP/fstests/report.sh" "$runs" > "$TOP/fstests/results/$name.md"
cat "$TOP/fstests/results/$name.md"
