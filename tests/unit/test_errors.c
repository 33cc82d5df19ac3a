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

/* A token with a line break, an ESC sequence and a byte that is not UTF-8. */
static void err_hostile(void)
{
	qd_err("invalid handle \"%s\"", qd_tok("1:\n\x1b[2J\xff"));
}

static void err_extack(void)
{
	qd_err_kernel(-EINVAL, "bad \"x\ny\"");
}

/* qd_tok: what a message may quote of a token. */
static void check_tok(void)
{
	char big[300], want[200];

	CHECK_STR(qd_tok("fifo"), "fifo");
	CHECK_STR(qd_tok("a\nb\tc\rd"), "a\\nb\\tc\\rd");
	CHECK_STR(qd_tok("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
	/* UTF-8 stays; bytes that are not are escaped, as are C1 controls (CSI). */
	CHECK_STR(qd_tok("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	CHECK_STR(qd_tok("\xff\xc3(\xc0\xaf"), "\\xff\\xc3(\\xc0\\xaf");
	CHECK_STR(qd_tok("\xc2\x9b"
			 "2J"),
		  "\\xc2\\x9b2J");
	CHECK_STR(qd_tok("\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* a surrogate */
	CHECK_STR(qd_tok("\xe2\x82"), "\\xe2\\x82");	      /* cut short */
	/* Long tokens are cut at QD_TOK_MAX bytes, never inside a character. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memset(want, 'a', QD_TOK_MAX);
	strcpy(want + QD_TOK_MAX, "...");
	CHECK_STR(qd_tok(big), want);
	big[QD_TOK_MAX] = '\0';
	CHECK_STR(qd_tok(big), big);
	big[QD_TOK_MAX - 1] = '\xc3';
	big[QD_TOK_MAX] = '\xa9';
	big[QD_TOK_MAX + 1] = '\0';
	want[QD_TOK_MAX - 1] = '\0';
	strcat(want, "...");
	CHECK_STR(qd_tok(big), want);
	/* Escaped bytes count as one of the QD_TOK_MAX. */
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(strlen(qd_tok(big)) == 2 * QD_TOK_MAX + 3);
	/* A part of a word; the buffers last for one message's tokens. */
	CHECK_STR(qd_tokn("packets=x\ny", 7), "packets");
	CHECK_STR(qd_tokn("a\nb", 2), "a\\n");
	CHECK(qd_tok("x") != qd_tok("x"));
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
	CHECK_STR(out, "{\"error\":\"cannot open \\\"x\\\\ty\\\"\"}\n");
	CHECK_STR(err, "");
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(out, "{\"error\":\"No such file or directory\",\"errno\":2,\"errno_name\":"
		       "\"ENOENT\"}\n");
	CHECK_STR(err, "");

	/* Text mode: stderr only, as before. */
	qd_opts.json = false;
	capture(err_alone, out, err, sizeof(out));
	CHECK_STR(out, "");
	CHECK_STR(err, "qdiscctl: cannot open \"x\\ty\"\n");
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(out, "");
	CHECK_STR(err, "RTNETLINK answers: No such file or directory\n");
	qd_opts.src_file = "f";
	qd_opts.src_line = 2;
	capture(err_kernel_alone, out, err, sizeof(out));
	CHECK_STR(err, "f:2: RTNETLINK answers: No such file or directory\n");
	qd_opts.src_file = NULL;

	/* Hostile text is one line, in text and in JSON, and JSON stays UTF-8. */
	check_tok();
	capture(err_hostile, out, err, sizeof(out));
	CHECK_STR(err, "qdiscctl: invalid handle \"1:\\n\\x1b[2J\\xff\"\n");
	capture(err_extack, out, err, sizeof(out));
	CHECK_STR(err, "Error: bad \"x\\ny\".\n");
	qd_opts.src_file = "b\x1b\n";
	capture(err_extack, out, err, sizeof(out));
	CHECK_STR(err, "b\\x1b\\n:2: Error: bad \"x\\ny\".\n");
	qd_opts.src_file = NULL;
	qd_opts.json = true;
	capture(err_hostile, out, err, sizeof(out));
	CHECK_STR(out, "{\"error\":\"invalid handle \\\"1:\\\\n\\\\x1b[2J\\\\xff\\\"\"}\n");
	CHECK_STR(err, "");
	qd_opts.json = false;
	return test_summary("test_errors");
}
