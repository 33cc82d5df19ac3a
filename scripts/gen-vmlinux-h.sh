#!/usr/bin/env bash
# Generate vmlinux.h from the BTF of the test kernel, without booting it:
# the BTF of the running host kernel would describe the wrong kernel (and a
# CI host may lack CONFIG_NET_SCH_BPF altogether).
#
#   scripts/gen-vmlinux-h.sh OUT      e.g. bpf/vmlinux.h
#
#   BPFTOOL=...  bpftool to dump with (default build/deps/bin/bpftool)
#   KVER=...     passed on to scripts/fetch-kernel.sh
#
# The ELF vmlinux is cached next to the kernel as build/kernel/KVER/vmlinux.
set -euo pipefail

die() { echo "gen-vmlinux-h: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 OUT"
out=$1
top=$(cd "$(dirname "$0")/.." && pwd)
bpftool=${BPFTOOL:-$top/build/deps/bin/bpftool}
[ -x "$bpftool" ] || die "no bpftool at $bpftool (run 'make deps' first)"

kdir=$("$top/scripts/fetch-kernel.sh" | tail -n 1)
[ -f "$kdir/vmlinuz" ] || die "fetch-kernel.sh gave no vmlinuz ($kdir)"

# u8/u32 little-endian fields of the x86 boot header (Documentation/arch/x86/boot.rst).
hdr_u8() { od -An -t u1 -j "$1" -N 1 "$kdir/vmlinuz" | tr -d ' '; }
hdr_u32() { od -An -t u4 -j "$1" -N 4 "$kdir/vmlinuz" | tr -d ' '; }

# dd rather than tail|head: head exiting early would SIGPIPE tail and trip pipefail.
payload() { dd if="$kdir/vmlinuz" iflag=skip_bytes,count_bytes skip="$1" count="$2" bs=1M status=none; }

# The bzImage header says exactly where the compressed kernel lies, so no
# scanning for magic numbers (which also occur inside the payload) is needed.
extract_vmlinux() {
	local z=$kdir/vmlinuz tmp=$kdir/vmlinux.tmp
	[ "$(dd if="$z" bs=1 skip=$((0x202)) count=4 status=none)" = HdrS ] ||
		die "$z is not an x86 bzImage"
	local sects off len start magic
	sects=$(hdr_u8 $((0x1f1)))
	[ "$sects" -ne 0 ] || sects=4
	off=$(hdr_u32 $((0x248)))
	len=$(hdr_u32 $((0x24c)))
	[ "$off" -gt 0 ] && [ "$len" -gt 4 ] || die "$z has no payload fields (boot protocol < 2.08?)"
	start=$(((sects + 1) * 512 + off))
	magic=$(od -An -t x1 -j "$start" -N 6 "$z" | tr -d ' \n')
	# The build appends the uncompressed size (4 bytes) to the payload;
	# decompressors other than gzip reject trailing bytes, so cut it off.
	case $magic in
	28b52ffd*) payload "$start" $((len - 4)) | zstd -dcq >"$tmp" ;;
	fd377a585a00) payload "$start" $((len - 4)) | xz -dcq >"$tmp" ;;
	1f8b*) payload "$start" "$len" | gzip -dcq >"$tmp" ;;
	*) die "unknown compression (magic $magic) in $z" ;;
	esac
	[ "$(head -c 4 "$tmp" | od -An -t x1 | tr -d ' \n')" = 7f454c46 ] ||
		die "decompressed payload of $z is not an ELF file"
	mv "$tmp" "$kdir/vmlinux"
}

if [ ! -s "$kdir/vmlinux" ] || [ "$kdir/vmlinux" -ot "$kdir/vmlinuz" ]; then
	echo "gen-vmlinux-h: extracting vmlinux from $kdir/vmlinuz" >&2
	extract_vmlinux
fi

mkdir -p "$(dirname "$out")"
"$bpftool" btf dump file "$kdir/vmlinux" format c >"$out.tmp" ||
	{ rm -f "$out.tmp"; die "bpftool btf dump failed on $kdir/vmlinux"; }
# The qdiscs need both the kernel's ops struct and its struct_ops wrapper; a
# kernel without CONFIG_NET_SCH_BPF has the first but not the second.
for t in 'struct Qdisc_ops {' 'struct bpf_struct_ops_Qdisc_ops {'; do
	grep -qF "$t" "$out.tmp" || { rm -f "$out.tmp"; die "'$t' missing from the BTF of $(cat "$kdir/kver")"; }
done
mv "$out.tmp" "$out"
echo "gen-vmlinux-h: $out from $(cat "$kdir/kver") ($(wc -c <"$out") bytes)" >&2
