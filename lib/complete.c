// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgroup.h"
#include "lib/complete.h"
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
	const struct qd_opt *o = NULL;
	int pos = 0;

	/* Which option's values the next word is, if any: a list takes several. */
	for (int i = 0; i < argc; i++) {
		const struct qd_opt *n = qd_kind_named(k, argv[i]);

		if (!n && qd_kind_unset(k, argv[i])) {
			/* "nocgroup PATH" */
			if (i + 1 >= argc) {
				qd_cgroup_list(f);
				return 0;
			}
			i++;
			continue;
		}
		if (!n)
			continue;
		if (i + (int)qd_opt_nvalues(n) >= argc) {
			o = n;
			pos = argc - i; /* the next word is value number pos */
			break;
		}
		i += qd_opt_nvalues(n);
	}
	if (o && o->type == QD_OPT_CGROUPS) {
		/* "cgroup PATH rate RATE" */
		if (pos == 1)
			qd_cgroup_list(f);
		else if (pos == 2)
			fprintf(f, "%s\n", o->sub);
		return 0;
	}
	if (o) {
		if (o->special)
			fprintf(f, "%s\n", o->special);
		/* Powers of two are few: 13 up to 4096, at most 64 for any width. */
		if (o->flags & QD_OPT_POW2)
			for (uint64_t v = 1; v && v <= o->max; v <<= 1)
				if (v >= o->min)
					fprintf(f, "%llu\n", (unsigned long long)v);
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
