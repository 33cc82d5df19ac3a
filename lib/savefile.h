/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdiscctl's save files (/run/qdiscctl: sysctl's old values, default's old
 * default_qdisc) and the lock on their directory, written and read so that
 * another user can neither plant one nor redirect a write through a symlink.
 */
#ifndef QDISCCTL_LIB_SAVEFILE_H
#define QDISCCTL_LIB_SAVEFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Open dir (making it first, mode 0700, when create) without following a
 * symlink, and check that it is ours: a directory owned by the effective
 * user that nobody else may enter. Returns its descriptor (to flock, say),
 * -ENOENT when it is not there and !create, or -errno, with one line said
 * when say.
 */
int qd_own_dir(const char *dir, bool create, bool say);

/*
 * Serialise qdiscctl processes on save directory dir (made first if need
 * be, as qd_own_dir makes it): a descriptor to close, or -errno with the
 * reason said. Only its user can open it, so nobody else can hold the lock.
 */
int qd_save_lock(const char *dir);

/*
 * The text of save file path into buf (NUL-terminated, at most len - 1
 * bytes): 0, -ENOENT, -EPERM (a symlink, not a regular file, another
 * user's, or writable by others: never read), or -errno.
 */
int qd_save_read(const char *path, char *buf, size_t len);

/*
 * Write text to path through path.tmp, created exclusively with mode 0600
 * and renamed over path: a crash leaves the old file or the new. excl:
 * fail with -EEXIST if path exists (the first save is the one to keep).
 */
int qd_save_write(const char *path, const char *text, bool excl);

#endif
