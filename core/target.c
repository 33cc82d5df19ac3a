// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/egress.h"
#include "core/target.h"
#include "lib/common.h"
#include "lib/units.h"

int qd_target_lookup(struct rtnl *rt, const struct qdisc_spec *s, struct qd_target *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	err = rtnl_netns_cookie(rt, &t->place.netns);
	if (err)
		return err;
	t->place.ifindex = s->ifindex;
	t->place.parent = s->parent;
	err = qdisc_lookup(rt, s->ifindex, s->parent, &t->cur);
	if (err)
		return err;
	/* With a handle, the qdisc there must be that one, as for tc. */
	if (s->have_handle && s->handle != t->cur.handle)
		return -ENOENT;
	/* The kernel reports ids, of any version: never the user's names. */
	t->kind = qd_reg_kind(t->cur.kind);
	return 0;
}

const char *qd_target_where(const struct qdisc_spec *s, char *buf, size_t len)
{
	char p[UNITS_BUF], h[UNITS_BUF];

	if (s->parent == UNITS_H_ROOT)
		snprintf(p, sizeof(p), "root");
	else
		snprintf(p, sizeof(p), "parent %s", sprint_classid(s->parent, h, sizeof(h)));
	if (s->have_handle)
		snprintf(buf, len, "dev %s %s handle %s", s->dev, p,
			 sprint_handle(s->handle, h, sizeof(h)));
	else
		snprintf(buf, len, "dev %s %s", s->dev, p);
	return buf;
}

int qd_target_write(struct qd_reg *reg, const struct qd_target *t, uint32_t id, const void *cfg)
{
	/* Options that need the egress program find it in place (fq's ce_threshold). */
	int err = qd_reg_attach_egress(reg, &t->place, cfg);

	if (err)
		return err;
	err = qd_reg_set_cfg(reg, id, cfg);
	/* Beyond the registration's capacity is said where it is found. */
	if (err && err != -ERANGE)
		qd_err("cannot update the options of %s: %s", t->cur.kind, strerror(-err));
	/* The old options may have been the last to need it, or the write failed. */
	qd_reg_release_egress(reg, &t->place);
	return err;
}
