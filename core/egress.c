// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "core/egress.h"
#include "core/lock.h"
#include "lib/common.h"

#define QD_ROOT_PARENT 0xFFFFFFFFU

static void egress_pin_name(char *buf, size_t len, const struct qd_place *p)
{
	snprintf(buf, len, QD_EGRESS_PIN "%llu-%u", (unsigned long long)p->netns, p->ifindex);
}

/* Whether an instance of k at p with options cfg needs k's egress program. */
static bool egress_wanted(const struct qd_kind *k, const struct qd_place *p, const void *cfg)
{
	if (!k->egress_prog)
		return false;
	return k->egress_wanted ? k->egress_wanted(p, cfg) : p->parent == QD_ROOT_PARENT;
}

int qd_reg_attach_egress(const struct qd_reg *r, const struct qd_place *p, const void *cfg)
{
	const struct qd_kind *k = r->kind;
	char path[PATH_MAX], name[64];
	int prog, link, err = 0;

	if (!egress_wanted(k, p, cfg))
		return 0;
	egress_pin_name(name, sizeof(name), p);
	qd_pin_path(path, r->dir, name);
	if (!access(path, F_OK))
		return 0;
	qd_pin_path(path, r->dir, k->egress_prog);
	prog = bpf_obj_get(path);
	if (prog < 0) {
		err = -errno;
		qd_err("%s: the registration has no %s program: %s", k->name, k->egress_prog,
		       strerror(-err));
		return err;
	}
	link = bpf_link_create(prog, p->ifindex, BPF_TCX_EGRESS, NULL);
	if (link < 0) {
		err = -errno;
		qd_err("%s: cannot attach %s before the qdisc (tcx egress): %s", k->name,
		       k->egress_prog, strerror(-err));
	} else {
		qd_pin_path(path, r->dir, name);
		if (bpf_obj_pin(link, path)) {
			err = -errno;
			qd_err("%s: cannot pin %s: %s", k->name, path, strerror(-err));
		}
		close(link);
	}
	close(prog);
	return err;
}

/*
 * Whether instance i of l keeps its device's egress program. Where its
 * options cannot be read (a kind or a version this qdiscctl lacks), a root
 * instance does.
 */
static bool egress_kept(const struct qd_reg *r, const struct qd_insts *l, int i)
{
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	const struct qd_place *p = &l->hdrs[i].place;

	if (!r->kind || qd_reg_cfg(r, l->ids[i], cfg))
		return p->parent == QD_ROOT_PARENT;
	return egress_wanted(r->kind, p, cfg);
}

void qd_egress_sweep(const struct qd_reg *r, const struct qd_insts *l,
		     void (*gone)(const struct qd_reg *r, const char *pin, void *data), void *data)
{
	char path[PATH_MAX], name[64];
	struct dirent *e;
	DIR *d;

	qd_pin_path(path, r->dir, NULL);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		bool used = false;

		if (strncmp(e->d_name, QD_EGRESS_PIN, strlen(QD_EGRESS_PIN)))
			continue;
		for (int i = 0; i < l->n && !used; i++) {
			egress_pin_name(name, sizeof(name), &l->hdrs[i].place);
			used = !strcmp(name, e->d_name) && egress_kept(r, l, i);
		}
		if (used || qd_pin_is_symlink(r->dir, e->d_name))
			continue;
		qd_pin_path(path, r->dir, e->d_name);
		qd_unpin_link(path);
		gone(r, e->d_name, data);
	}
	if (d)
		closedir(d);
}

static void count_gone(const struct qd_reg *r, const char *pin, void *n)
{
	(void)r;
	(void)pin;
	++*(int *)n;
}

int qd_reg_release_egress(const struct qd_reg *r, const struct qd_place *p)
{
	char path[PATH_MAX], name[64];
	struct qd_insts l;
	int n = 0;

	if (!r->kind->egress_prog)
		return 0;
	egress_pin_name(name, sizeof(name), p);
	qd_pin_path(path, r->dir, name);
	if (access(path, F_OK))
		return 0;
	if (qd_reg_list(r, &l))
		return 0;
	qd_egress_sweep(r, &l, count_gone, &n);
	qd_insts_free(&l);
	return n;
}
