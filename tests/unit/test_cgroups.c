// SPDX-License-Identifier: GPL-2.0
/*
 * QD_OPT_CGROUPS: "cgroup PATH rate RATE" entries and their rows of
 * counters, against real cgroups made for the test under the host's
 * cgroup2 mount (skipped, and said so, where there is none to write).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kinds/kind.h"
#include "lib/cgroup.h"
#include "capture.h"
#include "test.h"

#define N_ENTRIES 2

struct t_cfg {
	uint64_t rate;
	struct qd_cgroup_val cg[N_ENTRIES];
};

struct t_row {
	uint64_t id;
	uint64_t bytes;
};

static const struct qd_opt t_opts[] = { { .name = "rate",
					  .type = QD_OPT_RATE,
					  .off = offsetof(struct t_cfg, rate),
					  .width = 8,
					  .min = 1,
					  .max = ~0ULL,
					  .help = "rate" },
					{ .name = "cgroup",
					  .type = QD_OPT_CGROUPS,
					  .off = offsetof(struct t_cfg, cg),
					  .width = sizeof(struct qd_cgroup_val),
					  .count = N_ENTRIES,
					  .sub = "rate",
					  .sub_type = QD_OPT_RATE,
					  .unset = "nocgroup",
					  .min = 1,
					  .max = 1000000000,
					  .metavar = "PATH rate RATE",
					  .help = "per cgroup" },
					{} };

static const struct qd_stat t_row_stats[] = { { .name = "bytes",
						.text = " sent %s bytes",
						.off = offsetof(struct t_row, bytes),
						.width = 8 },
					      {} };

static const struct qd_stat_rows t_rows = {
	.name = "cgroups",
	.opt = "cgroup",
	.off = 0,
	.stride = sizeof(struct t_row),
	.key_off = offsetof(struct t_row, id),
	.stats = t_row_stats,
};

static const struct qd_kind t_kind = {
	.name = "cgkind",
	.id = "qdiscctl_cgkind",
	.summary = "cgroup entries",
	.opts = t_opts,
	.cfg_size = sizeof(struct t_cfg),
	.rows = &t_rows,
};
QD_KIND_REGISTER(t_kind);

static int parse(struct t_cfg *c, const char *line, bool fresh)
{
	char *copy = strdup(line), *argv[16];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	if (fresh)
		qd_kind_defaults(&t_kind, c);
	cap_start(false);
	ret = qd_kind_parse(&t_kind, argc, argv, c);
	cap_end();
	free(copy);
	return ret;
}

static const char *print(const struct t_cfg *c, bool json)
{
	cap_start(json);
	qd_kind_print(&t_kind, c);
	return cap_end();
}

int main(void)
{
	const char *root = qd_cgroup_root();
	char a[1024], b[1024], c3[1024], rel_a[64], rel_b[64], rel_c[64], want[4096], path[1024];
	struct t_row rows[N_ENTRIES] = {};
	uint64_t ida = 0, idb = 0, idc = 0;
	struct t_cfg c;

	snprintf(rel_a, sizeof(rel_a), "/qdiscctl-unit-%d-a", getpid());
	snprintf(rel_b, sizeof(rel_b), "/qdiscctl-unit-%d-b", getpid());
	snprintf(rel_c, sizeof(rel_c), "/qdiscctl-unit-%d-c", getpid());
	if (!root || (snprintf(a, sizeof(a), "%s%s", root, rel_a), mkdir(a, 0755))) {
		printf("SKIP test_cgroups: no writable cgroup2 mount\n");
		return test_summary("test_cgroups");
	}
	snprintf(b, sizeof(b), "%s%s", root, rel_b);
	snprintf(c3, sizeof(c3), "%s%s", root, rel_c);
	CHECK(!mkdir(b, 0755));
	CHECK(!mkdir(c3, 0755));
	CHECK(!qd_cgroup_id(a, &ida));
	CHECK(!qd_cgroup_id(rel_b, &idb));
	CHECK(!qd_cgroup_id(rel_c + 1, &idc)); /* relative without the slash */
	CHECK(ida && idb && idc && ida != idb);
	CHECK_STR(qd_cgroup_path(ida, path, sizeof(path)), rel_a);
	CHECK(qd_cgroup_id("/tmp", &ida) == -ENOENT || qd_cgroup_id("/tmp", &ida) == -ENOTDIR);

	/* Absolute and relative paths name the same cgroup; a second rate replaces the first. */
	snprintf(want, sizeof(want), "rate 1Mbit cgroup %s rate 2Mbit cgroup %s rate 1Kbit", a,
		 rel_b);
	CHECK(!parse(&c, want, true));
	CHECK_U64(c.cg[0].id, ida);
	CHECK_U64(c.cg[0].val, 250000);
	CHECK_U64(c.cg[1].id, idb);
	snprintf(want, sizeof(want), "rate 1Mbit cgroup %s rate 3Mbit", rel_a);
	CHECK(!parse(&c, want, false));
	CHECK_U64(c.cg[0].val, 375000);
	snprintf(want, sizeof(want), "rate 1Mbit cgroup %s rate 3Mbit cgroup %s rate 1Kbit ", rel_a,
		 rel_b);
	CHECK_STR(print(&c, false), want);
	snprintf(want, sizeof(want),
		 "\"rate\":125000,\"cgroup\":[{\"path\":\"%s\",\"id\":%llu,\"rate\":375000},"
		 "{\"path\":\"%s\",\"id\":%llu,\"rate\":125}]\n",
		 rel_a, (unsigned long long)ida, rel_b, (unsigned long long)idb);
	CHECK_STR(print(&c, true), want);
	CHECK_U64(c.cg[1].val, 125);

	/* Counters: a row counts for its entry only while the ids agree. */
	rows[0] = (struct t_row){ ida, 1000 };
	rows[1] = (struct t_row){ idc, 77 };
	cap_start(false);
	qd_kind_print_rows(&t_kind, &c, rows, sizeof(rows));
	snprintf(want, sizeof(want), "  cgroup %s: sent 1000 bytes\n  cgroup %s: sent 0 bytes\n",
		 rel_a, rel_b);
	CHECK_STR(cap_end(), want);

	/* Full: a third cgroup has no place; nocgroup frees one, which it then takes. */
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit", rel_c);
	CHECK(parse(&c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "nocgroup %s cgroup %s rate 1Mbit", rel_a, rel_c);
	CHECK(!parse(&c, want, false));
	CHECK_U64(c.cg[0].id, idc);
	CHECK_U64(c.cg[1].id, idb);

	/* Bad input, each named. */
	CHECK(parse(&c, "cgroup /no/such/qdiscctl/cgroup rate 1Mbit", false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s speed 1Mbit", rel_b);
	CHECK(parse(&c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate fast", rel_b);
	CHECK(parse(&c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate 10gbit", rel_b); /* above max */
	CHECK(parse(&c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate", rel_b);
	CHECK(parse(&c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "nocgroup %s", rel_a); /* not an entry any more */
	CHECK(parse(&c, want, false) == -EINVAL);
	CHECK(parse(&c, "nocgroup", false) == -EINVAL);
	CHECK_U64(c.cg[1].id, idb); /* failed parses changed nothing they did not reach */

	/* A removed cgroup is named by its id. */
	CHECK(!rmdir(c3));
	CHECK(!qd_cgroup_path(idc, path, sizeof(path)));
	snprintf(want, sizeof(want), "cgroup (removed, id %llu) rate 1Mbit",
		 (unsigned long long)idc);
	CHECK(strstr(print(&c, false), want) != NULL);

	rmdir(a);
	rmdir(b);
	return test_summary("test_cgroups");
}
