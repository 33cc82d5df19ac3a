#!/usr/bin/env bash
# The layer rule of README's design section, read from the `#include "..."`
# lines: a file includes only headers of its own layer or of lower ones, and
# no module (NAME.c with NAME.h) reaches itself again through includes. A
# header that declares a function another module defines makes its includers
# depend on that module too (cmd/show.h declaring show_flows() tied show.c
# and show_flows.c into a circle no include line showed).
#
#   bpf/ < lib/ < netlink/ < kinds/ < sysctl/ < core/ < cmd/ < qdiscctl.c
#
# A source file outside these layers fails too: a new directory gets a place
# here before it gets code. Headers that are not in the tree (the generated
# skeletons, vmlinux.h's BTF dump is in it) are not checked.
set -u
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1

layers=(bpf lib netlink kinds sysctl core cmd)

# rank FILE: the position of FILE's layer, or nothing when it has none.
rank()
{
	local d=${1%%/*}
	[ "$1" = qdiscctl.c ] && { echo ${#layers[@]}; return; }
	for i in "${!layers[@]}"; do
		[ "${layers[$i]}" = "$d" ] && { echo "$i"; return; }
	done
}

# module FILE: the module a file belongs to, lib/units.c and lib/units.h alike.
module()
{
	local m=${1%.h}
	m=${m%.c}
	echo "${m%.bpf}"
}

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null | grep -v '^tests/\|^bench/\|^bpf/vmlinux.h$')
[ -n "$files" ] || files=$(find . -name '*.[ch]' -not -path './tests/*' -not -path './bench/*' \
	-not -path './build/*' -not -name vmlinux.h | sed 's|^\./||')
# Where each function is defined: "NAME FILE", one per line.
defs=$(grep -v '\.bpf\.c$' <<<"$files" | grep '\.c$' | xargs awk 2>/dev/null '
	/^(static|typedef|extern|#)/ || /;[[:space:]]*$/ { next }
	match($0, /^[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*\(/) {
		s = substr($0, 1, RLENGTH - 1); sub(/.*[ *]/, "", s); print s, FILENAME
	}')

# owners HEADER: "FUNCTION MODULE" for what it declares and another module defines.
owners()
{
	awk '/^(static|typedef|#|[[:space:]])/ { next }
		match($0, /^[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*\(/) {
			s = substr($0, 1, RLENGTH - 1); sub(/.*[ *]/, "", s); print s
		}' "$1" | sort -u | join - <(sort -u <<<"$defs") | while read -r fn d; do
		[ "$(module "$d")" = "$(module "$1")" ] || echo "$fn $(module "$d")"
	done
}

nfiles=0 nincl=0
declare -A owned
for h in $(grep '\.h$' <<<"$files"); do
	[ -e "$h" ] || continue
	owned[$h]=$(owners "$h")
	for m in $(awk '{ print $2 }' <<<"${owned[$h]}" | sort -u); do
		hr=$(rank "$h") mr=$(rank "$m.c")
		if [ -n "$hr" ] && [ -n "$mr" ] && [ "$mr" -gt "$hr" ]; then
			echo "FAIL layers: $h declares what $m.c defines: ${m%%/*}/ is above ${h%%/*}/"
			fail=1
		fi
	done
done
for f in $files; do
	[ -e "$f" ] || continue
	nfiles=$((nfiles + 1))
	fr=$(rank "$f")
	if [ -z "$fr" ]; then
		echo "FAIL layers: $f is in no layer (${layers[*]} qdiscctl.c)"
		fail=1
		continue
	fi
	while read -r inc; do
		# As the compiler looks: beside the including file first, then -I.
		if [ -e "$(dirname "$f")/$inc" ]; then
			t=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
		elif [ -e "$inc" ]; then
			t=$inc
		else
			continue
		fi
		nincl=$((nincl + 1))
		tr=$(rank "$t")
		if [ -z "$tr" ]; then
			echo "FAIL layers: $f includes $t, which is in no layer"
			fail=1
		elif [ "$tr" -gt "$fr" ]; then
			echo "FAIL layers: $f includes $t: ${t%%/*}/ is above ${f%%/*}/"
			fail=1
		fi
		# The modules whose functions f calls through t, besides t's own.
		deps=$(module "$t")
		while read -r fn m; do
			[ -n "$fn" ] && grep -qw "$fn" "$f" && deps="$deps $m"
		done <<<"${owned[$t]-}"
		for m in $deps; do
			[ "$(module "$f")" = "$m" ] || echo "$(module "$f") $m" >>"$edges"
		done
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

# tsort names the modules of a circle when it finds one.
if ! loop=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$loop" ]; then
	echo "FAIL layers: an include circle:"
	sed -n 's/^tsort: //p' <<<"$loop" | grep -v 'input contains a loop' | awk '!seen[$0]++' |
		sed 's/^/      /'
	fail=1
fi
[ $fail = 0 ] && echo "PASS layers: $nincl includes in $nfiles files, no back-edge, no circle"
exit $fail
