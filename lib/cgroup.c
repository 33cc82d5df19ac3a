// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* kernfs file handles are the node id; see kernfs_encode_fh(). */
#define FILEID_KERNFS 0xfe

static char root[PATH_MAX];

const char *qd_cgroup_root(void)
{
	char line[4096], dir[PATH_MAX], fstype[64];
	FILE *f;

	if (root[0])
		return root;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPER" */
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2") ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", dir) != 1)
			continue;
		snprintf(root, sizeof(root), "%s", dir);
		break;
	}
	fclose(f);
	if (!root[0])
		errno = ENOENT;
	return root[0] ? root : NULL;
}

int qd_cgroup_id(const char *path, uint64_t *id)
{
	const char *r = qd_cgroup_root();
	char full[PATH_MAX];
	size_t rl;
	struct statfs sfs;
	struct stat st;

	if (!r)
		return -errno;
	rl = strlen(r);
	if (!strncmp(path, r, rl) && (path[rl] == '/' || !path[rl]))
		snprintf(full, sizeof(full), "%s", path);
	else if ((size_t)snprintf(full, sizeof(full), "%s/%s", r, path) >= sizeof(full))
		return -ENAMETOOLONG;
	if (stat(full, &st) || statfs(full, &sfs))
		return -errno;
	if (!S_ISDIR(st.st_mode) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -ENOTDIR;
	*id = st.st_ino;
	return 0;
}

const char *qd_cgroup_path(uint64_t id, char *buf, size_t len)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS },
		.id = id };
	const char *r = qd_cgroup_root();
	char link[64], target[PATH_MAX];
	int mfd, fd;
	ssize_t n;
	size_t rl;

	if (!r || (mfd = open(r, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return NULL;
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(mfd);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	close(fd);
	rl = strlen(r);
	if (n < 0 || (size_t)n < rl)
		return NULL;
	target[n] = '\0';
	/* A cgroup removed while its fd is open reads back as "... (deleted)". */
	if (strstr(target, " (deleted)"))
		return NULL;
	snprintf(buf, len, "%s", target[rl] ? target + rl : "/");
	return buf;
}

static FILE *list_out;
static size_t list_skip;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_D)
		fprintf(list_out, "%s\n", path[list_skip] ? path + list_skip : "/");
	return 0;
}

void qd_cgroup_list(FILE *f)
{
	const char *r = qd_cgroup_root();

	if (!r)
		return;
	list_out = f;
	list_skip = strlen(r);
	nftw(r, list_one, 16, FTW_PHYS | FTW_MOUNT);
}
