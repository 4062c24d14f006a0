#!/bin/bash
# Export base..HEAD of build/linux into patches/ (numbered, with a series
# file) and write the cover letter 0000 from patches/cover-letter.txt
# (first line: the subject; then the text).
set -eu
. "$(dirname "$0")/common.sh"
[ -d "$TREE/.git" ] || die "no kernel tree; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	log "warning: $TREE has uncommitted changes; they are not exported"
cover=$TOP/patches/cover-letter.txt
rm -f "$TOP"/patches/*.patch
mkdir -p "$TOP/patches"
git -C "$TREE" -c user.name="Flusher Team" -c user.email=flushers@example.org \
	format-patch -q --no-signature --zero-commit --cover-letter \
	--cover-from-description=none base..HEAD -o "$TOP/patches"
first=$TOP/patches/0000-cover-letter.patch
if [ -f "$cover" ]; then
	subject=$(head -1 "$cover")
	body=$(mktemp)
	tail -n +3 "$cover" > "$body"
	awk -v subj="$subject" -v body="$body" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < body) > 0) print l; next }
		{ print }' "$first" > "$first.new" && mv "$first.new" "$first"
	rm -f "$body"
fi
(cd "$TOP/patches" && ls [0-9]*.patch 2>/dev/null | grep -v '^0000-cover-letter' > series || : > series)
echo "exported $(wc -l < "$TOP/patches/series") patches and the cover letter to patches/"
