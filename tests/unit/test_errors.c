// SPDX-License-Identifier: GPL-2.0
/* Errors in -j mode: JSON on stdout that keeps the document valid. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/common.h"
#include "lib/json_print.h"
#include "test.h"

static char *buf;
static size_t len;
static FILE *mem;

static void begin(bool json, bool pretty)
{
	qd_opts.json = json;
	qd_opts.pretty = pretty;
	mem = open_memstream(&buf, &len);
	out_start(mem, json, pretty);
}

/* Ends the document and returns what was written (valid until next end). */
static const char *end(void)
{
	static char *last;

	out_end();
	fclose(mem);
	free(last);
	last = buf;
	return last;
}

/* Runs fn with fd 1 and 2 in files; returns stdout's text in out, stderr's in err. */
static void capture(void (*fn)(void), char *out, char *err, size_t n)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so = dup(1), se = dup(2);
	size_t k;

	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	fn();
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(fo);
	rewind(fe);
	k = fread(out, 1, n - 1, fo);
	out[k] = '\0';
	k = fread(err, 1, n - 1, fe);
	err[k] = '\0';
	fclose(fo);
	fclose(fe);
}

static void err_alone(void)
{
	qd_err("cannot open \"%s\"", "x\ty");
}

static void err_kernel_alone(void)
{
	qd_err_kernel(-ENOENT, NULL);
}

int main(void)
{
	char out[512], err[512];

	/* Inside an open array: the error is one more element. */
	begin(true, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_string(PRINT_JSON, "kind", NULL, "fifo");
	close_json_object();
	qd_err_kernel(-EINVAL, "Invalid handle.");
	CHECK_STR(end(), "[{\"kind\":\"fifo\"},{\"error\":\"Invalid handle.\",\"errno\":22,"
			 "\"errno_name\":\"EINVAL\"}]\n");

	/* Inside an open object: its members, left open for out_end() to close. */
	begin(true, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "qlen", NULL, 3);
	qd_err("cannot read map: %s", "EPERM");
	CHECK_STR(end(), "[{\"qlen\":3,\"error\":\"cannot read map: EPERM\"}]\n");

	/* Nothing written yet; a kernel error without extack; batch position. */
	begin(true, false);
	qd_opts.src_file = "b\"f";
	qd_opts.src_line = 7;
	qd_err_kernel(ENOENT, NULL);
	qd_opts.src_file = NULL;
	CHECK_STR(end(), "{\"error\":\"No such file or directory\",\"errno\":2,\"errno_name\":"
			 "\"ENOENT\",\"file\":\"b\\\"f\",\"line\":7}\n");

	/* Pretty, nested in an array key. */
	begin(true, true);
	open_json_object(NULL);
	open_json_array(PRINT_JSON, "flows");
	qd_err("x");
	CHECK_STR(end(), "{\n    \"flows\": [ {\n            \"error\": \"x\"\n        } ]\n}\n");

	/* Before out_start(): a document of its own on stdout, stderr empty. */
	qd_opts.json = true;
	qd_opts.pretty = false;
	capture(err_alone, out, err, sizeof(out));
	CHECK_STR(out, "{\"error\":\"cannot open \\\"x\\ty\\\"\"}\n");
	CHECK_STR(err, "");
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(out, "{\"error\":\"No such file or directory\",\"errno\":2,\"errno_name\":"
		       "\"ENOENT\"}\n");
	CHECK_STR(err, "");

	/* Text mode: stderr only, as before. */
	qd_opts.json = false;
	capture(err_alone, out, err, sizeof(out));
	CHECK_STR(out, "");
	CHECK_STR(err, "qdiscctl: cannot open \"x\ty\"\n");
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(out, "");
	CHECK_STR(err, "RTNETLINK answers: No such file or directory\n");
	qd_opts.src_file = "f";
	qd_opts.src_line = 2;
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(err, "f:2: RTNETLINK answers: No such file or directory\n");
	qd_opts.src_file = NULL;
	return test_summary("test_errors");
}
