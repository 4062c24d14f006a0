#!/bin/bash
# `make kunit`: the series' KUnit suites through kunit.py, on UML (the fast
# loop: rebuilds only what changed). Objects in build/obj/kunit.
#   kunit.sh [kunit.py run options...]
set -eu
. "$(dirname "$0")/common.sh"
"$TOP/scripts/tree.sh" >/dev/null
cd "$TREE"
exec python3 tools/testing/kunit/kunit.py run --kunitconfig="$TOP/config/series.kunitconfig" \
	--build_dir="$BUILD/obj/kunit" --make_options CC="ccache gcc" --jobs "$(($(nproc) + 1))" "$@"
