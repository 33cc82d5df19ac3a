// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/file.h>

#include "lib/common.h"
#include "lib/savefile.h"

/* Ours: owned by whoever runs qdiscctl (root in use, the tests' user in tests). */
static bool ours(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int qd_own_dir(const char *dir, bool create, bool say)
{
	struct stat st;
	int fd, err;

	if (create && mkdir(dir, 0700) && errno != EEXIST)
		goto fail;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -ENOENT;
		goto fail;
	}
	if (fstat(fd, &st)) {
		close(fd);
		goto fail;
	}
	if (!ours(&st) || (st.st_mode & (S_IRWXG | S_IRWXO))) {
		if (say)
			qd_err("%s is not qdiscctl's (owner uid %u, mode %04o; qdiscctl makes it "
			       "its user's, mode 0700): remove it as root",
			       dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
fail:
	err = -errno;
	if (say)
		qd_err("cannot open %s: %s", dir, strerror(errno));
	return err;
}

int qd_save_lock(const char *dir)
{
	int fd = qd_own_dir(dir, true, true);

	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX)) {
		int err = -errno;

		qd_err("cannot lock %s: %s", dir, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

int qd_save_read(const char *path, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode) || !ours(&st))
		err = -EPERM;
	if (!err) {
		n = read(fd, buf, len - 1);
		if (n < 0)
			err = -errno;
		else
			buf[n] = '\0';
	}
	close(fd);
	return err;
}

int qd_save_write(const char *path, const char *text, bool excl)
{
	char tmp[PATH_MAX];
	size_t n = strlen(text);
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* What a killed run left; a symlink there is removed, not followed. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n || fsync(fd))
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	/*
	 * rename replaces whatever path is, a symlink included, without
	 * following it; link does not replace, so the first save stays.
	 */
	if (!err && (excl ? link(tmp, path) : rename(tmp, path)))
		err = -errno;
	if (err || excl)
		unlink(tmp);
	return err;
}
