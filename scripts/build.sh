#!/bin/bash
# Build the guest kernel: build.sh KERNEL FLAVOUR
#   KERNEL: patched | vanilla     FLAVOUR: test (debug) | bench
# Objects go to build/obj/KERNEL-FLAVOUR; prints the bzImage path.
set -eu
. "$(dirname "$0")/common.sh"
kernel=${1:-patched} flavour=${2:-test}
src=$(src_of "$kernel")
obj=$BUILD/obj/$kernel-$flavour
case $flavour in
test) frags="$TOP/config/base.config $TOP/config/debug.config" ;;
bench) frags="$TOP/config/base.config $TOP/config/bench.config" ;;
*) die "FLAVOUR must be test or bench" ;;
esac
# options that exist only with the series (its KUnit suites)
[ "$kernel" = patched ] && frags="$frags $TOP/config/series.config"
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
# Every requested option must have survived.
bad=0
while read -r line; do
	case $line in
	CONFIG_*=*) grep -qx -- "$line" "$obj/.config" || { echo "config: wanted $line, got: $(grep "^${line%%=*}=" "$obj/.config" || echo unset)" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$obj/.config" || { echo "config: wanted $opt unset" >&2; bad=1; } ;;
	esac
done < <(cat $frags)
[ $bad -eq 0 ] || die "requested config options were dropped (see above)"

log "building $kernel-$flavour ($(cat "$BUILD/debian-version") + $(git -C "$src" rev-list --count base..HEAD) patches)"
start=$(date +%s)
kmake -j"$(($(nproc) + 1))" bzImage
log "built $kernel-$flavour in $(( $(date +%s) - start ))s"
echo "$obj/arch/x86/boot/bzImage"
