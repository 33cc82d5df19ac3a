// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "core/lock.h"
#include "lib/common.h"
#include "lib/savefile.h"
#include "lib/testkill.h"

#define QD_BPFFS "/sys/fs/bpf"

static int ensure_bpffs(void)
{
	struct statfs st;

	if (statfs(QD_BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", QD_BPFFS, "bpf", 0, "mode=0700")) {
		qd_err("cannot mount bpffs on %s: %s", QD_BPFFS, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * QD_PIN_ROOT as this process holds it open: every path below it goes
 * through /proc/self/fd/ROOT_FD, so that a directory renamed or swapped
 * for a symlink after it was checked is never followed. -1: not open.
 */
static int root_fd = -1;

/*
 * Open QD_PIN_ROOT (making it first when create) and check that it is
 * qdiscctl's: a real directory on bpffs, owned by root, mode 0700. A bpffs
 * mounted without mode= lets any user make it first, fill it with
 * symlinks or hold its lock; such a directory is refused, untouched.
 * Returns the descriptor, -ENOENT when there is none and !create, else
 * -errno, with the reason said when create: readers (show, kinds) find no
 * registration there, the command that would change one says why.
 */
static int open_root(bool create)
{
	struct statfs sf;
	int fd, err;

	if (create && (err = ensure_bpffs()))
		return err;
	/* qdiscctl changes registrations as root only: "its user's" is root's. */
	fd = qd_own_dir(QD_PIN_ROOT, create, create);
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &sf) || sf.f_type != BPF_FS_MAGIC) {
		if (create)
			qd_err("%s is not on bpffs: remove it as root", QD_PIN_ROOT);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Is fd still what QD_PIN_ROOT names? The last holder of the lock removes it. */
static bool root_current(int fd)
{
	struct stat held, now;

	return !fstat(fd, &held) && !fstatat(AT_FDCWD, QD_PIN_ROOT, &now, AT_SYMLINK_NOFOLLOW) &&
	       held.st_ino == now.st_ino && held.st_dev == now.st_dev;
}

/* For readers: QD_PIN_ROOT checked and held, 0; -ENOENT when there is none. */
int qd_pin_use_root(void)
{
	int fd;

	if (root_fd >= 0 && root_current(root_fd))
		return 0;
	fd = open_root(false);
	if (fd < 0)
		return fd;
	if (root_fd >= 0)
		close(root_fd);
	root_fd = fd;
	return 0;
}

int qd_lock(void)
{
	int fd;

	for (;;) {
		fd = open_root(true);
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX)) {
			int err = -errno;

			qd_err("cannot lock %s: %s", QD_PIN_ROOT, strerror(errno));
			close(fd);
			return err;
		}
		/* The holder before us may have removed the directory we waited on. */
		if (root_current(fd))
			break;
		close(fd);
	}
	if (root_fd >= 0)
		close(root_fd);
	root_fd = fd;
	qd_test_kill(QD_KILL_LOCK);
	return fd;
}

void qd_unlock(int fd)
{
	if (fd < 0)
		return;
	/*
	 * The last one out removes the directory (rmdir fails while anything
	 * is registered); a process waiting on it notices and makes a new one.
	 */
	rmdir(QD_PIN_ROOT);
	if (fd == root_fd)
		root_fd = -1;
	close(fd);
}

void qd_pin_path(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "/proc/self/fd/%d/%s%s%s", root_fd, dir, name ? "/" : "",
		 name ? name : "");
}

/* A registration's directory as qdiscctl makes it: a real one, root's. */
bool qd_pin_own_dir(const char *dir)
{
	struct stat st;

	return root_fd >= 0 && !fstatat(root_fd, dir, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode) && st.st_uid == 0;
}

/* Is entry name of registration dir a symlink (or gone)? Then it is never followed. */
bool qd_pin_is_symlink(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return root_fd < 0 || fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW) ||
	       S_ISLNK(st.st_mode);
}

/* Unpin a link, detaching it at once rather than whenever its last reference goes. */
void qd_unpin_link(const char *path)
{
	int fd = bpf_obj_get(path);

	unlink(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
}

void qd_unpin_all(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	/* Maps, the egress program and its attachments: whatever is there. */
	if (!qd_pin_own_dir(dir))
		return;
	qd_pin_path(path, dir, NULL);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "link"))
			continue;
		qd_pin_path(path, dir, e->d_name);
		/* A symlink is removed, never followed to what it names. */
		if (!strncmp(e->d_name, QD_EGRESS_PIN, strlen(QD_EGRESS_PIN)) &&
		    !qd_pin_is_symlink(dir, e->d_name))
			qd_unpin_link(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	qd_test_kill(QD_KILL_UNPINNING);
	/*
	 * The registration's link last. Unpinning alone would unregister the
	 * kind from a workqueue, some time later, and a quick re-add would
	 * collide with it (EEXIST); detaching unregisters it now.
	 */
	qd_pin_path(path, dir, "link");
	if (qd_pin_is_symlink(dir, "link"))
		unlink(path);
	else
		qd_unpin_link(path);
	qd_pin_path(path, dir, NULL);
	rmdir(path);
}
