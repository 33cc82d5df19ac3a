// SPDX-License-Identifier: GPL-2.0
/* Splitting batch lines into words. */
#include <errno.h>
#include <stdlib.h>

#include "lib/batch.h"
#include "test.h"

static char *words[8];

static int split(const char *line, char *buf, size_t len)
{
	snprintf(buf, len, "%s", line);
	return batch_split(buf, words, 8);
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
	return test_summary("test_batch");
}
