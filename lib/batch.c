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
 * The longest command, continuation lines joined: far more than any real
 * one needs (eight cgroup paths of PATH_MAX), and a bound on the memory
 * that a stream without line breaks (-b /dev/zero) can take.
 */
#define BATCH_MAX_LINE 65536

/* What batch_getcmd answers besides a length. */
enum { BATCH_EOF = -1, BATCH_READ_ERROR = -2, BATCH_TOO_LONG = -3, BATCH_NUL = -4 };

/*
 * Read one command into buf (BATCH_MAX_LINE + 1 bytes), joining lines that
 * end in an unescaped backslash (an odd number of them) with the next.
 * *lineno is the command's first line; *next is the number of lines read
 * so far. Returns the length, BATCH_EOF at the end of the file, or, with
 * its message printed, BATCH_READ_ERROR, BATCH_TOO_LONG (beyond
 * BATCH_MAX_LINE: where the next command starts is not known) or
 * BATCH_NUL (a C string would end the command at the NUL, silently).
 */
static int batch_getcmd(FILE *f, char *buf, int *lineno, int *next)
{
	size_t len = 0, nul_at = 0;
	int nul_line = 0;

	*lineno = *next + 1;
	for (;;) {
		size_t start = len, bs = 0;
		int c;

		while ((c = getc_unlocked(f)) != EOF && c != '\n') {
			if (len == BATCH_MAX_LINE) {
				qd_opts.src_line = *next + 1;
				qd_err("a command longer than %d bytes, the most a batch line may "
				       "be "
				       "(continuation lines joined)",
				       BATCH_MAX_LINE);
				return BATCH_TOO_LONG;
			}
			if (!c && !nul_line) {
				nul_line = *next + 1;
				nul_at = len - start + 1;
			}
			buf[len++] = c;
		}
		if (c == EOF && ferror(f)) {
			qd_opts.src_line = *next + 1;
			qd_err("cannot read the batch file: %s", strerror(errno));
			return BATCH_READ_ERROR;
		}
		if (c == EOF && len == start)
			break;
		(*next)++;
		if (len > start && buf[len - 1] == '\r')
			len--;
		while (bs < len - start && buf[len - 1 - bs] == '\\')
			bs++;
		if (!(bs & 1))
			break;
		/* Drop the backslash; the line break becomes a blank. */
		buf[len - 1] = ' ';
	}
	buf[len] = '\0';
	if (*lineno > *next)
		return BATCH_EOF;
	if (nul_line) {
		qd_opts.src_line = nul_line;
		qd_err("a NUL byte at column %zu: a batch line is text", nul_at);
		return BATCH_NUL;
	}
	return len;
}

int batch_each(const char *file, bool force, int (*fn)(int argc, char **argv, void *data),
	       void *data)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line, *argv[BATCH_MAX_WORDS];
	int first = QD_EXIT_OK, lineno = 0, nread = 0, n;

	if (!f) {
		qd_err("cannot open \"%s\": %s", qd_tok(file), strerror(errno));
		return QD_EXIT_FAIL;
	}
	line = malloc(BATCH_MAX_LINE + 1);
	if (!line) {
		qd_err("no memory for a batch line of %d bytes", BATCH_MAX_LINE);
		first = QD_EXIT_FAIL;
		goto out;
	}
	qd_opts.src_file = strcmp(file, "-") ? file : "<stdin>";
	while ((n = batch_getcmd(f, line, &lineno, &nread)) != BATCH_EOF) {
		int argc, ret;

		/* Even with --force: what follows cannot be read as commands. */
		if (n == BATCH_READ_ERROR || n == BATCH_TOO_LONG) {
			if (!first)
				first = n == BATCH_READ_ERROR ? QD_EXIT_FAIL : QD_EXIT_USAGE;
			break;
		}
		qd_opts.src_line = lineno;
		argc = n == BATCH_NUL ? -EILSEQ : batch_split(line, argv, BATCH_MAX_WORDS);
		if (argc == 0)
			continue;
		if (argc == -EILSEQ) {
			ret = QD_EXIT_USAGE; /* told by batch_getcmd */
		} else if (argc < 0) {
			qd_err(argc == -E2BIG ? "too many words" : "unterminated quote");
			ret = QD_EXIT_USAGE;
		} else {
			ret = fn(argc, argv, data);
		}
		if (ret && !first)
			first = ret;
		if (ret && !force)
			break;
	}
	free(line);
out:
	if (f != stdin)
		fclose(f);
	qd_opts.src_file = NULL;
	return first;
}

struct run_adapter {
	int (*run)(int argc, char **argv);
};

static int call_run(int argc, char **argv, void *data)
{
	return ((struct run_adapter *)data)->run(argc, argv);
}

int batch_run(const char *file, bool force, int (*run)(int argc, char **argv))
{
	struct run_adapter a = { run };

	return batch_each(file, force, call_run, &a);
}
