// SPDX-License-Identifier: GPL-2.0
/* Splitting batch lines into words; running batch files. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/batch.h"
#include "lib/common.h"
#include "test.h"

static char *words[8];

static int split(const char *line, char *buf, size_t len)
{
	snprintf(buf, len, "%s", line);
	return batch_split(buf, words, 8);
}

/* batch_run with a fake command: records each argv, returns chosen codes. */
static char calls[16][128];
static int ncalls, codes[16], call_line[16];

static int fake_run(int argc, char **argv)
{
	char *p = calls[ncalls];
	int i;

	for (i = 0; i < argc; i++)
		p += sprintf(p, "%s%s", i ? "|" : "", argv[i]);
	call_line[ncalls] = qd_opts.src_line;
	return codes[ncalls++];
}

static int run_file(const char *text, bool force)
{
	char path[] = "/tmp/test_batch.XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	ncalls = 0;
	memset(calls, 0, sizeof(calls));
	ret = batch_run(path, force, fake_run);
	unlink(path);
	return ret;
}

/* batch_run on path with stderr in msg (its first line) and *lines (its line count). */
static int run_captured(const char *path, bool force, char *msg, size_t n, int *lines)
{
	int saved = dup(2), ret, c;
	FILE *err = tmpfile();

	ncalls = 0;
	memset(calls, 0, sizeof(calls));
	fflush(stderr);
	dup2(fileno(err), 2);
	ret = batch_run(path, force, fake_run);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	if (!fgets(msg, n, err))
		msg[0] = '\0';
	rewind(err);
	*lines = 0;
	while ((c = getc(err)) != EOF)
		*lines += c == '\n';
	fclose(err);
	return ret;
}

/* A file with these n bytes; its name in path (a mkstemp template, or a name it made). */
static void write_bytes(char *path, const char *bytes, size_t n)
{
	int fd;
	FILE *f;

	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	fd = mkstemp(path);
	f = fdopen(fd, "w");

	fwrite(bytes, 1, n, f);
	fclose(f);
}

/* qd_err's output for a batch whose line 3 (continued to 4) is unterminated. */
static void check_prefix(void)
{
	static const char text[] = "a\n\nb 'x \\\ny\nc\n";
	char path[] = "/tmp/test_batch.XXXXXX", msg[256];
	int lines;

	memset(codes, 0, sizeof(codes));
	write_bytes(path, text, sizeof(text) - 1);
	CHECK_INT(run_captured(path, false, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	CHECK_INT(ncalls, 1);
	CHECK(!strncmp(msg, path, strlen(path)));
	CHECK_STR(msg + strlen(path), ":3: unterminated quote\n");
	CHECK(qd_opts.src_file == NULL);
	unlink(path);
}

/* What is not a line of text ends the batch, or that command, with one line. */
static void check_bad_input(void)
{
	char path[] = "/tmp/test_batch.XXXXXX", dir[] = "/tmp/test_batch.XXXXXX", msg[256];
	char want[256], *big;
	int lines;

	memset(codes, 0, sizeof(codes));
	/* A directory is a read error, not an empty file. */
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(run_captured(dir, true, msg, sizeof(msg), &lines), QD_EXIT_FAIL);
	snprintf(want, sizeof(want), "%s:1: cannot read the batch file: Is a directory\n", dir);
	CHECK_STR(msg, want);
	CHECK_INT(lines, 1);
	CHECK_INT(ncalls, 0);
	rmdir(dir);

	/* A NUL refuses its command, named by the line it is on; --force goes on. */
	write_bytes(path, "a\nb \\\nc d\0e\nf\n", 14);
	CHECK_INT(run_captured(path, true, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	snprintf(want, sizeof(want), "%s:3: a NUL byte at column 4: a batch line is text\n", path);
	CHECK_STR(msg, want);
	CHECK_INT(lines, 1);
	CHECK_INT(ncalls, 2);
	CHECK_STR(calls[0], "a");
	CHECK_STR(calls[1], "f");
	CHECK_INT(call_line[1], 4);
	CHECK_INT(run_captured(path, false, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	CHECK_INT(ncalls, 1);
	unlink(path);

	/* The longest command runs; one byte more stops the batch, even with --force. */
	big = malloc(65536 + 16);
	memset(big, ' ', 65536 + 16);
	big[0] = 'a';
	big[65536] = '\n';
	memcpy(big + 65537, "b\n", 2);
	write_bytes(path, big, 65539);
	CHECK_INT(run_captured(path, true, msg, sizeof(msg), &lines), 0);
	CHECK_INT(ncalls, 2);
	CHECK_STR(calls[0], "a");
	CHECK_INT(lines, 0);
	unlink(path);
	big[65536] = ' ';
	big[65537] = '\n';
	memcpy(big + 65538, "b\n", 2);
	write_bytes(path, big, 65540);
	CHECK_INT(run_captured(path, true, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	snprintf(want, sizeof(want),
		 "%s:1: a command longer than 65536 bytes, the most a batch line may be "
		 "(continuation lines joined)\n",
		 path);
	CHECK_STR(msg, want);
	CHECK_INT(lines, 1);
	CHECK_INT(ncalls, 0);
	unlink(path);
	/* Counted over continuation lines, named by the line it goes past the limit on. */
	big[40000] = '\\';
	big[40001] = '\n';
	big[65537] = ' ';
	big[65538] = ' ';
	big[65539] = '\n';
	write_bytes(path, big, 65540);
	CHECK_INT(run_captured(path, true, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	CHECK(strstr(msg, ":2: a command longer than 65536 bytes") != NULL);
	unlink(path);
	free(big);

	/* A stream without line breaks: one line, after reading no more than the limit. */
	CHECK_INT(run_captured("/dev/zero", false, msg, sizeof(msg), &lines), QD_EXIT_USAGE);
	CHECK_STR(msg, "/dev/zero:1: a command longer than 65536 bytes, the most a batch line may "
		       "be (continuation lines joined)\n");
	CHECK_INT(lines, 1);
}

static void check_run(void)
{
	memset(codes, 0, sizeof(codes));
	/* Continuation: joined with a blank, the first line's number. */
	CHECK_INT(run_file("# c\nadd dev a \\\n  root fifo\\\n limit 5\n\nshow\n", false), 0);
	CHECK_INT(ncalls, 2);
	CHECK_STR(calls[0], "add|dev|a|root|fifo|limit|5");
	CHECK_INT(call_line[0], 2);
	CHECK_STR(calls[1], "show");
	CHECK_INT(call_line[1], 6);
	/* An escaped backslash does not continue; CRLF line ends. */
	CHECK_INT(run_file("a b\\\\\r\nc\r\n", false), 0);
	CHECK_INT(ncalls, 2);
	CHECK_STR(calls[0], "a|b\\");
	CHECK_STR(calls[1], "c");
	/* A continued comment swallows the next line; a last line continued. */
	CHECK_INT(run_file("# x \\\nnot run\nd \\", false), 0);
	CHECK_INT(ncalls, 1);
	CHECK_STR(calls[0], "d");
	CHECK_INT(call_line[0], 3);
	/* A quote spanning a continuation keeps the blank. */
	CHECK_INT(run_file("e 'f\\\ng'\n", false), 0);
	CHECK_STR(calls[0], "e|f g");

	/* The first failure stops the batch and is the exit code. */
	codes[1] = 2;
	codes[2] = 1;
	CHECK_INT(run_file("a\nb\nc\nd\n", false), 2);
	CHECK_INT(ncalls, 2);
	/* --force goes on and keeps the first failure's code. */
	CHECK_INT(run_file("a\nb\nc\nd\n", true), 2);
	CHECK_INT(ncalls, 4);
	CHECK_STR(calls[3], "d");
	codes[1] = 0;
	codes[2] = 0;
	/* A bad line is a usage error and, with --force, not the last word. */
	codes[1] = 1;
	CHECK_INT(run_file("a \"x\nb\nc\n", true), QD_EXIT_USAGE);
	CHECK_INT(ncalls, 2);
	codes[1] = 0;
	CHECK_INT(run_file("a\n", false), 0);
	CHECK_INT(batch_run("/nonexistent/batch", false, fake_run), QD_EXIT_FAIL);
	check_prefix();
	check_bad_input();
}

int main(void)
{
	char buf[256];

	CHECK_INT(split("", buf, sizeof(buf)), 0);
	CHECK_INT(split("   \t\n", buf, sizeof(buf)), 0);
	CHECK_INT(split("# add dev x root fifo", buf, sizeof(buf)), 0);
	CHECK_INT(split("add dev va root fifo limit 10\n", buf, sizeof(buf)), 7);
	CHECK_STR(words[0], "add");
	CHECK_STR(words[6], "10");
	CHECK_INT(split("  show   dev\tva  # a comment", buf, sizeof(buf)), 3);
	CHECK_STR(words[2], "va");
	CHECK_INT(split("a 'b c' \"d \\\"e\\\"\" f\\ g", buf, sizeof(buf)), 4);
	CHECK_STR(words[1], "b c");
	CHECK_STR(words[2], "d \"e\"");
	CHECK_STR(words[3], "f g");
	CHECK_INT(split("x'#not a comment'", buf, sizeof(buf)), 1);
	CHECK_STR(words[0], "x#not a comment");
	CHECK_INT(split("''", buf, sizeof(buf)), 1);
	CHECK_STR(words[0], "");
	CHECK_INT(split("a 'open", buf, sizeof(buf)), -EINVAL);
	CHECK_INT(split("1 2 3 4 5 6 7 8", buf, sizeof(buf)), 8);
	CHECK_INT(split("1 2 3 4 5 6 7 8 9", buf, sizeof(buf)), -E2BIG);
	check_run();
	return test_summary("test_batch");
}
