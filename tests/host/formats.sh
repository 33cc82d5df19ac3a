#!/usr/bin/env bash
# lib/json_print.h's print_*() have the compiler check each text format
# against the value's type (-Wformat): a format that does not match fails
# the build, one that matches (or has no conversion, or is NULL) builds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# try NAME CALL: compile one call as the project compiles its sources.
try()
{
	printf '#include "lib/json_print.h"\nvoid f(void);\nvoid f(void)\n{\n\t%s;\n}\n' "$2" \
		>"$tmp/$1.c"
	"$cc" -I"$top" -D_GNU_SOURCE -Wall -Wextra -Werror -c -o "$tmp/$1.o" "$tmp/$1.c" \
		2>"$tmp/$1.err"
}

fail=0 n=0
for good in 'print_uint(PRINT_ANY, "k", "a %llu b", 1)' 'print_uint(PRINT_JSON, "k", NULL, 1)' \
	'print_bool(PRINT_ANY, "root", "root ", 1)' 'print_string(PRINT_FP, NULL, "%-4s|", "a")' \
	'print_int(PRINT_FP, NULL, "%+lld", -1)' 'print_size(PRINT_ANY, "b", " backlog %s ", 1)'; do
	n=$((n + 1))
	try good$n "$good" || { echo "FAIL formats: '$good' does not build: $(head -1 "$tmp/good$n.err")"; fail=1; }
done
for bad in 'print_uint(PRINT_FP, NULL, "%u", 1)' 'print_uint(PRINT_FP, NULL, "%s", 1)' \
	'print_string(PRINT_FP, NULL, "%d", "a")' 'print_int(PRINT_FP, NULL, "%llu %lld", 1)' \
	'print_rate(PRINT_FP, NULL, "%llu", 1)'; do
	n=$((n + 1))
	if try bad$n "$bad"; then
		echo "FAIL formats: '$bad' builds: -Wformat did not check it"
		fail=1
	elif ! grep -qE 'Werror=format|-Wformat' "$tmp/bad$n.err"; then
		echo "FAIL formats: '$bad' fails for another reason: $(head -1 "$tmp/bad$n.err")"
		fail=1
	fi
done
[ $fail = 0 ] && echo "PASS formats: $n calls, the mismatched ones refused by -Wformat"
exit $fail
