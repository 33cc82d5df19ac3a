// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common.h"
#include "lib/json_print.h"

struct qd_opts qd_opts;

/*
 * The len bytes at s as qd_tok writes them, at most max of them (then
 * "..."), into out, which holds at least 4 * max + 4 bytes. Returns out.
 */
static char *escape(char *out, const char *s, size_t len, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	char *o = out;

	while (i < len && i < max) {
		n = utf8_len(s + i);
		if (i + n > len)
			n = 0;
		/* U+0080..U+009F are controls too: a terminal may take U+009B for an escape. */
		if (n > 1 && !(u[i] == 0xc2 && u[i + 1] < 0xa0)) {
			if (i + n > max)
				break;
			memcpy(o, u + i, n);
			o += n;
			i += n;
			continue;
		}
		if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r') {
			*o++ = '\\';
			*o++ = u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r';
		} else if (u[i] < 0x20 || u[i] >= 0x7f) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[u[i] >> 4];
			*o++ = hex[u[i] & 15];
		} else {
			*o++ = u[i];
		}
		i++;
	}
	if (i < len)
		o = stpcpy(o, "...");
	*o = '\0';
	return out;
}

const char *qd_tokn(const char *s, size_t n)
{
	static char bufs[QD_TOK_BUFS][4 * QD_TOK_MAX + 4];
	static unsigned int next;

	return escape(bufs[next++ % QD_TOK_BUFS], s, n, QD_TOK_MAX);
}

const char *qd_tok(const char *s)
{
	return qd_tokn(s, strlen(s));
}

/* The whole of msg escaped as qd_tok escapes a token; NULL without memory. */
static char *escape_all(const char *msg)
{
	size_t n = strlen(msg);
	char *out = malloc(4 * n + 4);

	return out ? escape(out, msg, n, n) : NULL;
}

static void prefix(void)
{
	if (qd_opts.src_file)
		fprintf(stderr, "%s:%d: ", qd_tok(qd_opts.src_file), qd_opts.src_line);
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
		print_string(PRINT_JSON, "file", NULL, qd_tok(qd_opts.src_file));
		print_int(PRINT_JSON, "line", NULL, qd_opts.src_line);
	}
	if (!in_object)
		close_json_object();
	if (!started)
		out_end();
}

void qd_err(const char *fmt, ...)
{
	char *msg = NULL, *safe;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	safe = escape_all(msg ? msg : fmt);
	free(msg);
	if (qd_opts.json) {
		json_error(safe ? safe : "no memory for the message", 0);
	} else {
		prefix();
		fprintf(stderr, "%s\n", safe ? safe : "no memory for the message");
	}
	free(safe);
}

void qd_err_kernel(int err, const char *extack)
{
	/* The kernel's text too: an extack may quote what it was sent. */
	char *safe = extack && *extack ? escape_all(extack) : NULL;
	size_t n = safe ? strlen(safe) : 0;

	if (err < 0)
		err = -err;
	if (qd_opts.json) {
		json_error(n ? safe : strerror(err), err);
	} else {
		if (qd_opts.src_file)
			prefix();
		if (n)
			fprintf(stderr, "Error: %s%s\n", safe, safe[n - 1] == '.' ? "" : ".");
		else
			fprintf(stderr, "RTNETLINK answers: %s\n", strerror(err));
	}
	free(safe);
}

bool qd_need_arg(int argc, char **argv, int i)
{
	if (i + 1 < argc)
		return true;
	qd_err("\"%s\" needs an argument", qd_tok(argv[i]));
	return false;
}

/* tc-style abbreviation: "sh" matches "show"; never used for values. */
bool qd_matches(const char *word, const char *full)
{
	size_t n = strlen(word);

	return n && n <= strlen(full) && !strncmp(word, full, n);
}

int qd_grow(void *arrp, int *max, int n, size_t size, int first)
{
	int m = *max ? 2 * *max : first;
	void *a, *p;

	if (n < *max)
		return 0;
	memcpy(&a, arrp, sizeof(a));
	p = reallocarray(a, m, size);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*max = m;
	return 0;
}
