// SPDX-License-Identifier: GPL-2.0
/*
 * Save files: a directory or a file another user could have planted or
 * redirected is refused; a write never goes through a symlink and the
 * first save of an exclusive one stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/savefile.h"
#include "test.h"

static char top[] = "/tmp/qdiscctl-savefile-XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][256];
	static int i;

	snprintf(buf[i & 3], sizeof(buf[0]), "%s/%s", top, name);
	return buf[i++ & 3];
}

static void test_dir(void)
{
	struct stat st;
	int fd;

	CHECK_INT(qd_own_dir(at("none"), false, true), -ENOENT);
	fd = qd_own_dir(at("state"), true, true);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(stat(at("state"), &st), 0);
	CHECK_INT(st.st_mode & 07777, 0700);
	/* Open to others, or a symlink in its place: refused. */
	CHECK_INT(mkdir(at("open"), 0700), 0);
	CHECK_INT(chmod(at("open"), 0777), 0);
	CHECK_INT(qd_own_dir(at("open"), true, true), -EPERM);
	CHECK_INT(symlink(at("state"), at("link")), 0);
	CHECK(qd_own_dir(at("link"), true, true) < 0);
}

static void test_files(void)
{
	char buf[64];
	int fd;

	CHECK_INT(qd_save_read(at("state/x"), buf, sizeof(buf)), -ENOENT);
	CHECK_INT(qd_save_write(at("state/x"), "one\n", true), 0);
	CHECK_INT(qd_save_read(at("state/x"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "one\n");
	/* Exclusive: the first save stays; otherwise replaced. */
	CHECK_INT(qd_save_write(at("state/x"), "two\n", true), -EEXIST);
	CHECK_INT(qd_save_read(at("state/x"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "one\n");
	CHECK_INT(qd_save_write(at("state/x"), "three\n", false), 0);
	CHECK_INT(qd_save_read(at("state/x"), buf, 4), 0);
	CHECK_STR(buf, "thr");

	/* A symlink at the save file or its temporary: replaced, the target untouched. */
	fd = open(at("victim"), O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "victim", 6) == 6);
	close(fd);
	CHECK_INT(symlink(at("victim"), at("state/y")), 0);
	CHECK_INT(qd_save_read(at("state/y"), buf, sizeof(buf)), -EPERM);
	CHECK_INT(symlink(at("victim"), at("state/y.tmp")), 0);
	CHECK_INT(qd_save_write(at("state/y"), "mine\n", false), 0);
	CHECK_INT(qd_save_read(at("state/y"), buf, sizeof(buf)), 0);
	CHECK_STR(buf, "mine\n");
	fd = open(at("victim"), O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 6);
	close(fd);

	/* A file others may write is not read. */
	fd = open(at("state/z"), O_WRONLY | O_CREAT, 0600);
	close(fd);
	CHECK_INT(chmod(at("state/z"), 0666), 0);
	CHECK_INT(qd_save_read(at("state/z"), buf, sizeof(buf)), -EPERM);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(top))
		return 1;
	test_dir();
	test_files();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		return 1;
	return test_summary("test_savefile");
}
