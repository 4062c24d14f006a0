#!/bin/bash
# Install the host packages the harness needs, skipping what is there.
set -eu
pkgs=(linux-source-6.12 qemu-system-x86 gcc make flex bison bc libelf-dev
      libssl-dev ccache git xfsprogs e2fsprogs fio gnuplot-nox cpio kmod
      python3 python3-ply python3-git perl xz-utils fdisk procps util-linux
      busybox-static sparse stress-ng linux-config-6.12
      # what the guest runs on the writeback users of a Debian machine
      btrfs-progs f2fs-tools lvm2 cryptsetup-bin mdadm dmsetup
      thin-provisioning-tools nfs-kernel-server fuse3 fuse2fs
      # fstests: its build, and the tools its tests call
      xfslibs-dev uuid-dev libtool-bin autoconf automake libattr1-dev
      libacl1-dev libaio-dev liburing-dev libgdbm-dev pkg-config attr acl
      bc psmisc quota gawk)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Only the guest runs the NFS, LVM and md services: start none of them here
# (nothing may be loaded into this machine's kernel).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
