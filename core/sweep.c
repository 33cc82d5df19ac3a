// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <bpf/bpf.h>

#include "core/egress.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "sysctl/proc.h"

/* Registration directories a sweep looks at: every version of every kind fits. */
#define QD_SWEEP_MAX 128

struct sweep {
	qd_sweep_report report;
	void *data;
	int removed;
};

static void removed(struct sweep *sw, const char *what, const char *reg, const char *detail)
{
	sw->removed++;
	if (sw->report)
		sw->report(what, reg, detail, sw->data);
}

/*
 * Options written for an instance that was never made: with the lock held
 * no add is under way, and .init consumes the entry of the qdisc it makes.
 */
static void sweep_pending(struct sweep *sw, const struct qd_reg *r)
{
	struct qd_place key, next, *prev = NULL;
	char detail[96];

	while (!bpf_map_get_next_key(r->pending_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (key.ifindex == QD_DEFAULTS_IFINDEX)
			continue;
		if (bpf_map_delete_elem(r->pending_fd, &key))
			continue;
		/* The walk goes on from a deleted key: the hash map restarts it. */
		prev = NULL;
		snprintf(detail, sizeof(detail), "netns %llu ifindex %u parent %x:%x",
			 (unsigned long long)key.netns, key.ifindex, key.parent >> 16,
			 key.parent & 0xffff);
		removed(sw, "pending", r->dir, detail);
	}
}

static void egress_gone(const struct qd_reg *r, const char *pin, void *sw)
{
	removed(sw, "egress", r->dir, pin);
}

/* Does a process (watch) hold the registration in dir (qd_reg_hold)? */
static bool held(const char *dir)
{
	char path[PATH_MAX];
	bool busy;
	int fd;

	qd_pin_path(path, dir, NULL);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

int qd_reg_hold(const struct qd_reg *r)
{
	char path[PATH_MAX];
	int fd;

	qd_pin_path(path, r->dir, NULL);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void sweep_one(struct sweep *sw, const char *dir, const char *dflt)
{
	struct qd_insts l = {};
	struct qd_reg r;
	const char *why = NULL;
	int v;
	const struct qd_kind *k = qd_reg_parse(dir, false, &v);

	qd_reg_init(&r, k);
	/* Not a name qdiscctl gives: someone else's, left alone. */
	if (snprintf(r.dir, sizeof(r.dir), "%s", dir) >= (int)sizeof(r.dir))
		return;
	/* A directory of a kind this qdiscctl lacks is still judged by its maps. */
	if ((!k || qd_reg_version(k, v, &r)) &&
	    snprintf(r.id, sizeof(r.id), "qdiscctl_%s", dir) >= (int)sizeof(r.id))
		return;
	if (qd_reg_open_version(&r) || !r.fp[0])
		why = "incomplete";
	else if (qd_reg_list(&r, &l))
		why = "incomplete";
	else if (!l.n && strcmp(r.id, dflt) && !held(dir))
		why = "no instance";
	if (why) {
		qd_insts_free(&l);
		qd_reg_close(&r);
		qd_unpin_all(dir);
		removed(sw, "registration", dir, why);
		return;
	}
	sweep_pending(sw, &r);
	qd_egress_sweep(&r, &l, egress_gone, sw);
	qd_insts_free(&l);
	qd_reg_close(&r);
}

int qd_reg_sweep(qd_sweep_report report, void *data)
{
	struct sweep sw = { report, data, 0 };
	/* Read the directory whole first: sweeping removes entries from it. */
	char dirs[QD_SWEEP_MAX][NAME_MAX + 1], dflt[QD_ID_LEN + 1];
	struct dirent *e;
	int n = 0;
	DIR *d;

	char root[PATH_MAX];

	if (qd_pin_use_root())
		return 0;
	qd_pin_path(root, "", NULL);
	d = opendir(root);
	if (!d)
		return 0;
	/* Only directories root made: a symlink or a file is nobody's registration. */
	while ((e = readdir(d)) && n < QD_SWEEP_MAX)
		if (e->d_name[0] != '.' && qd_pin_own_dir(e->d_name))
			snprintf(dirs[n++], sizeof(dirs[0]), "%s", e->d_name);
	closedir(d);
	/* The kind new devices and mq children get: "" when unreadable. */
	if (qd_sysctl_get("net.core.default_qdisc", dflt, sizeof(dflt)))
		dflt[0] = '\0';
	for (int i = 0; i < n; i++)
		sweep_one(&sw, dirs[i], dflt);
	return sw.removed;
}

void qd_reg_tidy(void)
{
	int lock;

	if (access(QD_PIN_ROOT, F_OK))
		return;
	lock = qd_lock();
	if (lock < 0)
		return;
	qd_reg_sweep(NULL, NULL);
	qd_unlock(lock);
}
