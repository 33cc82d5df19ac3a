// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "core/current.h"
#include "core/registry.h"
#include "lib/common.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"

struct reader {
	__u64 netns;
	struct qd_reg reg; /* the last registration opened: an mq's children share one */
	bool open;
};

/* The options of the instance qi, when it is one of qdiscctl's: NULL otherwise. */
static void *read_cfg(struct reader *r, const struct qdisc_info *qi, const struct qd_kind **ours)
{
	struct qd_place place = { r->netns, qi->ifindex, qi->parent };
	uint32_t id;
	void *cfg;

	*ours = qd_reg_kind(qi->kind);
	if (!*ours)
		return NULL;
	if (r->open && strcmp(r->reg.id, qi->kind)) {
		qd_reg_close(&r->reg);
		r->open = false;
	}
	if (!r->open && qd_reg_open_id(qi->kind, &r->reg))
		return NULL;
	r->open = true;
	cfg = malloc(QD_CFG_MAX);
	if (cfg && !qd_reg_find(&r->reg, &place, qi->handle, &id) && !qd_reg_cfg(&r->reg, id, cfg))
		return cfg;
	free(cfg);
	return NULL;
}

struct children {
	struct reader *r;
	struct qd_current *cur;
	int max;
};

static int add_child(const struct qdisc_info *qi, void *data)
{
	struct children *c = data;
	struct qd_current *cur = c->cur;
	struct qd_child *ch;

	if (qd_grow(&cur->child, &c->max, cur->nchild, sizeof(*cur->child), 64))
		return -ENOMEM;
	ch = &cur->child[cur->nchild++];
	memset(ch, 0, sizeof(*ch));
	memcpy(ch->kind, qi->kind, sizeof(ch->kind));
	ch->parent = qi->parent;
	ch->cfg = read_cfg(c->r, qi, &ch->ours);
	return 0;
}

int qd_current_read(struct rtnl *rt, __u64 netns, int ifindex, uint32_t parent,
		    struct qd_current *cur)
{
	struct reader r = { .netns = netns };
	int err;

	memset(cur, 0, sizeof(*cur));
	err = qdisc_lookup(rt, ifindex, parent, &cur->qi);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	cur->present = true;
	cur->qi.options = NULL;
	cur->cfg = read_cfg(&r, &cur->qi, &cur->ours);
	if (parent == TC_H_ROOT && !strcmp(cur->qi.kind, "mq")) {
		struct children c = { &r, cur, 0 };

		err = link_num_tx_queues(rt, ifindex, &cur->ntx);
		if (!err)
			err = qdisc_dump_children(rt, ifindex, cur->qi.handle, add_child, &c);
	}
	if (r.open)
		qd_reg_close(&r.reg);
	if (err)
		qd_current_free(cur);
	return err;
}

void qd_current_free(struct qd_current *cur)
{
	for (int i = 0; i < cur->nchild; i++)
		free(cur->child[i].cfg);
	free(cur->child);
	free(cur->cfg);
	memset(cur, 0, sizeof(*cur));
}
