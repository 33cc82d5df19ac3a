// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/common.h"

struct qd_opts qd_opts;

static void prefix(void)
{
	if (qd_opts.src_file)
		fprintf(stderr, "%s:%d: ", qd_opts.src_file, qd_opts.src_line);
	else
		fputs("qdiscctl: ", stderr);
}

void qd_err(const char *fmt, ...)
{
	va_list ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void qd_err_kernel(int err, const char *extack)
{
	size_t n = extack ? strlen(extack) : 0;

	if (qd_opts.src_file)
		prefix();
	if (n)
		fprintf(stderr, "Error: %s%s\n", extack, extack[n - 1] == '.' ? "" : ".");
	else
		fprintf(stderr, "RTNETLINK answers: %s\n", strerror(err < 0 ? -err : err));
}

bool qd_need_arg(int argc, char **argv, int i)
{
	if (i + 1 < argc)
		return true;
	qd_err("\"%s\" needs an argument", argv[i]);
	return false;
}

/* tc-style abbreviation: "sh" matches "show"; never used for values. */
bool qd_matches(const char *word, const char *full)
{
	size_t n = strlen(word);

	return n && n <= strlen(full) && !strncmp(word, full, n);
}
