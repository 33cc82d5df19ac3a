// SPDX-License-Identifier: GPL-2.0
/* --capacity specs against a kind's capacities (kinds/kind.c). */
#include <errno.h>

#include "kinds/kind.h"
#include "test.h"

static const struct qd_cap t_caps[] = {
	{ .name = "flows", .help = "flow slots", .def = 65536, .min = 64, .max = 1 << 24 },
	{ .name = "buckets",
	  .help = "bucket heads",
	  .def = 1024,
	  .min = 1,
	  .max = 262144,
	  .flags = QD_CAP_POW2 },
	{}
};

static const struct qd_kind t_kind = {
	.name = "t",
	.id = "qdiscctl_t",
	.opts = (const struct qd_opt[]){ {} },
	.caps = t_caps,
};
QD_KIND_REGISTER(t_kind);

static uint32_t cap[QD_CAPS_MAX];
static bool named[QD_CAPS_MAX];

static int parse(const char *spec)
{
	memset(cap, 0, sizeof(cap));
	memset(named, 0, sizeof(named));
	return qd_kind_caps_parse(&t_kind, spec, cap, named);
}

int main(void)
{
	CHECK_INT(qd_kind_ncaps(&t_kind), 3);
	CHECK_STR(qd_kind_cap(&t_kind, QD_CAP_INSTANCES)->name, "instances");
	CHECK_STR(qd_kind_cap(&t_kind, 2)->name, "buckets");
	CHECK_INT(qd_kind_cap_index(&t_kind, "flowsx", 5), 1);
	CHECK_INT(qd_kind_cap_index(&t_kind, "flow", 4), -1);

	/* Nothing asked for: nothing set. */
	CHECK_INT(parse(NULL), 0);
	CHECK_INT(parse(""), 0);
	CHECK(!named[0] && !named[1] && !named[2]);

	CHECK_INT(parse("instances=1024,flows=1000000,buckets=0x40000"), 0);
	CHECK_U64(cap[QD_CAP_INSTANCES], 1024);
	CHECK_U64(cap[1], 1000000);
	CHECK_U64(cap[2], 262144);
	CHECK(named[0] && named[1] && named[2]);
	CHECK_INT(parse("flows=64"), 0);
	CHECK(!named[0] && named[1] && !named[2]);
	/* The last one given wins, as options do. */
	CHECK_INT(parse("flows=100,flows=200"), 0);
	CHECK_U64(cap[1], 200);
	CHECK_INT(parse("instances=65536"), 0);

	/* Each of these is one error line and -EINVAL. */
	CHECK_INT(parse("bogus=1"), -EINVAL);
	CHECK_INT(parse("flows"), -EINVAL);
	CHECK_INT(parse("=5"), -EINVAL);
	CHECK_INT(parse("flows="), -EINVAL);
	CHECK_INT(parse("flows=12x"), -EINVAL);
	CHECK_INT(parse("flows=-1"), -EINVAL);
	CHECK_INT(parse("flows= 100"), -EINVAL);
	CHECK_INT(parse("flows=+100"), -EINVAL);
	CHECK_INT(parse("flows=63"), -EINVAL);
	CHECK_INT(parse("flows=99999999999999999999"), -EINVAL);
	CHECK_INT(parse("instances=0"), -EINVAL);
	CHECK_INT(parse("instances=65537"), -EINVAL);
	CHECK_INT(parse("buckets=1000"), -EINVAL);
	CHECK_INT(parse("buckets=524288"), -EINVAL);
	CHECK_INT(parse("flows=100,,buckets=64"), -EINVAL);
	CHECK_INT(parse("flows=100,"), 0);
	CHECK_INT(qd_kind_caps_check(&t_kind, "buckets=64"), 0);
	CHECK_INT(qd_kind_caps_check(&t_kind, "buckets=63"), -EINVAL);
	return test_summary("test_caps");
}
