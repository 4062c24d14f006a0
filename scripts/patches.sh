#!/bin/bash
# Export base..HEAD of build/linux into patches/ (numbered, with a series file).
set -eu
. "$(dirname "$0")/common.sh"
[ -d "$TREE/.git" ] || die "no kernel tree; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	log "warning: $TREE has uncommitted changes; they are not exported"
rm -f "$TOP"/patches/*.patch
mkdir -p "$TOP/patches"
git -C "$TREE" format-patch -q --no-signature --zero-commit -N base..HEAD -o "$TOP/patches"
(cd "$TOP/patches" && ls *.patch 2>/dev/null > series || : > series)
echo "exported $(wc -l < "$TOP/patches/series") patches to patches/"
