/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the libFuzzer targets: inputs as C strings, quiet errors. */
#ifndef QDISCCTL_FUZZ_H
#define QDISCCTL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common.h"
#include "lib/json_print.h"

/* data as a NUL-terminated copy the caller frees. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Errors go, as -j JSON, to /dev/null: the messages are formatted (and so
 * fuzzed too) without flooding the log libFuzzer's reports go to.
 */
static inline void fuzz_quiet(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	qd_opts.json = true;
	out_start(null, true, false);
}

#endif
