// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/complete.h"
#include "kinds/opt.h"
#include "lib/units.h"

void qd_complete_kind_words(const struct qd_kind *k, FILE *f)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		if (!qd_opt_is_keyword(o)) {
			fprintf(f, "%s\n", o->name);
			if (o->unset)
				fprintf(f, "%s\n", o->unset);
			continue;
		}
		/* A keyword option is typed as one of its words, never by its name. */
		for (int i = 0; o->choices[i]; i++)
			fprintf(f, "%s\n", o->choices[i]);
	}
}

int qd_complete_kind_values(const struct qd_kind *k, int argc, char **argv, FILE *f)
{
	struct qd_opt_step s = QD_OPT_STEP_START;
	const struct qd_opt *last = NULL;

	/* Whose value the next word (argv[argc]) is, if any: a list takes several. */
	while (qd_kind_walk(k, argc, argv, &s)) {
		const struct qd_opt_ops *ops;

		last = NULL;
		if (s.how != QD_STEP_NAME && s.how != QD_STEP_UNSET)
			continue;
		if (s.i + (int)s.n < argc) {
			/* The next word may also go on the option's words. */
			if (s.how == QD_STEP_NAME && s.i + (int)s.n == argc - 1)
				last = s.o;
			continue;
		}
		ops = qd_opt_ops(s.o);
		if (ops->complete)
			ops->complete(s.o, s.how == QD_STEP_UNSET, argc - s.i, f);
		return 0;
	}
	if (last && qd_opt_ops(last)->follow) {
		qd_opt_ops(last)->follow(last, f);
		qd_complete_kind_words(k, f);
		return 0;
	}
	return -ENOENT;
}

void qd_complete_columns(const struct qd_kind *const *kinds, FILE *f)
{
	for (const struct qd_kind *const *k = kinds; *k; k++) {
		if (!(*k)->flows)
			continue;
		for (const struct qd_col *c = (*k)->flows->cols; c->name; c++) {
			bool seen = false;

			/* Kinds may share column names; offer each once. */
			for (const struct qd_kind *const *j = kinds; j < k && !seen; j++)
				for (const struct qd_col *d = (*j)->flows ? (*j)->flows->cols
									  : NULL;
				     d && d->name && !seen; d++)
					seen = !strcmp(d->name, c->name);
			if (!seen)
				fprintf(f, "%s\n", c->name);
		}
	}
}

static void handles_put(struct qd_handles *h, uint32_t v)
{
	unsigned int i = 0;

	while (i < h->n && h->v[i] < v)
		i++;
	if ((i < h->n && h->v[i] == v) || h->n == QD_HANDLES_MAX)
		return;
	memmove(&h->v[i + 1], &h->v[i], (h->n - i) * sizeof(h->v[0]));
	h->v[i] = v;
	h->n++;
}

void qd_handles_add(struct qd_handles *h, const struct qdisc_info *qi)
{
	/* Handle 0 is a default qdisc's (noqueue, mq's children): not addressable. */
	if (qi->handle)
		handles_put(h, qi->handle);
	if (qi->parent && qi->parent != UNITS_H_ROOT)
		handles_put(h, qi->parent);
}

void qd_handles_print(const struct qd_handles *h, FILE *f)
{
	char buf[32];

	for (unsigned int i = 0; i < h->n; i++)
		fprintf(f, "%s\n", sprint_classid(h->v[i], buf, sizeof(buf)));
}
