#!/bin/bash
# Host side of `make test`: build the test kernel, boot it once, run every
# guest test (or TEST..., NAME or NAME:FS), then judge the run (judge.sh:
# KTAP and "N passed, N failed, N skipped"; exit 1 on a failure).
#   test.sh [patched|vanilla] [TEST...]     (CGWB=n: CGROUP_WRITEBACK off)
set -eu
. "$(dirname "$0")/common.sh"
kernel=${1:-patched}; shift || true
"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh" "$kernel"
flavour=test; [ "${CGWB:-y}" = n ] && flavour=test-nocgwb
image=$("$TOP/scripts/build.sh" "$kernel" $flavour | tail -n1)
run=$OUT/$flavour-$kernel
rm -rf "$run"; mkdir -p "$run"
set +e
# the whole suite takes ~30 min under TCG; leave room on a busy host
TIMEOUT=${TIMEOUT:-3600} QUIET=1 "$TOP/scripts/boot.sh" "$image" "$run" bash guest/run-tests.sh \
	$([ "$kernel" = patched ] && echo --series) "$@"
echo $? > "$run/boot-status"
set -e
exec "$TOP/scripts/judge.sh" "$run"
