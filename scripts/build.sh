#!/bin/bash
# Build the guest kernel: build.sh KERNEL FLAVOUR
#   KERNEL: patched | vanilla
#   FLAVOUR: test (debug) | test-nocgwb (debug, CGROUP_WRITEBACK=n) | bench
# Objects go to build/obj/KERNEL-FLAVOUR; prints the bzImage path.
set -eu
. "$(dirname "$0")/common.sh"
kernel=${1:-patched} flavour=${2:-test}
src=$(src_of "$kernel")
obj=$BUILD/obj/$kernel-$flavour
case $flavour in
test) frags="$TOP/config/base.config $TOP/config/debug.config" ;;
test-nocgwb) frags="$TOP/config/base.config $TOP/config/debug.config $TOP/config/nocgwb.config" ;;
bench) frags="$TOP/config/base.config $TOP/config/bench.config" ;;
*) die "FLAVOUR must be test, test-nocgwb or bench" ;;
esac
# options that exist only with the series (its KUnit suites); the bench
# kernels differ only by the series
[ "$kernel" = patched ] && [ "$flavour" != bench ] && frags="$frags $TOP/config/series.config"
mkdir -p "$obj"
kmake() { make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" "$@"; }

# Configure when the fragments change (or the tree's Kconfig files do).
stamp=$(cat $frags | sha1sum | cut -c1-12)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.frag-stamp" 2>/dev/null)" != "$stamp" ]; then
	log "configuring $kernel-$flavour"
	kmake tinyconfig >/dev/null
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" -m \
		-O "$obj" "$obj/.config" $frags >/dev/null
	kmake olddefconfig >/dev/null
	echo "$stamp" > "$obj/.frag-stamp"
fi
kmake olddefconfig >/dev/null
# Every requested option must have survived (the last fragment wins).
bad=0
while read -r opt want; do
	got=$(grep "^$opt=" "$obj/.config" | cut -d= -f2-)
	[ "${got:-n}" = "$want" ] || { echo "config: wanted $opt=$want, got ${got:-unset}" >&2; bad=1; }
done < <(cat $frags | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 n/p' |
	awk '{want[$1] = $2; if (!($1 in seen)) order[n++] = $1; seen[$1]} END {for (i = 0; i < n; i++) print order[i], want[order[i]]}')
[ $bad -eq 0 ] || die "requested config options were dropped (see above)"

log "building $kernel-$flavour ($(cat "$BUILD/debian-version") + $(git -C "$src" rev-list --count base..HEAD) patches)"
start=$(date +%s)
kmake -j"$(($(nproc) + 1))" bzImage
log "built $kernel-$flavour in $(( $(date +%s) - start ))s"
echo "$obj/arch/x86/boot/bzImage"
