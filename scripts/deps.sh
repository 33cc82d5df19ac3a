#!/usr/bin/env bash
# Install and build everything `make` and the VM tests need (`make deps`), on a
# fresh Debian bookworm, as root. Bookworm's libbpf (1.1) is too old for
# struct_ops links and its linux-libc-dev (6.1) lacks the BPF qdisc bits, so
# libbpf and bpftool are built from a newer kernel tree fetched with the
# private apt view (scripts/apt-private.sh), which never touches the system's
# apt sources.
#
#   scripts/deps.sh
#
#   BUILD=dir   build directory (default: build)
#   V=1         show the build output instead of logging it
#
# Every step leaves its results plus a stamp and is skipped when they are
# there, so a rerun takes well under a second and needs no network;
# `rm -rf build/deps` starts over.
# Layout (what the Makefile expects):
#   build/deps/bin/bpftool               full bpftool (static, also for the VM)
#   build/deps/bin/bpftool-bootstrap     minimal bpftool (btf dump, gen skeleton)
#   build/deps/libbpf/{include/bpf,include/uapi/linux,lib/libbpf.a}
#   build/deps/libmnl/{include/libmnl,lib/libmnl.a}
#   build/deps/VERSIONS, build/deps/ok (written last)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
export BUILD=$build # fetch-kernel.sh must use the same tree
deps=$build/deps
debs=$build/apt/debs

# Bump when the libbpf/bpftool build recipe changes, to force a rebuild.
bpf_recipe=3
# linux-source-6.12 carries libbpf 1.5 and bpftool 7.5. Taking both from one
# tree matters: bpftool 7.5's skeletons set the struct_ops map's `link`
# field, which libbpf 1.4's skeleton struct does not have.
ksrc_pkg=linux-source-6.12
mnl_pkg=libmnl-dev/trixie # the first libmnl-dev that ships libmnl.a
jobs=$(nproc)

system_pkgs=(
	# build: compilers, static libc/libelf/libz for the final link, python3
	# for libbpf's bpf_doc.py, xz/zstd to unpack sources and the kernel
	gcc make libc6-dev binutils clang-16 llvm-16 libelf-dev zlib1g-dev
	pkg-config python3 xz-utils zstd file bc bash-completion
	# the VM tests: emulator, and the userland that goes into the initramfs
	qemu-system-x86 busybox-static cpio iproute2 iputils-ping iperf3 ethtool jq util-linux clang-format sockperf libclang-rt-16-dev
	# the host tests: systemd-analyze verify of the installed units; the
	# terminal view of monitor in tmux
	systemd tmux
	# metrics and exporter, on the host and in the VM: promtool (Debian
	# ships it in prometheus) checks the exposition format, curl asks
	prometheus curl
)

t0=$SECONDS
step=""
log=""

say() { printf 'deps: %s\n' "$*"; }
die() {
	echo "deps: FAILED: $*" >&2
	step=""
	exit 1
}
on_exit() {
	local rc=$?
	[ "$rc" -ne 0 ] && [ -n "$step" ] || return 0
	[ -z "$log" ] || [ ! -s "$log" ] || tail -n 25 "$log" >&2
	echo "deps: FAILED while $step (exit $rc)${log:+; full log: $log}" >&2
}
trap on_exit EXIT

# run LOGNAME CMD...: quiet unless V=1; the log is shown if the command fails.
run() {
	log=$deps/logs/$1.log
	shift
	if [ -n "${V:-}" ]; then
		"$@" 2>&1 | tee -a "$log"
	else
		"$@" >>"$log" 2>&1
	fi
	log=""
}

mkdir -p "$deps/logs" "$deps/bin"
# Two concurrent runs would build into the same directories.
exec 9>"$deps/.lock"
flock 9
# A failed run must not leave an old stamp that lets `make` go ahead.
rm -f "$deps/ok"

# Private apt is set up only when something must be downloaded: a rerun
# needs no network.
papt_ready=""
papt() {
	if [ -z "$papt_ready" ]; then
		# shellcheck source=scripts/apt-private.sh
		. "$top/scripts/apt-private.sh"
		papt_init "$build/apt" || die "private apt view: apt-get update failed"
		papt_ready=1
	fi
}

# newest_deb NAME: the newest cached .deb of package NAME, if any.
newest_deb() {
	compgen -G "$debs/${1}_*.deb" | sort -V | tail -n 1 || true
}

# fetch_deb PKG[/SUITE]: sets $deb to a cached .deb of PKG, downloading it
# when absent (not in a $(...) subshell, so that die ends the script).
fetch_deb() {
	local name=${1%%/*}
	deb=$(newest_deb "$name")
	if [ -z "$deb" ]; then
		papt
		papt_download "$debs" "$1" || die "could not download $1 through the private apt view"
		deb=$(newest_deb "$name")
		[ -n "$deb" ] || die "apt-get download $1 left no .deb in $debs"
	fi
}

# deb_version DEB
deb_version() { dpkg-deb -f "$1" Version; }

# pkg_version PKG: version installed on the system, empty when not installed.
pkg_version() {
	dpkg-query -W -f '${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null | awk '$1 == "ii" { print $2 }'
}

### 1. system packages ##########################################################

apt_updated=""
# install_missing PKG...: apt-get install only what dpkg does not have.
install_missing() {
	local missing=() p
	declare -A have=()
	while read -r p status; do
		[ "$status" = ii ] && have[$p]=1
	done < <(dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null || true)
	for p; do [ -n "${have[$p]:-}" ] || missing+=("$p"); done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" -eq 0 ] || die "packages missing (${missing[*]}); run as root to install them"
	step="installing ${missing[*]}"
	say "installing ${#missing[@]} system packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	: >"$deps/logs/apt.log"
	if [ -z "$apt_updated" ]; then
		run apt apt-get update
		apt_updated=1
	fi
	run apt apt-get install -y --no-install-recommends "${missing[@]}"
}

step="checking system packages"
install_missing "${system_pkgs[@]}"

# Where the distribution ships libbpf >= 1.5 (trixie and later), use it
# rather than building one.
# (apt-cache costs most of a no-op run: ask it only while nothing is built.)
distro_ships_bpf() {
	local lv bv
	[ ! -f "$deps/stamp-bpf" ] || return 1
	read -r lv bv < <(apt-cache policy libbpf-dev bpftool 2>/dev/null |
		awk '/Candidate:/ { printf "%s ", ($2 == "(none)" ? "0" : $2) } END { print "" }')
	[ -n "$lv" ] && [ -n "$bv" ] &&
		dpkg --compare-versions "$lv" ge 1:1.5 && dpkg --compare-versions "$bv" ge 7.5
}
distro_libbpf_a=""
distro_has_bpf() {
	local v bt
	v=$(pkg_version libbpf-dev)
	[ -n "$v" ] && dpkg --compare-versions "$v" ge 1:1.5 || return 1
	# gcc answers with the bare name when the library is not in its path.
	distro_libbpf_a=$(gcc -print-file-name=libbpf.a)
	[[ $distro_libbpf_a == /* ]] || return 1
	bt=$(command -v bpftool) || return 1
	v=$("$bt" version 2>/dev/null | sed -n '1s/^bpftool v//p')
	[ -n "$v" ] && dpkg --compare-versions "$v" ge 7.5
}
if distro_ships_bpf; then
	install_missing libbpf-dev bpftool
fi
say "system packages ok ($((SECONDS - t0))s)"

### 2. the test kernel ##########################################################

step="fetching the test kernel (scripts/fetch-kernel.sh)"
kdir=$("$top/scripts/fetch-kernel.sh" | tail -n 1)
kver=$(cat "$kdir/kver")
say "kernel $kver ok ($((SECONDS - t0))s)"
step="fetching the VM's iproute2 (scripts/fetch-iproute2.sh)"
ipr=$("$top/scripts/fetch-iproute2.sh" | tail -n 1)
say "iproute2 $(cat "$ipr/version") for the VM ok ($((SECONDS - t0))s)"

### 3. libbpf and bpftool #######################################################

bpf_stamp=$deps/stamp-bpf

use_distro_bpf() {
	local l=$deps/libbpf h
	rm -rf "$l" "$deps/bin/bpftool" "$deps/bin/bpftool-bootstrap"
	mkdir -p "$l/include/uapi/linux" "$l/lib"
	ln -s /usr/include/bpf "$l/include/bpf"
	ln -s "$distro_libbpf_a" "$l/lib/libbpf.a"
	# The distribution's linux-libc-dev is as new as its libbpf: keep the
	# layout, point at it.
	for h in bpf.h bpf_common.h btf.h if_xdp.h netdev.h; do
		ln -s "/usr/include/linux/$h" "$l/include/uapi/linux/$h"
	done
	ln -s "$(command -v bpftool)" "$deps/bin/bpftool"
	echo "distro libbpf-dev $(pkg_version libbpf-dev)" >"$bpf_stamp"
}

build_bpf() {
	local ver src=$deps/src/$ksrc_pkg obj=$deps/obj/bpftool l=$deps/libbpf
	step="getting $ksrc_pkg"
	fetch_deb "$ksrc_pkg"
	ver=$(deb_version "$deb")

	if [ ! -f "$src/.ok" ] || [ "$(cat "$src/.ok")" != "$ver" ]; then
		step="unpacking $ksrc_pkg $ver"
		say "unpacking libbpf and bpftool from $ksrc_pkg $ver"
		rm -rf "$src"
		mkdir -p "$src"
		# Only what the libbpf and bpftool builds read: the tree is 1.5 GB
		# unpacked, these parts 5 MB. The .xz has many blocks, so xz can
		# decompress it on all cores.
		local top_dir=$ksrc_pkg parts=()
		for p in tools/lib/bpf tools/bpf/bpftool tools/include tools/arch tools/build \
			tools/scripts scripts/bpf_doc.py kernel/bpf/disasm.c kernel/bpf/disasm.h; do
			parts+=("$top_dir/$p")
		done
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$ksrc_pkg.tar.xz" |
			xz -T"$jobs" -dc |
			tar -x -C "$src" --strip-components=1 "${parts[@]}"
		echo "$ver" >"$src/.ok"
	fi

	rm -rf "$obj"
	mkdir -p "$obj/libbpf"
	: >"$deps/logs/libbpf.log"
	: >"$deps/logs/bpftool.log"
	# libbpf's own Makefile ignores BUILD_STATIC_ONLY, so name libbpf.a as
	# the target. Build it where and how bpftool's Makefile would, so that
	# bpftool links this very libbpf.a instead of building a second one.
	step="building libbpf"
	say "building libbpf ($((SECONDS - t0))s)"
	# One section per function and object lets qdiscctl's --gc-sections drop
	# the parts of libbpf it never calls (the linker, USDT, ringbufs...):
	# 151 KB of a static binary that must stay under 2 MB. -Os and no
	# unwind tables, as qdiscctl's own code: libbpf runs when qdiscctl
	# registers and reads maps, never per packet, and nothing unwinds it.
	run libbpf make -C "$src/tools/lib/bpf" -j"$jobs" OUTPUT="$obj/libbpf/" \
		EXTRA_CFLAGS="-Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables" \
		DESTDIR="$obj/libbpf" prefix= "$obj/libbpf/libbpf.a" install_headers

	# Pin bpftool's optional features instead of probing the host: no LLVM
	# or libbfd JIT disassembler (they would drag libLLVM into the VM) and
	# no libcap (the VM runs as root), so the binary needs only libelf and
	# libz and links statically. Skeletons (pids in `prog show`, `prog
	# profile`) are kept; they need clang and a vmlinux.h.
	printf 'feature-%s\n' clang-bpf-co-re=1 llvm=0 libcap=0 libbfd=0 libbfd-liberty=0 \
		libbfd-liberty-z=0 disassembler-four-args=0 disassembler-init-styled=0 >"$obj/FEATURES"
	local bpftool_make=(make -C "$src/tools/bpf/bpftool" -j"$jobs" OUTPUT="$obj/"
		FEATURES_DUMP="$obj/FEATURES" EXTRA_LDFLAGS=-static
		CLANG="clang-16 -fms-extensions -Wno-microsoft-anon-tag" LLVM_STRIP=llvm-strip-16
		VMLINUX_BTF= VMLINUX_H="$obj/vmlinux.h")
	step="building bpftool (bootstrap)"
	say "building bpftool ($((SECONDS - t0))s)"
	run bpftool "${bpftool_make[@]}" bootstrap
	# The skeletons bpftool embeds need a vmlinux.h; the test kernel's BTF
	# does, and does not depend on the build host's kernel.
	step="generating vmlinux.h for bpftool's skeletons"
	run bpftool env BPFTOOL="$obj/bootstrap/bpftool" "$top/scripts/gen-vmlinux-h.sh" "$obj/vmlinux.h"
	step="building bpftool"
	run bpftool "${bpftool_make[@]}" all

	step="installing libbpf and bpftool"
	rm -rf "$l" "$deps/bin/bpftool" "$deps/bin/bpftool-bootstrap"
	run libbpf make -C "$src/tools/lib/bpf" OUTPUT="$obj/libbpf/" DESTDIR="$l" prefix= install_headers
	install -D -m 644 "$obj/libbpf/libbpf.a" "$l/lib/libbpf.a"
	# Only the uapi headers that tools/ keeps in sync with the kernel (libbpf's
	# build checks them). The other copies under tools/include/uapi are stale
	# (pkt_sched.h, pkt_cls.h, netlink.h lag behind even bookworm's 6.1), and
	# its linux/types.h lacks the __kernel_* types: shadowing the system's
	# with them would break rtnetlink code.
	mkdir -p "$l/include/uapi/linux"
	local h
	for h in bpf.h bpf_common.h btf.h if_xdp.h netdev.h; do
		install -m 644 "$src/tools/include/uapi/linux/$h" "$l/include/uapi/linux/$h"
	done
	install -m 755 -s "$obj/bpftool" "$deps/bin/bpftool"
	install -m 755 -s "$obj/bootstrap/bpftool" "$deps/bin/bpftool-bootstrap"
	echo "$ksrc_pkg $ver recipe $bpf_recipe" >"$bpf_stamp"
}

if distro_has_bpf; then
	if [ "$(cat "$bpf_stamp" 2>/dev/null)" != "distro libbpf-dev $(pkg_version libbpf-dev)" ]; then
		step="linking the distribution's libbpf and bpftool"
		use_distro_bpf
	fi
	say "libbpf $(pkg_version libbpf-dev) and bpftool from the distribution"
else
	if ! grep -qx "$ksrc_pkg .* recipe $bpf_recipe" "$bpf_stamp" 2>/dev/null ||
		[ ! -x "$deps/bin/bpftool" ] || [ ! -f "$deps/libbpf/lib/libbpf.a" ]; then
		rm -f "$bpf_stamp"
		build_bpf
	fi
	say "libbpf and bpftool ok: $(cut -d' ' -f1,2 "$bpf_stamp") ($((SECONDS - t0))s)"
fi

### 4. libmnl ###################################################################

mnl_stamp=$deps/stamp-libmnl
if [ ! -f "$mnl_stamp" ] || [ ! -f "$deps/libmnl/lib/libmnl.a" ]; then
	step="getting $mnl_pkg"
	fetch_deb "$mnl_pkg"
	ver=$(deb_version "$deb")
	rm -rf "$deps/libmnl" "$deps/libmnl.tmp"
	dpkg-deb -x "$deb" "$deps/libmnl.tmp"
	# Debian's multiarch directory is the one gcc uses for this machine.
	a=$(compgen -G "$deps/libmnl.tmp/usr/lib/*/libmnl.a" | head -n 1) || true
	[ -n "$a" ] && [ -f "$deps/libmnl.tmp/usr/include/libmnl/libmnl.h" ] ||
		die "$deb has no libmnl.a or libmnl.h"
	install -D -m 644 "$deps/libmnl.tmp/usr/include/libmnl/libmnl.h" "$deps/libmnl/include/libmnl/libmnl.h"
	install -D -m 644 "$a" "$deps/libmnl/lib/libmnl.a"
	rm -rf "$deps/libmnl.tmp"
	echo "libmnl $ver" >"$mnl_stamp"
fi
say "$(cat "$mnl_stamp") ok"

### 5. versions and the final stamp #############################################

step="writing VERSIONS"
bpftool_v=$("$deps/bin/bpftool" version | sed -n '1s/^bpftool v//p')
libbpf_v=$(awk '/define LIBBPF_MAJOR_VERSION/ { M = $3 } /define LIBBPF_MINOR_VERSION/ { m = $3 }
	END { print M "." m }' "$deps/libbpf/include/bpf/libbpf_version.h")
{
	echo "clang $(clang-16 --version | sed -n '1s/.*clang version \([^ ]*\).*/\1/p') ($(pkg_version clang-16))"
	echo "libbpf $libbpf_v ($(sed 's/ recipe .*//' "$bpf_stamp"))"
	echo "bpftool $bpftool_v"
	echo "$(cat "$mnl_stamp") (trixie)"
	echo "libelf $(pkg_version libelf-dev)"
	echo "zlib $(pkg_version zlib1g-dev)"
	echo "qemu $(pkg_version qemu-system-x86)"
	echo "busybox $(pkg_version busybox-static)"
	echo "iproute2 $(cat "$ipr/version") (in the VM; the host has $(pkg_version iproute2))"
	echo "kernel $kver"
} >"$deps/VERSIONS.tmp"
if cmp -s "$deps/VERSIONS.tmp" "$deps/VERSIONS"; then
	rm -f "$deps/VERSIONS.tmp"
else
	mv "$deps/VERSIONS.tmp" "$deps/VERSIONS"
fi
touch "$deps/ok"
step=""
say "done in $((SECONDS - t0))s; versions in ${deps#"$top"/}/VERSIONS"
