// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/batch.h"
#include "lib/common.h"

#define BATCH_MAX_WORDS 256

int batch_split(char *line, char **argv, int max)
{
	char *in = line, *out = line;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r')
			in++;
		if (!*in || *in == '#')
			return argc;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = out;
		for (; *in; in++) {
			if (quote) {
				if (*in == quote)
					quote = 0;
				else if (*in == '\\' && quote == '"' && in[1])
					*out++ = *++in;
				else
					*out++ = *in;
			} else if (*in == '\'' || *in == '"') {
				quote = *in;
			} else if (*in == '\\' && in[1]) {
				*out++ = *++in;
			} else if (strchr(" \t\r\n", *in)) {
				break;
			} else {
				*out++ = *in;
			}
		}
		if (quote)
			return -EINVAL;
		/* The separator may be the character we write the NUL over. */
		if (*in)
			in++;
		*out++ = '\0';
	}
}

/*
 * Read one command, joining lines that end in an unescaped backslash (an
 * odd number of them) with the next. *lineno is the command's first line;
 * *next is the number of lines read so far. Returns the length, or -1 at
 * the end of the file.
 */
static ssize_t batch_getcmd(FILE *f, char **buf, size_t *cap, int *lineno, int *next)
{
	char *part = NULL;
	size_t part_cap = 0, len = 0;
	ssize_t n;

	*lineno = *next + 1;
	while ((n = getline(&part, &part_cap, f)) > 0) {
		size_t bs = 0;

		(*next)++;
		if (part[n - 1] == '\n')
			part[--n] = '\0';
		if (n && part[n - 1] == '\r')
			part[--n] = '\0';
		while (bs < (size_t)n && part[n - 1 - bs] == '\\')
			bs++;
		if (*cap < len + n + 2) {
			char *p = realloc(*buf, len + n + 2);

			if (!p) {
				free(part);
				return -1;
			}
			*buf = p;
			*cap = len + n + 2;
		}
		memcpy(*buf + len, part, n);
		len += n;
		(*buf)[len] = '\0';
		if (!(bs & 1))
			break;
		/* Drop the backslash; the line break becomes a blank. */
		(*buf)[len - 1] = ' ';
	}
	free(part);
	return *lineno <= *next ? (ssize_t)len : -1;
}

int batch_run(const char *file, bool force, int (*run)(int argc, char **argv))
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL, *argv[BATCH_MAX_WORDS];
	size_t cap = 0;
	int first = QD_EXIT_OK, lineno = 0, nread = 0;

	if (!f) {
		qd_err("cannot open batch file \"%s\": %s", file, strerror(errno));
		return QD_EXIT_FAIL;
	}
	qd_opts.src_file = strcmp(file, "-") ? file : "<stdin>";
	while (batch_getcmd(f, &line, &cap, &lineno, &nread) >= 0) {
		int argc, ret;

		qd_opts.src_line = lineno;
		argc = batch_split(line, argv, BATCH_MAX_WORDS);
		if (argc == 0)
			continue;
		if (argc < 0) {
			qd_err(argc == -E2BIG ? "too many words" : "unterminated quote");
			ret = QD_EXIT_USAGE;
		} else {
			ret = run(argc, argv);
		}
		if (ret && !first)
			first = ret;
		if (ret && !force)
			break;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	qd_opts.src_file = NULL;
	return first;
}
