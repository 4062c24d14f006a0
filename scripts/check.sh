#!/bin/bash
# `make check`: apply patches/series one by one on a clean worktree at base;
# for each patch run checkpatch.pl --strict and compile the objects it
# touches with CONFIG_CGROUP_WRITEBACK=y and =n; then build the whole kernel
# with both settings, and the KUnit suite as a module. Exits 1 on any failure.
set -eu
. "$(dirname "$0")/common.sh"
"$TOP/scripts/tree.sh" >/dev/null
wt=$BUILD/check
git -C "$TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
git -C "$TREE" worktree prune
git -C "$TREE" worktree add -q --detach "$wt" base
kmake() {	# kmake y|n TARGET...
	local cfg=$1; shift
	make -s -C "$wt" O="$BUILD/obj/check-$cfg" ARCH=x86_64 CC="ccache gcc" -j"$(($(nproc) + 1))" "$@"
}
for cfg in y n; do
	obj=$BUILD/obj/check-$cfg frags="$TOP/config/base.config"
	[ $cfg = n ] && frags="$frags $TOP/config/nocgwb.config"
	# modules on, for the KUnit suite built =m at the end
	[ $cfg = y ] && frags="$frags $TOP/config/modules.config"
	mkdir -p "$obj"
	kmake $cfg tinyconfig >/dev/null
	KCONFIG_CONFIG=$obj/.config "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags >/dev/null
	kmake $cfg olddefconfig >/dev/null
	grep -q "^CONFIG_CGROUP_WRITEBACK=y" "$obj/.config" && have=y || have=n
	[ $have = $cfg ] || die "could not get CONFIG_CGROUP_WRITEBACK=$cfg"
	kmake $cfg prepare >/dev/null
done

failed=0
for p in $(series_files); do
	name=$(basename "$p") before=$failed
	if ! git -C "$wt" am -q "$p"; then
		echo "FAIL  $name: does not apply"; exit 1
	fi
	# Debian's python3 (with python3-ply and python3-git) for spdxcheck.py
	# run inside the kernel tree: from another git tree it misreads patches.
	# The tree has no mainline history, so cited commits cannot be looked up.
	(cd "$wt" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q --no-summary --ignore UNKNOWN_COMMIT_ID "$p") > "$OUT/checkpatch.txt" 2>&1 || true
	if [ -s "$OUT/checkpatch.txt" ]; then
		echo "FAIL  $name: checkpatch"; sed 's/^/      | /' "$OUT/checkpatch.txt"; failed=1
	fi
	objs=$(git -C "$wt" diff --name-only HEAD~1 HEAD | sed -n 's/\.c$/.o/p')
	for cfg in y n; do
		[ -z "$objs" ] && break
		kmake $cfg $objs >/dev/null 2>"$OUT/check-build.txt" &&
			! grep -q 'warning:' "$OUT/check-build.txt" ||
			{ echo "FAIL  $name: CGROUP_WRITEBACK=$cfg build of $objs"; sed 's/^/      | /' "$OUT/check-build.txt" | head -30; failed=1; }
	done
	[ $failed = "$before" ] && echo "ok    $name"
done
for cfg in y n; do
	if kmake $cfg bzImage >/dev/null 2>"$OUT/check-build.txt" && ! grep -q 'warning:' "$OUT/check-build.txt"; then
		echo "ok    full build, CONFIG_CGROUP_WRITEBACK=$cfg"
	else
		echo "FAIL  full build, CONFIG_CGROUP_WRITEBACK=$cfg"; sed 's/^/      | /' "$OUT/check-build.txt" | head -30; failed=1
	fi
done
# the series' KUnit suite links as a module too
"$wt/scripts/config" --file "$BUILD/obj/check-y/.config" -m BDI_FLUSHER_KUNIT_TEST
kmake y olddefconfig >/dev/null
if kmake y modules >/dev/null 2>"$OUT/check-build.txt" && ! grep -q 'warning:' "$OUT/check-build.txt" &&
	[ -f "$BUILD/obj/check-y/mm/backing-dev-kunit.ko" ]; then
	echo "ok    KUnit suite as a module (CONFIG_BDI_FLUSHER_KUNIT_TEST=m)"
else
	echo "FAIL  KUnit suite as a module"; sed 's/^/      | /' "$OUT/check-build.txt" | head -30; failed=1
fi
exit $failed
