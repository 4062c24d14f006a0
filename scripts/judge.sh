#!/bin/bash
# Judge a finished test run without booting: judge.sh RUNDIR
# RUNDIR (build/out/test-<kernel>, ...) holds what the guest left: tap.txt,
# logs/NAME.log, console.log and boot-status. Prints KTAP: one result per
# guest test, per KUnit suite and for the console outside the tests, then
# "# Totals:" and the plain "N passed, N failed, N skipped" line; exits 1 on
# a failure. The console is cut at the runner's "guest: test NAME" markers:
# a kernel complaint fails the test during which it was printed. A test
# that had a boot of its own (RUNDIR/boot-NAME) owns that whole console.
set -eu
. "$(dirname "$0")/common.sh"
run=${1:?usage: judge.sh RUNDIR}
[ -d "$run" ] || { echo "judge: no run directory $run" >&2; exit 2; }
boot_rc=$(cat "$run/boot-status" 2>/dev/null || echo unknown)
console=$run/console.log
[ -f "$console" ] || : > "$console"

pat=$KERNEL_COMPLAINTS
# complaints_in CONSOLE: each complaint prefixed by the test it was printed
# in ("boot" before the first test, "after" once the runner is done)
complaints_in() {
	awk -v pat="$pat" '
	/guest: test / { sub(/.*guest: test /, ""); sub(/\r$/, ""); cur = $1; next }
	/guest: tests done/ { cur = "after"; next }
	$0 ~ pat { print (cur == "" ? "boot" : cur) "\t" $0 }' "$1"
}
complaints=$(complaints_in "$console")
complaints_of() { printf '%s\n' "$complaints" | awk -F '\t' -v t="$1" '$1 == t {print $2}'; }

status=() results=() notes=()
add() {	# add ok|fail|skip NAME [DETAIL] [DIAGNOSTIC LINES]
	case $1 in
	ok) status+=(ok); results+=("$2") ;;
	skip) status+=(ok); results+=("$2 # SKIP ${3:-}") ;;
	*) status+=("not ok"); results+=("$2${3:+ # $3}") ;;
	esac
	notes+=("${4:-}")
}

# judge_tests DIR [own]: the guest tests of the boot in DIR; "own": a boot
# of its own for one test, whose whole console counts as that test's
judge_tests() {
	local dir=$1 own=${2:-} line n bad planned ran rc
	rc=$(cat "$dir/boot-status" 2>/dev/null || echo unknown)
	if [ ! -f "$dir/tap.txt" ]; then
		add fail "guest test run${own:+ in $dir}" "no results; boot status $rc (see $dir/console.log)"
		return
	fi
	while read -r line; do
		case $line in "ok "*|"not ok "*) ;; *) continue ;; esac
		n=${line#*ok * - }; n=${n%% *}
		if [ -n "$own" ]; then
			bad=$(cut -f2- <<< "$complaints")
		else
			bad=$(complaints_of "$n")
		fi
		case $line in
		"ok "*"# SKIP"*)
			if [ -z "$bad" ]; then add skip "$n" "${line#*# SKIP }"
			else add fail "$n" "kernel complaint during the (skipped) test" "$(echo "$bad" | head -n 10)"; fi ;;
		"ok "*)
			if [ -z "$bad" ]; then add ok "$n"
			else add fail "$n" "kernel complaint during the test" "$(echo "$bad" | head -n 10)"; fi ;;
		*)
			add fail "$n" "${line#*# }" "$(tail -n 15 "$dir/logs/$n.log" 2>/dev/null; echo "$bad" | head -n 10)" ;;
		esac
	done < "$dir/tap.txt"
	planned=$(sed -n 's/^1\.\.//p' "$dir/tap.txt")
	ran=$(grep -c '^\(not \)\?ok ' "$dir/tap.txt" || true)
	[ "$ran" = "$planned" ] || add fail "guest test run${own:+ in $dir}" "ran $ran of $planned tests (boot status $rc)"
}

# guest tests: those of the main boot, then those that had a boot of their
# own (test.sh: a "# boot:" line), each in RUNDIR/boot-NAME
[ -f "$run/no-main-boot" ] || judge_tests "$run"
for own in "$run"/boot-*/; do
	[ -d "$own" ] || continue
	main_complaints=$complaints
	complaints=$(complaints_in "$own/console.log")
	judge_tests "${own%/}" own
	complaints=$main_complaints
done
# KUnit and the console of the main boot
if [ ! -f "$run/no-main-boot" ]; then
	# KUnit suites that ran at boot (KTAP on the console)
	while read -r line; do
		case $line in
		"ok "*) add ok "kunit:${line#ok [0-9]* }" ;;
		"not ok "*) add fail "kunit:${line#not ok [0-9]* }" ;;
		esac
	done < <(sed -n 's/\r$//; s/^\[[ 0-9.]*\] //p' "$console" | grep -E '^    (not )?ok [0-9]+ ' | sed 's/^    //')
	# the console outside the tests: boot, KUnit, and after the last test
	for part in boot after; do
		bad=$(complaints_of $part)
		if [ -n "$bad" ]; then
			add fail "console:$part" "kernel complaints" "$(echo "$bad" | head -n 20)"
		elif [ $part = boot ] && [ ! -s "$console" ]; then
			add fail "console:$part" "empty console log"
		else
			add ok "console:$part"
		fi
	done
fi

echo "KTAP version 1"
echo "1..${#results[@]}"
pass=0 fail=0 skip=0
for i in "${!results[@]}"; do
	echo "${status[$i]} $((i + 1)) ${results[$i]}"
	case ${status[$i]}:${results[$i]} in
	"not ok":*) fail=$((fail + 1)) ;;
	*"# SKIP"*) skip=$((skip + 1)) ;;
	*) pass=$((pass + 1)) ;;
	esac
	[ -z "${notes[$i]}" ] || printf '%s\n' "${notes[$i]}" | sed 's/^/#   | /'
done
echo "# logs: $run (console.log, tap.txt, logs/)"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
