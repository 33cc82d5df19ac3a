#!/usr/bin/env bash
# A short run of every libFuzzer target (tests/fuzz): FUZZ_SECONDS (10)
# each. Skipped (77) when clang has no fuzzer runtime (libclang-rt-16-dev);
# a crash, leak or timeout fails, naming the input under build/fuzz/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
clang=${CLANG:-clang-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$tmp/t.c"
if ! "$clang" -fsanitize=fuzzer,address -o "$tmp/t" "$tmp/t.c" 2>/dev/null; then
	echo "SKIP fuzz: $clang cannot link -fsanitize=fuzzer (install libclang-rt-16-dev)"
	exit 77
fi
if out=$(make -s -C "$top" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-10}" 2>&1); then
	printf '%s\n' "$out"
	echo "PASS fuzz"
	exit 0
fi
printf '%s\n' "$out"
echo "FAIL fuzz"
exit 1
