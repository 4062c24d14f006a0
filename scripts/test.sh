#!/bin/bash
# Host side of `make test`: build the test kernel, boot it once, run every
# guest test (or TEST..., NAME or NAME:FS), and those with a "# boot:" line
# in a boot each of their own; then judge the run (judge.sh:
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
series=$([ "$kernel" = patched ] && echo --series || true)
# A test with a "# boot: VAR=VALUE..." line needs a guest of its own (more
# CPUs, NUMA nodes, kernel parameters: boot.sh's SMP, NUMA, APPEND): it
# runs after the main boot, in RUNDIR/boot-NAME.
boot_of() { sed -n 's/^# boot: //p' "$TOP/tests/${1%%:*}.sh" 2>/dev/null; }
[ $# -gt 0 ] || set -- $(cd "$TOP/tests" && ls -- *.sh | sed 's/\.sh$//')
main=() own=()
for t; do if [ -n "$(boot_of "$t")" ]; then own+=("$t"); else main+=("$t"); fi; done
set +e
if [ ${#main[@]} -gt 0 ]; then
	# the whole suite takes ~50 min under TCG; leave room on a busy host
	TIMEOUT=${TIMEOUT:-5400} QUIET=1 "$TOP/scripts/boot.sh" "$image" "$run" \
		bash guest/run-tests.sh $series "${main[@]}"
	echo $? > "$run/boot-status"
else
	touch "$run/no-main-boot"
fi
for t in "${own[@]}"; do
	dir=$run/boot-$t
	mkdir -p "$dir"
	# shellcheck disable=SC2046
	env $(boot_of "$t") TIMEOUT=1800 QUIET=1 "$TOP/scripts/boot.sh" "$image" "$dir" \
		bash guest/run-tests.sh $series "$t"
	echo $? > "$dir/boot-status"
done
set -e
exec "$TOP/scripts/judge.sh" "$run"
