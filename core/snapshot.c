// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/instance.h"
#include "core/snapshot.h"
#include "lib/common.h"

struct take {
	struct qd_snap *s;
	struct qd_lookup lk;
	int err;
};

static int take_one(const struct qdisc_info *qi, void *data)
{
	struct take *t = data;
	struct qd_snap *s = t->s;
	struct qd_snap_qdisc *q;
	const struct qd_reg *reg;
	char cfg[QD_CFG_MAX] __attribute__((aligned(8)));
	const void *inst;
	const char *dev;

	if (t->err || !qd_lookup_wanted(&t->lk, qi))
		return 0;
	if (qd_grow(&s->q, &s->max, s->n, sizeof(*s->q), 64)) {
		t->err = -ENOMEM;
		return 0;
	}
	q = &s->q[s->n];
	memset(q, 0, sizeof(*q));
	q->qi = *qi;
	q->qi.options = NULL;
	q->qi.options_len = 0;
	dev = qd_lookup_dev(&t->lk, qi, q->dev);
	if (dev != q->dev)
		snprintf(q->dev, sizeof(q->dev), "%s", dev ? dev : t->lk.filter->dev);
	if ((reg = qd_lookup_cfg(&t->lk, qi, &q->slot, cfg)) &&
	    (inst = qd_lookup_inst(&t->lk, reg, q->slot, cfg))) {
		const struct qd_kind *k = reg->kind;

		q->kind = k;
		snprintf(q->reg, sizeof(q->reg), "%s", reg->id);
		/* Every version of a kind under its base id, as show prints it. */
		snprintf(q->qi.kind, sizeof(q->qi.kind), "%s", k->id);
		q->samples = calloc(qd_kind_samples_max(k) + 1, sizeof(*q->samples));
		q->cfg = malloc(k->cfg_size);
		if (!q->samples || !q->cfg) {
			free(q->samples);
			free(q->cfg);
			t->err = -ENOMEM;
			return 0;
		}
		memcpy(q->cfg, cfg, k->cfg_size);
		q->nsamples = qd_kind_samples(k, inst, reg->inst_len, cfg, s->at, q->samples);
	}
	s->n++;
	return 0;
}

int qd_snap_take(struct qd_snap *s, struct rtnl *rt, const struct qdisc_spec *filter)
{
	struct take t = { .s = s };
	int err;

	memset(s, 0, sizeof(*s));
	qd_lookup_init(&t.lk, rt, filter);
	s->at = qd_inst_now();
	err = qdisc_dump(rt, filter->ifindex, take_one, &t);
	qd_lookup_free(&t.lk);
	if (!err)
		err = t.err;
	if (err)
		qd_snap_free(s);
	return err;
}

void qd_snap_free(struct qd_snap *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->q[i].samples);
		free(s->q[i].cfg);
	}
	free(s->q);
	memset(s, 0, sizeof(*s));
}

int qd_snap_regs(struct qd_snap_reg **regs, int *n)
{
	int max = 0;

	*regs = NULL;
	*n = 0;
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		for (int v = 0; v < QD_REG_VERSIONS; v++) {
			char dir[QD_DIR_LEN], id[QD_ID_LEN];
			struct qd_snap_reg *e;
			struct qd_insts insts;
			unsigned int maps;
			struct qd_reg r;

			if (qd_reg_names(*k, v, dir, id) || qd_reg_open_id(id, &r))
				continue;
			if (qd_grow(regs, &max, *n, sizeof(**regs), 8)) {
				qd_reg_close(&r);
				free(*regs);
				*regs = NULL;
				*n = 0;
				return -ENOMEM;
			}
			e = &(*regs)[(*n)++];
			memset(e, 0, sizeof(*e));
			e->kind = *k;
			snprintf(e->id, sizeof(e->id), "%s", r.id);
			if (!qd_reg_caps(&r))
				memcpy(e->cap, r.cap, sizeof(e->cap));
			e->cap[QD_CAP_INSTANCES] = r.slots;
			if (!qd_reg_list(&r, &insts)) {
				e->used = insts.n;
				qd_insts_free(&insts);
			}
			qd_reg_memory(&r, &e->memory, &maps);
			qd_reg_close(&r);
		}
	}
	return 0;
}
