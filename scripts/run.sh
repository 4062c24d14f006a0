#!/bin/bash
# `make run` / `make shell`: boot the kernel with four scratch disks and run
# the demo, a command (exit status returned), or an interactive shell.
#   run.sh [--shell] KERNEL [CMD]
set -eu
. "$(dirname "$0")/common.sh"
shell=0; [ "${1:-}" = --shell ] && { shell=1; shift; }
kernel=${1:-patched}; shift || true
flavour=${FLAVOUR:-test}
image=$("$TOP/scripts/build.sh" "$kernel" "$flavour" | tail -n1)
run=$OUT/run-$kernel
if [ $shell = 1 ]; then
	exec "$TOP/scripts/boot.sh" "$image" "$run"
fi
exec "$TOP/scripts/boot.sh" "$image" "$run" "${1:-bash guest/demo.sh}"
