// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/kind.h"
#include "lib/common.h"

extern const struct qd_kind *const __start_qdiscctl_kinds[];
extern const struct qd_kind *const __stop_qdiscctl_kinds[];

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct qd_kind *const *)a)->name,
		      (*(const struct qd_kind *const *)b)->name);
}

const struct qd_kind *const *qd_kinds(void)
{
	static const struct qd_kind **sorted;
	size_t n = __stop_qdiscctl_kinds - __start_qdiscctl_kinds;

	if (!sorted) {
		sorted = calloc(n + 1, sizeof(*sorted));
		if (!sorted)
			abort();
		memcpy(sorted, __start_qdiscctl_kinds, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), by_name);
	}
	return sorted;
}

const struct qd_kind *qd_kind_find(const char *name)
{
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		if (!strcmp((*k)->name, name) || !strcmp((*k)->id, name))
			return *k;
	return NULL;
}

const struct qd_cap qd_instances_cap = {
	.name = "instances",
	.help = "instance slots of one registration (default: one for every tx queue of the "
		"host's devices, at least 64; a further registration is made when they run out)",
	.min = 1,
	.max = QD_SLOTS_MAX,
};

int qd_kind_ncaps(const struct qd_kind *k)
{
	int n = 1;

	while (k->caps && k->caps[n - 1].name && n < QD_CAPS_MAX)
		n++;
	return n;
}

const struct qd_cap *qd_kind_cap(const struct qd_kind *k, int i)
{
	return i == QD_CAP_INSTANCES ? &qd_instances_cap : &k->caps[i - 1];
}

int qd_kind_cap_index(const struct qd_kind *k, const char *name, size_t len)
{
	for (int i = 0; i < qd_kind_ncaps(k); i++) {
		const char *n = qd_kind_cap(k, i)->name;

		if (strlen(n) == len && !strncmp(n, name, len))
			return i;
	}
	return -1;
}

int qd_kind_caps_parse(const struct qd_kind *k, const char *spec, uint32_t *cap, bool *named)
{
	const char *p = spec;

	while (p && *p) {
		const char *end = strchrnul(p, ','), *eq = memchr(p, '=', end - p);
		const struct qd_cap *c;
		unsigned long long v;
		char *vend;
		int i;

		if (!eq) {
			qd_err("--capacity: \"%s\" is not NAME=NUMBER", qd_tokn(p, end - p));
			return -EINVAL;
		}
		i = qd_kind_cap_index(k, p, eq - p);
		if (i < 0) {
			qd_err("--capacity: %s has no capacity \"%s\" ('qdiscctl help %s' lists "
			       "them)",
			       k->name, qd_tokn(p, eq - p), k->name);
			return -EINVAL;
		}
		c = qd_kind_cap(k, i);
		errno = 0;
		v = isdigit((unsigned char)eq[1]) ? strtoull(eq + 1, &vend, 0) : 0;
		if (!isdigit((unsigned char)eq[1]) || errno || vend != end || v < c->min ||
		    v > c->max || ((c->flags & QD_CAP_POW2) && (v & (v - 1)))) {
			qd_err("--capacity: %s %s \"%s\" is not %s from %u to %u", k->name, c->name,
			       qd_tokn(eq + 1, end - eq - 1),
			       c->flags & QD_CAP_POW2 ? "a power of two" : "a number", c->min,
			       c->max);
			return -EINVAL;
		}
		cap[i] = v;
		if (named)
			named[i] = true;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int qd_kind_caps_check(const struct qd_kind *k, const char *spec)
{
	uint32_t cap[QD_CAPS_MAX];

	return qd_kind_caps_parse(k, spec, cap, NULL);
}

/* The capacity o's value needs: v, or the power of two above it. */
static uint64_t cap_need(const struct qd_cap *c, uint64_t v)
{
	uint64_t p = 1;

	if (!(c->flags & QD_CAP_POW2))
		return v;
	while (p < v)
		p <<= 1;
	return p;
}

void qd_kind_caps_for(const struct qd_kind *k, const void *cfg, uint32_t *want, bool *named)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int i = o->cap ? qd_kind_cap_index(k, o->cap, strlen(o->cap)) : -1;
		uint64_t v;

		if (i < 0)
			continue;
		v = cap_need(qd_kind_cap(k, i), qd_opt_get(o, cfg));
		if (v > UINT32_MAX)
			v = UINT32_MAX;
		if (!named[i] || want[i] < v)
			want[i] = v;
		named[i] = true;
	}
}

const struct qd_opt *qd_kind_caps_exceeded(const struct qd_kind *k, const void *cfg,
					   const uint32_t *cap)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int i = o->cap ? qd_kind_cap_index(k, o->cap, strlen(o->cap)) : -1;

		if (i >= 0 && qd_opt_get(o, cfg) > cap[i])
			return o;
	}
	return NULL;
}

uint64_t qd_opt_get_at(const struct qd_opt *o, const void *cfg, unsigned int i)
{
	const char *p = (const char *)cfg + o->off + (size_t)i * o->width;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (o->width) {
	case 1:
		memcpy(&v8, p, sizeof(v8));
		return v8;
	case 2:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	case 4:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

void qd_opt_set_at(const struct qd_opt *o, void *cfg, unsigned int i, uint64_t v)
{
	char *p = (char *)cfg + o->off + (size_t)i * o->width;
	uint8_t v8 = v;
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (o->width) {
	case 1:
		memcpy(p, &v8, sizeof(v8));
		break;
	case 2:
		memcpy(p, &v16, sizeof(v16));
		break;
	case 4:
		memcpy(p, &v32, sizeof(v32));
		break;
	default:
		memcpy(p, &v, sizeof(v));
	}
}

uint64_t qd_opt_get(const struct qd_opt *o, const void *cfg)
{
	return qd_opt_get_at(o, cfg, 0);
}

void qd_opt_set(const struct qd_opt *o, void *cfg, uint64_t v)
{
	qd_opt_set_at(o, cfg, 0, v);
}
