// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "lib/common.h"
#include "lib/spec.h"
#include "lib/units.h"

static int dup_arg(const char *key, const char *val)
{
	qd_err("duplicate \"%s\": \"%s\" is the second value", key, qd_tok(val));
	return -EINVAL;
}

int qdisc_spec_parse(int argc, char **argv, struct qdisc_spec *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < argc && !s->kind; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "dev")) {
			if (!qd_need_arg(argc, argv, i))
				return -EINVAL;
			if (s->dev)
				return dup_arg(w, argv[i + 1]);
			s->dev = argv[++i];
			if (!*s->dev || strlen(s->dev) >= IFNAMSIZ) {
				qd_err("invalid device name \"%s\"", qd_tok(s->dev));
				return -EINVAL;
			}
		} else if (!strcmp(w, "root")) {
			if (s->have_parent)
				return dup_arg("parent", w);
			s->parent = 0xFFFFFFFFU;
			s->have_parent = true;
		} else if (!strcmp(w, "parent")) {
			if (!qd_need_arg(argc, argv, i))
				return -EINVAL;
			if (s->have_parent)
				return dup_arg(w, argv[i + 1]);
			if (parse_classid(argv[++i], &s->parent)) {
				qd_err("invalid parent ID \"%s\"", qd_tok(argv[i]));
				return -EINVAL;
			}
			s->have_parent = true;
		} else if (!strcmp(w, "handle")) {
			if (!qd_need_arg(argc, argv, i))
				return -EINVAL;
			if (s->have_handle)
				return dup_arg(w, argv[i + 1]);
			if (parse_handle(argv[++i], &s->handle)) {
				qd_err("invalid handle \"%s\"", qd_tok(argv[i]));
				return -EINVAL;
			}
			s->have_handle = true;
		} else {
			s->kind = w;
		}
	}
	s->optc = argc - i;
	s->optv = argv + i;
	return 0;
}

int qdisc_spec_resolve(struct qdisc_spec *s)
{
	if (!s->dev) {
		qd_err("\"dev DEV\" is required");
		return -EINVAL;
	}
	s->ifindex = if_nametoindex(s->dev);
	if (!s->ifindex) {
		qd_err("Cannot find device \"%s\"", qd_tok(s->dev));
		return -ENODEV;
	}
	return 0;
}
