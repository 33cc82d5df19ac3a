#!/usr/bin/env bash
# Fetch the iproute2 (ip, tc, ss) that goes into the VM, unpacked (not
# installed) under build/iproute2/VER. Prints that directory.
#
# Bookworm's iproute2 6.1 predates sch_fq's bands, weights and priomap (Linux
# 6.10) and prints less of fq than the kernel dumps, so the fq cases could not
# compare qdiscctl's output with sch_fq's. Trixie's iproute2 6.15 knows them;
# bookworm-backports carries the same 6.15 rebuilt against bookworm's
# libraries, so its binaries run on the host's libc and libbpf like every
# other tool in the image and need no second libc.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
debs=$build/apt/debs
# tc learned fq's bands, weights and priomap in 6.10.
min_version=6.10

die() { echo "fetch-iproute2: $*" >&2; exit 1; }

# A cached .deb needs no network at all.
newest_deb() { compgen -G "$debs/iproute2_*~bpo12+*_amd64.deb" | sort -V | tail -n 1 || true; }
deb=$(newest_deb)
if [ -z "$deb" ]; then
	. "$top/scripts/apt-private.sh"
	papt_init "$build/apt"
	papt_download "$debs" iproute2/bookworm-backports ||
		die "could not download iproute2 from bookworm-backports through the private apt view"
	deb=$(newest_deb)
	[ -n "$deb" ] || die "downloading iproute2/bookworm-backports left no .deb in $debs"
fi
ver=$(dpkg-deb -f "$deb" Version)
dpkg --compare-versions "$ver" ge "$min_version" ||
	die "$deb is iproute2 $ver; the fq cases need $min_version or later"

dir=$build/iproute2/$ver
if [ ! -f "$dir/ok" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	dpkg-deb -x "$deb" "$dir.tmp"
	# The package predates merged /usr on bookworm: ip and ss in /bin, tc in
	# /sbin. Take them from wherever this one puts them.
	for b in ip tc ss; do
		f=$(find "$dir.tmp/bin" "$dir.tmp/sbin" "$dir.tmp/usr/bin" "$dir.tmp/usr/sbin" \
			-maxdepth 1 -name "$b" -type f 2>/dev/null | head -n 1)
		[ -n "$f" ] || die "$deb has no $b"
		mkdir -p "$dir.tmp/out"
		mv "$f" "$dir.tmp/out/$b"
	done
	echo "$ver" >"$dir.tmp/out/version"
	# ip reads its name tables from /usr/share/iproute2, tc netem's delay
	# distributions from /usr/lib/ARCH/tc.
	mv "$dir.tmp/usr/share/iproute2" "$dir.tmp/out/share"
	mv "$dir.tmp/usr/lib/x86_64-linux-gnu/tc" "$dir.tmp/out/tc-dist"
	mv "$dir.tmp/out" "$dir.new"
	rm -rf "$dir.tmp" "$dir"
	mv "$dir.new" "$dir"
	touch "$dir/ok"
fi
echo "$dir"
