#!/usr/bin/env bash
# Fetch a Debian kernel that has CONFIG_NET_SCH_BPF=y, unpacked (not
# installed) under build/kernel/KVER. Prints the kernel directory.
#
#   KVER=...   another kernel than the pinned one below, by its release
#              (uname -r), e.g. KVER=6.16.3+deb13-cloud-amd64
#
# A kernel that is neither cached nor on the mirror, or that lacks
# CONFIG_NET_SCH_BPF=y, is refused with one line: no other kernel is booted
# in its place. When the pinned kernel leaves the mirror, bump the pin.
#
# Debian packages a kernel in one of two ways: up to 6.18 one
# linux-image-KVER holds vmlinuz (/boot), config and modules; from 6.19 on
# linux-image-KVER is empty and depends on linux-binary-KVER (vmlinuz),
# linux-modules-KVER and linux-base-KVER (config, modules.builtin).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
pinned=7.3.4+deb13-cloud-amd64
kver=${KVER:-$pinned}

die() { echo "fetch-kernel: $*" >&2; exit 1; }

# KVER names directories and packages: a release string, nothing else.
case $kver in
'' | [!0-9]* | *[!0-9A-Za-z.+~-]*) die "KVER '$kver' is not a kernel release (e.g. $pinned)" ;;
esac

kdir=$build/kernel/$kver
# A cached kernel needs no network at all.
if [ -f "$kdir/ok" ]; then
	echo "$kdir"
	exit 0
fi

# Parallel fetches of one kernel must not unpack into the same directory.
mkdir -p "$build/kernel"
exec 9>"$build/kernel/.$kver.lock"
flock 9
if [ -f "$kdir/ok" ]; then
	echo "$kdir"
	exit 0
fi

. "$top/scripts/apt-private.sh"
papt_init "$build/apt" || die "cannot read the Debian mirror's package lists"

if [ -n "$(papt_candidate "linux-binary-$kver")" ]; then
	pkgs=("linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver")
elif [ -n "$(papt_candidate "linux-image-$kver")" ]; then
	pkgs=("linux-image-$kver")
elif [ "$kver" = "$pinned" ]; then
	die "the pinned kernel $kver is not on the mirror any more: bump 'pinned' in scripts/fetch-kernel.sh"
else
	die "kernel $kver is not on the mirror (no linux-image-$kver or linux-binary-$kver)"
fi

# The mirror may keep linux-binary-KVER but have dropped the rest.
missing=()
for pkg in "${pkgs[@]}"; do
	[ -n "$(papt_candidate "$pkg")" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] || die "kernel $kver is incomplete on the mirror: no ${missing[*]}"

debs=$build/apt/debs
papt_download "$debs" "${pkgs[@]}" || die "could not download ${pkgs[*]}"
rm -rf "$kdir.tmp"
trap 'rm -rf "$kdir.tmp"' EXIT
mkdir -p "$kdir.tmp/root"
for pkg in "${pkgs[@]}"; do
	deb=$(compgen -G "$debs/${pkg}_*.deb" | head -n 1) || true
	[ -n "$deb" ] || die "$pkg was not downloaded"
	dpkg-deb -x "$deb" "$kdir.tmp/root"
done

# first PATH...: the first of PATHs (under the unpacked root) that exists.
first() {
	local p
	for p in "$@"; do
		[ ! -e "$kdir.tmp/root/$p" ] || { echo "$kdir.tmp/root/$p"; return; }
	done
}
mdir=$(first "usr/lib/modules/$kver" "lib/modules/$kver")
vmlinuz=$(first "usr/lib/modules/$kver/vmlinuz" "boot/vmlinuz-$kver")
config=$(first "usr/lib/modules/$kver/config" "boot/config-$kver")
[ -n "$mdir" ] && [ -d "$mdir/kernel" ] && [ -n "$vmlinuz" ] && [ -n "$config" ] ||
	die "no vmlinuz, config or modules in ${pkgs[*]}"
grep -qx 'CONFIG_NET_SCH_BPF=y' "$config" || die "kernel $kver lacks CONFIG_NET_SCH_BPF=y"

mv "$vmlinuz" "$kdir.tmp/vmlinuz"
mv "$config" "$kdir.tmp/config"
mv "$mdir" "$kdir.tmp/modules"
rm -rf "$kdir.tmp/root"
echo "$kver" >"$kdir.tmp/kver"
touch "$kdir.tmp/ok"
rm -rf "$kdir"
mv "$kdir.tmp" "$kdir"
trap - EXIT
echo "$kdir"
