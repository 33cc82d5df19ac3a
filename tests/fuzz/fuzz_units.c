// SPDX-License-Identifier: GPL-2.0
/* The value parsers of the command line: every one on the same string. */
#include "lib/units.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t v64;
	uint32_t v32;

	parse_u32(s, &v32);
	parse_u64(s, &v64);
	parse_rate(s, &v64);
	parse_size(s, &v64);
	parse_time(s, &v64);
	parse_handle(s, &v32);
	parse_classid(s, &v32);
	free(s);
	return 0;
}
