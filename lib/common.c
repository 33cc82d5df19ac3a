// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common.h"
#include "lib/json_print.h"

struct qd_opts qd_opts;

static void prefix(void)
{
	if (qd_opts.src_file)
		fprintf(stderr, "%s:%d: ", qd_opts.src_file, qd_opts.src_line);
	else
		fputs("qdiscctl: ", stderr);
}

/*
 * An error in -j mode, as bpftool: {"error":MSG} on stdout, with "errno"
 * and "errno_name" for a kernel error and "file" and "line" in a batch.
 * Inside an open object these become its members, inside an open array
 * the error object is its next element, so that stdout stays one valid
 * document however far the command got.
 */
static void json_error(const char *msg, int err)
{
	bool started = out_is_json(), in_object;
	const char *name = err ? strerrorname_np(err) : NULL;

	if (!started)
		out_start(stdout, true, qd_opts.pretty);
	in_object = out_in_object();
	if (!in_object)
		open_json_object(NULL);
	print_string(PRINT_JSON, "error", NULL, msg);
	if (err) {
		print_int(PRINT_JSON, "errno", NULL, err);
		print_string(PRINT_JSON, "errno_name", NULL, name);
	}
	if (qd_opts.src_file) {
		print_string(PRINT_JSON, "file", NULL, qd_opts.src_file);
		print_int(PRINT_JSON, "line", NULL, qd_opts.src_line);
	}
	if (!in_object)
		close_json_object();
	if (!started)
		out_end();
}

void qd_err(const char *fmt, ...)
{
	va_list ap;

	if (qd_opts.json) {
		char *msg = NULL;

		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) < 0)
			msg = NULL;
		va_end(ap);
		json_error(msg ? msg : fmt, 0);
		free(msg);
		return;
	}
	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void qd_err_kernel(int err, const char *extack)
{
	size_t n = extack ? strlen(extack) : 0;

	if (err < 0)
		err = -err;
	if (qd_opts.json) {
		json_error(n ? extack : strerror(err), err);
		return;
	}
	if (qd_opts.src_file)
		prefix();
	if (n)
		fprintf(stderr, "Error: %s%s\n", extack, extack[n - 1] == '.' ? "" : ".");
	else
		fprintf(stderr, "RTNETLINK answers: %s\n", strerror(err));
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
