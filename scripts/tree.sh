#!/bin/bash
# Make build/linux: Debian's linux-source-6.12 as commit "base", with
# patches/series applied on top. Never discards commits that are not in
# patches/. With "vanilla", also make the worktree build/vanilla at base.
set -eu
. "$(dirname "$0")/common.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball missing (scripts/deps.sh installs it)"
debver=$(dpkg-query -W -f='${Version}' linux-source-6.12)

if [ ! -d "$TREE/.git" ]; then
	log "unpacking linux-source-6.12 $debver into $TREE"
	rm -rf "$TREE" "$BUILD/linux-source-6.12"
	mkdir -p "$BUILD"
	tar -C "$BUILD" -xf "$tarball"
	mv "$BUILD/linux-source-6.12" "$TREE"
	cd "$TREE"
	git init -q -b master
	git config user.name "flusher harness"
	git config user.email "harness@localhost"
	git config core.autocrlf false
	git add -A -f .
	git commit -q -m "Debian linux-source-6.12 $debver (pristine)"
	git tag base
	echo "$debver" > "$BUILD/debian-version"
fi
cd "$TREE"
echo "kernel source: Debian linux-source-6.12 $(cat "$BUILD/debian-version" 2>/dev/null || echo "$debver")" >&2

have=$(ids_tree)
want=$(ids_repo)
extra=$(comm -23 <(echo "$have") <(echo "$want") | grep . || true)
if [ -n "$extra" ]; then
	die "$TREE has commits that are not in patches/; export them with 'make patches' (or drop them) first"
fi
if [ "$have" != "$want" ]; then
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes and patches/ changed; commit or stash them first"
	log "applying patches/series to $TREE"
	git am --abort >/dev/null 2>&1 || true
	git reset -q --hard base
	files=$(series_files)
	[ -z "$files" ] || git am -q --keep-cr $files ||
		die "a patch in patches/ does not apply; see 'git -C $TREE am --show-current-patch'"
elif [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	log "note: building uncommitted changes in $TREE"
fi

if [ "${1:-}" = vanilla ] && [ ! -d "$VANILLA" ]; then
	git worktree prune
	git worktree add -q --detach "$VANILLA" base
fi
