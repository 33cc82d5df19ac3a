/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin root, /sys/fs/bpf/qdiscctl: where every registration lives, and
 * the lock on it that serialises qdiscctl processes. The rest of core/
 * reaches the pins below it only through the paths made here.
 */
#ifndef QDISCCTL_CORE_LOCK_H
#define QDISCCTL_CORE_LOCK_H

#include <stdbool.h>

#define QD_PIN_ROOT "/sys/fs/bpf/qdiscctl"
/* Pins of egress program attachments in a registration: egress-NETNS-IFINDEX. */
#define QD_EGRESS_PIN "egress-"

/* Serialise qdiscctl processes: an exclusive lock on QD_PIN_ROOT. */
int qd_lock(void);
void qd_unlock(int fd);

/* --- for core/ only ----------------------------------------------------- */

/* For readers: QD_PIN_ROOT checked and held, 0; -ENOENT when there is none. */
int qd_pin_use_root(void);
/*
 * buf (PATH_MAX bytes) names entry name of registration dir (name NULL:
 * dir itself) through the pin root this process holds open.
 */
void qd_pin_path(char *buf, const char *dir, const char *name);
/* A registration's directory as qdiscctl makes it: a real one, root's. */
bool qd_pin_own_dir(const char *dir);
/* Is entry name of registration dir a symlink (or gone)? Then it is never followed. */
bool qd_pin_is_symlink(const char *dir, const char *name);
/* Unpin a link, detaching it at once rather than whenever its last reference goes. */
void qd_unpin_link(const char *path);
/* Remove registration dir: its pins, then its link, then the directory. */
void qd_unpin_all(const char *dir);

#endif
