#!/usr/bin/env bash
# Fetch a Debian cloud kernel that has CONFIG_NET_SCH_BPF=y, unpacked (not
# installed) under build/kernel/KVER. Prints the kernel directory.
#
#   KVER=...   pin another kernel (default: the pinned one below, falling back to
#              the newest 7.x cloud kernel the mirror carries).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
pinned=7.3.4+deb13-cloud-amd64
kver=${KVER:-$pinned}

# A cached kernel needs no network at all.
if [ -f "$build/kernel/$kver/ok" ]; then
	echo "$build/kernel/$kver"
	exit 0
fi

. "$top/scripts/apt-private.sh"
papt_init "$build/apt"

if [ -z "$(papt_candidate "linux-binary-$kver")" ]; then
	echo "fetch-kernel: linux-binary-$kver is not on the mirror any more" >&2
	kver=$(papt_pkgnames linux-binary- | sed -n 's/^linux-binary-\(7\.[0-9.]*+deb[0-9]*-cloud-amd64\)$/\1/p' |
		sort -V | tail -n 1)
	[ -n "$kver" ] || { echo "fetch-kernel: no 7.x cloud kernel on the mirror" >&2; exit 1; }
	echo "fetch-kernel: falling back to $kver" >&2
	[ -f "$build/kernel/$kver/ok" ] && { echo "$build/kernel/$kver"; exit 0; }
fi

debs=$build/apt/debs
papt_download "$debs" "linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver"
kdir=$build/kernel/$kver
rm -rf "$kdir.tmp"
mkdir -p "$kdir.tmp/root"
for pkg in linux-binary linux-modules linux-base; do
	deb=$(compgen -G "$debs/$pkg-${kver}_*.deb" | head -n 1) || true
	[ -n "$deb" ] || { echo "fetch-kernel: $pkg-$kver was not downloaded" >&2; exit 1; }
	dpkg-deb -x "$deb" "$kdir.tmp/root"
done
mdir=$kdir.tmp/root/usr/lib/modules/$kver
[ -f "$mdir/vmlinuz" ] && [ -f "$mdir/config" ] ||
	{ echo "fetch-kernel: no vmlinuz/config in the $kver packages" >&2; exit 1; }
if ! grep -qx 'CONFIG_NET_SCH_BPF=y' "$mdir/config"; then
	echo "fetch-kernel: $kver lacks CONFIG_NET_SCH_BPF=y" >&2
	exit 1
fi
mv "$mdir/vmlinuz" "$mdir/config" "$kdir.tmp/"
mv "$mdir" "$kdir.tmp/modules"
rm -rf "$kdir.tmp/root"
echo "$kver" >"$kdir.tmp/kver"
touch "$kdir.tmp/ok"
rm -rf "$kdir"
mv "$kdir.tmp" "$kdir"
echo "$kdir"
