// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int batch_run(const char *file, bool force, int (*run)(int argc, char **argv))
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL, *argv[BATCH_MAX_WORDS];
	size_t cap = 0;
	int first = QD_EXIT_OK, lineno = 0;

	if (!f) {
		qd_err("cannot open batch file \"%s\": %s", file, strerror(errno));
		return QD_EXIT_FAIL;
	}
	qd_opts.src_file = strcmp(file, "-") ? file : "<stdin>";
	while (getline(&line, &cap, f) > 0) {
		int argc, ret;

		qd_opts.src_line = ++lineno;
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
