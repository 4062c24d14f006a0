#!/bin/bash
# Install the host packages the harness needs, skipping what is there.
set -eu
pkgs=(linux-source-6.12 qemu-system-x86 gcc make flex bison bc libelf-dev
      libssl-dev ccache git xfsprogs e2fsprogs fio gnuplot-nox cpio kmod
      python3 python3-ply python3-git perl xz-utils fdisk procps util-linux
      busybox-static sparse stress-ng dmsetup)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
