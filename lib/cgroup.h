/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Naming cgroup v2 directories: options take a path, BPF programs see the
 * cgroup's id (its kernfs node id, the directory's inode number on 64-bit
 * kernels), and show prints the path again.
 */
#ifndef QDISCCTL_CGROUP_H
#define QDISCCTL_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where cgroup2 is mounted, or NULL (errno set) when it is not. */
const char *qd_cgroup_root(void);

/*
 * The id of the cgroup at path: an absolute path under the cgroup2 mount,
 * or a path relative to that mount ("/a/b" or "a/b", as /proc/PID/cgroup
 * shows them). Returns 0 or -errno.
 */
int qd_cgroup_id(const char *path, uint64_t *id);

/* The cgroup with that id, as a path relative to the mount ("/a/b"), or NULL when gone. */
const char *qd_cgroup_path(uint64_t id, char *buf, size_t len);

/* Every cgroup below the mount, one relative path a line, for completion. */
void qd_cgroup_list(FILE *f);

#endif
