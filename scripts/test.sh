#!/bin/bash
# Host side of `make test`: build the test kernel, boot it once, run every
# guest test, then judge the TAP, the KUnit results and the console log.
#   test.sh [patched|vanilla] [TEST...]     (CGWB=n: CGROUP_WRITEBACK off)
# Prints one line per test and "N passed, N failed"; exits 1 on a failure.
set -eu
. "$(dirname "$0")/common.sh"
kernel=${1:-patched}; shift || true
"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh" "$kernel"
flavour=test; [ "${CGWB:-y}" = n ] && flavour=test-nocgwb
image=$("$TOP/scripts/build.sh" "$kernel" $flavour | tail -n1)
run=$OUT/$flavour-$kernel
rm -rf "$run"; mkdir -p "$run"
flag=; [ "$kernel" = vanilla ] && flag=--vanilla
set +e
QUIET=1 "$TOP/scripts/boot.sh" "$image" "$run" bash guest/run-tests.sh $flag "$@"
boot_rc=$?
set -e

pass=0 fail=0 skips=()
result() {	# result ok|fail NAME [DETAIL]
	if [ "$1" = ok ]; then pass=$((pass + 1)); echo "PASS  $2"
	else fail=$((fail + 1)); echo "FAIL  $2${3:+  -- $3}"; fi
}
# guest tests
if [ -f "$run/tap.txt" ]; then
	while read -r line; do
		case $line in
		"ok "*"# SKIP"*) skips+=("${line#ok * - }") ;;
		"ok "*) result ok "${line#ok * - }" ;;
		"not ok "*) result fail "${line#not ok * - }"
			n=${line#not ok * - }; n=${n%% *}
			sed 's/^/      | /' "$run/logs/$n.log" | tail -n 15 ;;
		esac
	done < "$run/tap.txt"
	planned=$(sed -n 's/^1\.\.//p' "$run/tap.txt")
	ran=$(grep -c '^\(not \)\?ok ' "$run/tap.txt")
	[ "$ran" = "$planned" ] || result fail "guest test run" "ran $ran of $planned tests (boot status $boot_rc)"
else
	result fail "guest test run" "no results; boot status $boot_rc (see $run/console.log)"
fi
# KUnit suites that ran at boot (KTAP on the console)
while read -r line; do
	case $line in
	"ok "*) result ok "kunit: ${line#ok [0-9]* }" ;;
	"not ok "*) result fail "kunit: ${line#not ok [0-9]* }" ;;
	esac
done < <(sed -n 's/^\[[ 0-9.]*\] //p' "$run/console.log" | grep -E '^    (not )?ok [0-9]+ ' | sed 's/^    //')
# the console log: any kernel complaint fails the run
pat='BUG:|WARNING:|INFO: task .* blocked|INFO: possible|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN|soft lockup|hard LOCKUP|Oops|Kernel panic|general protection fault|kernel BUG|list_add corruption|list_del corruption|ODEBUG'
bad=$(grep -aE "$pat" "$run/console.log" | head -n 20 || true)
if [ -z "$bad" ] && [ -s "$run/console.log" ]; then
	result ok "console log clean"
else
	result fail "console log clean" "kernel complaints in $run/console.log:"
	echo "${bad:-(empty console log)}" | sed 's/^/      | /'
fi
for s in "${skips[@]}"; do echo "SKIP  $s"; done
echo "logs: $run (console.log, tap.txt, logs/)"
echo "$pass passed, $fail failed${skips:+, ${#skips[@]} skipped}"
[ $fail -eq 0 ]
