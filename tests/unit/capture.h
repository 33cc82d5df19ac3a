/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture what the out_* printers write, text or JSON, as a string:
 * cap_start(json), print, then cap_end() returns the output, which stays
 * valid until the next cap_start().
 */
#ifndef QDISCCTL_TEST_CAPTURE_H
#define QDISCCTL_TEST_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/json_print.h"

static char *cap_buf;
static size_t cap_len;
static FILE *cap_f;

static inline void cap_start(bool json)
{
	free(cap_buf);
	cap_buf = NULL;
	cap_f = open_memstream(&cap_buf, &cap_len);
	out_start(cap_f, json, false);
}

static inline char *cap_end(void)
{
	out_end();
	fclose(cap_f);
	return cap_buf;
}

#endif
