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
#include "lib/batch.h"
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

/* Entries with optional fields after the rate, as edt's. */
struct f_entry {
	uint64_t id;
	uint64_t rate;
	uint64_t ceil;
	uint32_t prio;
	uint32_t weight;
};

struct f_cfg {
	uint64_t rate;
	struct f_entry cg[N_ENTRIES];
};

struct f_row {
	uint64_t id;
	uint64_t bytes;
	uint64_t borrowed;
};

static const struct qd_opt f_fields[] = { { .name = "ceil",
					    .type = QD_OPT_RATE,
					    .off = offsetof(struct f_entry, ceil),
					    .width = 8,
					    .min = 1,
					    .max = ~0ULL,
					    .special = "none",
					    .help = "ceil" },
					  { .name = "prio",
					    .type = QD_OPT_COUNT,
					    .off = offsetof(struct f_entry, prio),
					    .width = 4,
					    .max = 7,
					    .help = "prio" },
					  { .name = "weight",
					    .type = QD_OPT_COUNT,
					    .off = offsetof(struct f_entry, weight),
					    .width = 4,
					    .def = 1,
					    .min = 1,
					    .max = 1000,
					    .help = "weight" },
					  {} };

static const struct qd_opt f_opts[] = { { .name = "rate",
					  .type = QD_OPT_RATE,
					  .off = offsetof(struct f_cfg, rate),
					  .width = 8,
					  .min = 1,
					  .max = ~0ULL,
					  .help = "rate" },
					{ .name = "cgroup",
					  .type = QD_OPT_CGROUPS,
					  .off = offsetof(struct f_cfg, cg),
					  .width = sizeof(struct f_entry),
					  .count = N_ENTRIES,
					  .sub = "rate",
					  .sub_type = QD_OPT_RATE,
					  .unset = "nocgroup",
					  .min = 1,
					  .max = 1000000000,
					  .fields = f_fields,
					  .help = "per cgroup" },
					{} };

static const struct qd_stat f_row_stats[] = { { .name = "bytes",
						.text = " sent %s bytes",
						.off = offsetof(struct f_row, bytes),
						.width = 8 },
					      { .name = "borrowed",
						.text = " borrowed %s",
						.off = offsetof(struct f_row, borrowed),
						.width = 8 },
					      {} };

static const struct qd_stat_rows f_rows = {
	.name = "cgroups",
	.opt = "cgroup",
	.off = 0,
	.stride = sizeof(struct f_row),
	.key_off = offsetof(struct f_row, id),
	.stats = f_row_stats,
};

static const struct qd_kind f_kind = {
	.name = "cgfields",
	.id = "qdiscctl_cgfields",
	.summary = "cgroup entries with fields",
	.opts = f_opts,
	.cfg_size = sizeof(struct f_cfg),
	.rows = &f_rows,
};
QD_KIND_REGISTER(f_kind);

static int parse_k(const struct qd_kind *k, void *c, const char *line, bool fresh)
{
	char *copy = strdup(line), *argv[32];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	if (fresh)
		qd_kind_defaults(k, c);
	cap_start(false);
	ret = qd_kind_parse(k, argc, argv, c);
	cap_end();
	free(copy);
	return ret;
}

static const char *print_k(const struct qd_kind *k, const void *c, bool json)
{
	cap_start(json);
	qd_kind_print(k, c);
	return cap_end();
}

/*
 * "cgroup PATH rate R [ceil C] [prio P] [weight W]": fields not given
 * take their defaults, text shows the others, JSON all; words and diff
 * carry them; a field's bad value is named by both words.
 */
static void test_fields(const char *rel_a, const char *rel_b, uint64_t ida, uint64_t idb)
{
	char want[4096], words[4096], desc[4096], *argv[32];
	struct f_cfg c, w, back;
	struct f_row rows[N_ENTRIES] = {};
	int argc;

	snprintf(want, sizeof(want),
		 "rate 1Mbit cgroup %s rate 1Mbit ceil 4Mbit prio 2 weight 3 cgroup %s rate 2Mbit "
		 "rate 8Mbit",
		 rel_a, rel_b);
	CHECK(!parse_k(&f_kind, &c, want, true));
	CHECK_U64(c.rate, 1000000); /* the last "rate": the instance's, after the entry */
	CHECK_U64(c.cg[0].id, ida);
	CHECK_U64(c.cg[0].rate, 125000);
	CHECK_U64(c.cg[0].ceil, 500000);
	CHECK_INT(c.cg[0].prio, 2);
	CHECK_INT(c.cg[0].weight, 3);
	CHECK_U64(c.cg[1].id, idb);
	CHECK_U64(c.cg[1].ceil, 0);
	CHECK_INT(c.cg[1].prio, 0);
	CHECK_INT(c.cg[1].weight, 1);
	snprintf(want, sizeof(want),
		 "rate 8Mbit cgroup %s rate 1Mbit ceil 4Mbit prio 2 weight 3 cgroup %s rate 2Mbit ",
		 rel_a, rel_b);
	CHECK_STR(print_k(&f_kind, &c, false), want);
	snprintf(want, sizeof(want),
		 "\"rate\":1000000,\"cgroup\":[{\"path\":\"%s\",\"id\":%llu,\"rate\":125000,"
		 "\"ceil\":500000,\"prio\":2,\"weight\":3},{\"path\":\"%s\",\"id\":%llu,"
		 "\"rate\":250000,\"ceil\":0,\"prio\":0,\"weight\":1}]\n",
		 rel_a, (unsigned long long)ida, rel_b, (unsigned long long)idb);
	CHECK_STR(print_k(&f_kind, &c, true), want);

	/* Rows are found by the entries' stride, not qd_cgroup_val's. */
	rows[1] = (struct f_row){ idb, 500, 300 };
	cap_start(false);
	qd_kind_print_rows(&f_kind, &c, rows, sizeof(rows));
	snprintf(want, sizeof(want),
		 "  cgroup %s: sent 0 bytes borrowed 0\n  cgroup %s: sent 500 bytes borrowed 300\n",
		 rel_a, rel_b);
	CHECK_STR(cap_end(), want);

	/* The words read back to the same options; diff names the changed entry. */
	CHECK_INT(qd_kind_words(&f_kind, &c, words, sizeof(words)), 0);
	argc = batch_split(words, argv, 32);
	qd_kind_defaults(&f_kind, &back);
	CHECK(argc > 0 && !qd_kind_parse(&f_kind, argc, argv, &back));
	CHECK(!memcmp(&back, &c, sizeof(back)));
	memcpy(&w, &c, sizeof(w));
	w.cg[0].ceil = 1000000;
	CHECK_INT(qd_kind_diff(&f_kind, &c, &w, desc, sizeof(desc), words, sizeof(words)), 1);
	snprintf(want, sizeof(want),
		 "cgroup %s rate 1Mbit ceil 4Mbit prio 2 weight 3 -> 1Mbit ceil 8Mbit prio 2 "
		 "weight 3",
		 rel_a);
	CHECK_STR(desc, want);
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit ceil 8Mbit prio 2 weight 3", rel_a);
	CHECK_STR(words, want);

	/* Given again without fields, an entry takes their defaults. */
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit", rel_a);
	CHECK(!parse_k(&f_kind, &c, want, false));
	CHECK_U64(c.cg[0].ceil, 0);
	CHECK_INT(c.cg[0].prio, 0);
	CHECK_INT(c.cg[0].weight, 1);

	/* Bad fields: nothing changes. */
	memcpy(&back, &c, sizeof(back));
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit ceil fast", rel_a);
	CHECK(parse_k(&f_kind, &c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit weight 0", rel_a);
	CHECK(parse_k(&f_kind, &c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit prio 8", rel_a);
	CHECK(parse_k(&f_kind, &c, want, false) == -EINVAL);
	snprintf(want, sizeof(want), "cgroup %s rate 1Mbit prio", rel_a);
	CHECK(parse_k(&f_kind, &c, want, false) == -EINVAL);
	CHECK(!memcmp(&back, &c, sizeof(back)));

	/* nocgroup clears the fields with the entry. */
	snprintf(want, sizeof(want), "nocgroup %s", rel_b);
	CHECK(!parse_k(&f_kind, &c, want, false));
	CHECK(!c.cg[1].id && !c.cg[1].weight && !c.cg[1].rate);
}

static int parse(struct t_cfg *c, const char *line, bool fresh)
{
	return parse_k(&t_kind, c, line, fresh);
}

static const char *print(const struct t_cfg *c, bool json)
{
	return print_k(&t_kind, c, json);
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

	test_fields(rel_a, rel_b, ida, idb);

	/* Counters: a row counts for its entry only while the ids agree. */
	rows[0] = (struct t_row){ ida, 1000 };
	rows[1] = (struct t_row){ idc, 77 };
	cap_start(false);
	qd_kind_print_rows(&t_kind, &c, rows, sizeof(rows));
	snprintf(want, sizeof(want), "  cgroup %s: sent 1000 bytes\n  cgroup %s: sent 0 bytes\n",
		 rel_a, rel_b);
	CHECK_STR(cap_end(), want);
	/* The same rows as samples: one a configured entry, keyed by its cgroup. */
	{
		struct qd_sample sm[8];
		size_t n;

		CHECK(qd_kind_samples_max(&t_kind) <= sizeof(sm) / sizeof(sm[0]));
		n = qd_kind_samples(&t_kind, rows, sizeof(rows), &c, 0, sm);
		CHECK_INT((int)n, 2);
		CHECK_INT(sm[0].group, QD_SAMPLE_ROWS);
		CHECK_U64(sm[0].key, ida);
		CHECK_U64(sm[0].value, 1000);
		CHECK_U64(sm[1].key, idb);
		CHECK_U64(sm[1].value, 0);
	}

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

	/*
	 * apply's words and diff: entries compared as a set (their places may
	 * differ), written back as the words that make them.
	 */
	{
		struct t_cfg want_cfg, back;
		char words[4096], desc[4096], w2[4096];
		char *argv[32];
		int argc;

		/* c: rate 1Mbit, [0] c3 1Mbit, [1] b 1Kbit. Desired: b at 1Kbit, a at 2Mbit. */
		snprintf(want, sizeof(want), "rate 1Mbit cgroup %s rate 1Kbit cgroup %s rate 2Mbit",
			 rel_b, rel_a);
		CHECK(!parse(&want_cfg, want, true));
		CHECK_INT(qd_kind_diff(&t_kind, &c, &want_cfg, desc, sizeof(desc), words,
				       sizeof(words)),
			  2);
		snprintf(want, sizeof(want), "nocgroup %s, cgroup %s rate none -> 2Mbit", rel_c,
			 rel_a);
		CHECK_STR(desc, want);
		snprintf(want, sizeof(want), "nocgroup %s cgroup %s rate 2Mbit", rel_c, rel_a);
		CHECK_STR(words, want);
		/* What change does with those words: the desired set. */
		memcpy(&back, &c, sizeof(back));
		snprintf(w2, sizeof(w2), "%s", words);
		CHECK(!parse(&back, w2, false));
		CHECK_INT(
			qd_kind_diff(&t_kind, &back, &want_cfg, desc, sizeof(desc), w2, sizeof(w2)),
			0);
		/* Every option as words, read back to the same options. */
		CHECK_INT(qd_kind_words(&t_kind, &want_cfg, words, sizeof(words)), 0);
		snprintf(want, sizeof(want), "rate 1Mbit cgroup %s rate 1Kbit cgroup %s rate 2Mbit",
			 rel_b, rel_a);
		CHECK_STR(words, want);
		argc = batch_split(words, argv, 32);
		qd_kind_defaults(&t_kind, &back);
		CHECK(argc > 0 && !qd_kind_parse(&t_kind, argc, argv, &back));
		CHECK(!memcmp(&back, &want_cfg, sizeof(back)));
	}

	/* A removed cgroup is named by its id; apply cannot name it. */
	CHECK(!rmdir(c3));
	CHECK(!qd_cgroup_path(idc, path, sizeof(path)));
	{
		char words[4096], desc[4096];
		struct t_cfg none;

		CHECK_INT(qd_kind_words(&t_kind, &c, words, sizeof(words)), -ENOENT);
		qd_kind_defaults(&t_kind, &none);
		none.rate = c.rate;
		CHECK_INT(
			qd_kind_diff(&t_kind, &c, &none, desc, sizeof(desc), words, sizeof(words)),
			-ENOENT);
	}
	snprintf(want, sizeof(want), "cgroup (removed, id %llu) rate 1Mbit",
		 (unsigned long long)idc);
	CHECK(strstr(print(&c, false), want) != NULL);

	rmdir(a);
	rmdir(b);
	return test_summary("test_cgroups");
}
