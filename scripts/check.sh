#!/bin/bash
# `make check`: static checks of the series, on a worktree at base.
#  - each patch of patches/series applies, passes checkpatch.pl --strict,
#    and the whole kernel builds after it, warning-free, with
#    CONFIG_CGROUP_WRITEBACK=y and =n;
#  - sparse (make C=2) and scripts/kernel-doc -none on every file the
#    series touches report no warning that base does not have;
#  - the KUnit suites also build as modules.
# The builds after each patch take hours on two cores, so a stopped run
# resumes: a patch's result holds while it, the patches before it and the
# config fragments stay the same, and `make check` goes on from the first
# patch without a valid result. The results are kept in git
# (patches/check/, next to the series they judge), so a run goes on even on
# another machine; the worktree and objects (build/check, build/obj/check-*)
# are reused when they are there, so make rebuilds only what changed.
# FRESH=1 starts over. Prints one line per check and exits 1 on a failure.
set -eu
. "$(dirname "$0")/common.sh"
"$TOP/scripts/tree.sh" >/dev/null
wt=$BUILD/check state=$TOP/patches/check tmp=$OUT/check
frags="$TOP/config/base.config $TOP/config/check.config $TOP/config/nocgwb.config $TOP/config/modules.config"
# touched: the files the series touches; srcs, objs: those of them checked
# by sparse and kernel-doc, the base's warnings of which are kept
touched=$(series_files | xargs grep -h '^+++ b/' | sed 's|^+++ b/||' | sort -u)
srcs=$(echo "$touched" | grep '\.[ch]$' || true)
objs=$(echo "$touched" | sed -n 's/\.c$/.o/p')
hash=$({ cat $frags; echo "$srcs"; } | md5sum | cut -c1-16)
# key_of N: what the result of patch N depends on (fragments, patches 1..N)
key_of() { { cat $frags; series_files | head -n "$1" | xargs cat; } | md5sum | cut -c1-16; }
if [ "${FRESH:-0}" = 1 ] || [ "$(cat "$state/hash" 2>/dev/null)" != "$hash" ]; then
	resume=0
	rm -rf "$state"
else
	resume=1
	git -C "$wt" am --abort 2>/dev/null || true
fi
mkdir -p "$state" "$tmp"
kmake() {	# kmake y|n TARGET...
	local cfg=$1; shift
	make -s -C "$wt" O="$BUILD/obj/check-$cfg" ARCH=x86_64 CC="ccache gcc" -j"$(($(nproc) + 1))" "$@"
}
start_over() {
	local cfg obj frags have
	git -C "$TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" base
	for cfg in y n; do
		obj=$BUILD/obj/check-$cfg frags="$TOP/config/base.config $TOP/config/check.config"
		[ $cfg = n ] && frags="$frags $TOP/config/nocgwb.config"
		# modules on, for the KUnit suites built =m at the end
		[ $cfg = y ] && frags="$frags $TOP/config/modules.config"
		mkdir -p "$obj"
		kmake $cfg tinyconfig >/dev/null
		KCONFIG_CONFIG=$obj/.config "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags >/dev/null
		kmake $cfg olddefconfig >/dev/null
		grep -q "^CONFIG_CGROUP_WRITEBACK=y" "$obj/.config" && have=y || have=n
		[ $have = $cfg ] || die "could not get CONFIG_CGROUP_WRITEBACK=$cfg"
	done
}

# static_warnings TAG: sparse and kernel-doc warnings of the touched files in
# the worktree as it is, without line numbers, into $state/static-TAG.txt
static_warnings() {
	local f o built=""
	kmake y bzImage >/dev/null 2>&1 || true
	for o in $objs; do [ -f "$BUILD/obj/check-y/$o" ] && built="$built $o"; done
	{
		[ -z "$built" ] || kmake y C=2 $built 2>&1 >/dev/null | grep -E 'warning|error' || true
		for f in $srcs; do
			[ -f "$wt/$f" ] && (cd "$wt" && scripts/kernel-doc -none "$f" 2>&1) || true
		done
	} | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort > "$state/static-$1.txt"
}
if [ $resume = 0 ]; then
	start_over
	static_warnings base
	echo "$hash" > "$state/hash"
else
	# results from the first changed (or unchecked) patch on are void
	first=1
	for p in $(series_files); do
		n=$(printf %02d $first)
		[ -f "$state/patch-$n" ] && [ "$(cat "$state/key-$n" 2>/dev/null)" = "$(key_of $first)" ] || break
		first=$((first + 1))
	done
	for f in "$state"/patch-[0-9][0-9]; do
		n=${f##*-}
		[ -f "$f" ] && [ "$((10#$n))" -ge $first ] && rm -f "$f" "$state/key-$n"
	done
	log "make check: resuming after $(find "$state" -name "patch-[0-9][0-9]" | wc -l) patches"
	cat "$state"/patch-[0-9][0-9] 2>/dev/null || true
	# another machine, or a removed build/: a fresh worktree and objects
	git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1 && [ -f "$BUILD/obj/check-n/.config" ] ||
		start_over
	# keep of the worktree's patches those that are still the series' own
	keep=0
	for c in $(git -C "$wt" rev-list --reverse base..HEAD); do
		p=$(series_files | sed -n "$((keep + 1))p")
		[ -n "$p" ] && [ "$(git -C "$wt" show "$c" | git patch-id --stable | cut -d' ' -f1)" = \
			"$(git patch-id --stable < "$p" | cut -d' ' -f1)" ] || break
		keep=$((keep + 1))
	done
	git -C "$wt" reset -q --hard "HEAD~$(($(git -C "$wt" rev-list --count base..HEAD) - keep))"
fi

applied=$(git -C "$wt" rev-list --count base..HEAD) i=0
for p in $(series_files); do
	i=$((i + 1)) name=$(basename "$p") res=$state/patch-$(printf %02d $i)
	if [ $i -gt "$applied" ] && ! git -C "$wt" am -q "$p"; then
		echo "FAIL  $name: does not apply"; exit 1
	fi
	[ -f "$res" ] && continue
	SECONDS=0
	{
		# Debian's python3 (with python3-ply and python3-git) for spdxcheck.py
		# run inside the kernel tree: from another git tree it misreads
		# patches. The tree has no mainline history, so cited commits
		# cannot be looked up.
		(cd "$wt" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q --no-summary --ignore UNKNOWN_COMMIT_ID "$p") > "$tmp/checkpatch.txt" 2>&1 || true
		if [ -s "$tmp/checkpatch.txt" ]; then
			echo "FAIL  $name: checkpatch"; sed 's/^/      | /' "$tmp/checkpatch.txt"
		fi
		for cfg in y n; do
			kmake $cfg bzImage >/dev/null 2>"$tmp/build.txt" &&
				! grep -q 'warning:' "$tmp/build.txt" ||
				{ echo "FAIL  $name: kernel build, CGROUP_WRITEBACK=$cfg"; sed 's/^/      | /' "$tmp/build.txt" | head -30; }
		done
	} > "$tmp/patch.new"
	[ -s "$tmp/patch.new" ] || echo "ok    $name (checkpatch, builds =y and =n; $((SECONDS / 60)) min)" > "$tmp/patch.new"
	mv "$tmp/patch.new" "$res"
	key_of $i > "$state/key-$(printf %02d $i)"
	cat "$res"
done
failed=0
grep -qs "^FAIL" "$state"/patch-[0-9][0-9] && failed=1

# the end of the run, kept with the per-patch results
: > "$state/summary.txt"
say() { tee -a "$state/summary.txt"; }
static_warnings series
new=$(comm -13 "$state/static-base.txt" "$state/static-series.txt")
echo "      sparse + kernel-doc over $(echo "$srcs" | wc -w) touched files: $(wc -l < "$state/static-base.txt") warnings at base, $(wc -l < "$state/static-series.txt") with the series" | say
if [ -n "$new" ]; then
	{ echo "FAIL  new sparse/kernel-doc warnings:"; echo "$new" | sed 's/^/      | /'; } | say; failed=1
else
	echo "ok    no new sparse or kernel-doc warnings" | say
fi

# the series' KUnit suites link as modules too
"$wt/scripts/config" --file "$BUILD/obj/check-y/.config" -m BDI_FLUSHER_KUNIT_TEST
kmake y olddefconfig >/dev/null
if kmake y modules >/dev/null 2>"$tmp/build.txt" && ! grep -q 'warning:' "$tmp/build.txt" &&
	[ -f "$BUILD/obj/check-y/mm/backing-dev-kunit.ko" ]; then
	echo "ok    KUnit suites as modules (CONFIG_BDI_FLUSHER_KUNIT_TEST=m)" | say
else
	{ echo "FAIL  KUnit suites as modules"; sed 's/^/      | /' "$tmp/build.txt" | head -30; } | say; failed=1
fi
exit $failed
