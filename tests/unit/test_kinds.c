// SPDX-License-Identifier: GPL-2.0
/* Option parsing and printing driven by a kind's descriptor. */
#include <errno.h>
#include <stdlib.h>

#include "kinds/kind.h"
#include "lib/json_print.h"
#include "capture.h"
#include "test.h"

struct t_cfg {
	uint32_t limit;
	uint32_t mode;
	uint64_t horizon;
	uint64_t rate;
	uint32_t quantum;
};

static const char *const t_modes[] = { "drop", "cap", NULL };

static const struct qd_opt t_opts[] = { { .name = "limit",
					  .type = QD_OPT_COUNT,
					  .off = offsetof(struct t_cfg, limit),
					  .width = 4,
					  .def = 1000,
					  .min = 1,
					  .max = 4096,
					  .unit = "p",
					  .help = "packets" },
					{ .name = "mode",
					  .type = QD_OPT_WORD,
					  .off = offsetof(struct t_cfg, mode),
					  .width = 4,
					  .def = 0,
					  .choices = t_modes,
					  .help = "what to do" },
					{ .name = "horizon",
					  .type = QD_OPT_TIME,
					  .off = offsetof(struct t_cfg, horizon),
					  .width = 8,
					  .def = 10000000000ULL,
					  .min = 1000,
					  .max = 3600000000000ULL,
					  .help = "time" },
					{ .name = "maxrate",
					  .type = QD_OPT_RATE,
					  .off = offsetof(struct t_cfg, rate),
					  .width = 8,
					  .def = ~0ULL,
					  .min = 0,
					  .max = ~0ULL,
					  .help = "rate" },
					{ .name = "quantum",
					  .type = QD_OPT_SIZE,
					  .off = offsetof(struct t_cfg, quantum),
					  .width = 4,
					  .def = 3028,
					  .min = 256,
					  .max = 1 << 20,
					  .help = "bytes" },
					{} };

static const struct qd_kind t_kind = {
	.name = "tkind",
	.id = "qdiscctl_tkind",
	.summary = "a kind for tests",
	.opts = t_opts,
	.cfg_size = sizeof(struct t_cfg),
};
QD_KIND_REGISTER(t_kind);

static int parse(struct t_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[16];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	qd_kind_defaults(&t_kind, c);
	ret = qd_kind_parse(&t_kind, argc, argv, c);
	free(copy);
	return ret;
}

static char *print_cfg(const struct t_cfg *c, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print(&t_kind, c);
	close_json_object();
	return cap_end();
}

/* A second kind for the keyword types, special words, flags and merging. */
struct t2_cfg {
	uint32_t pacing;
	uint32_t horizon_drop;
	uint64_t maxrate;
	uint32_t buckets;
	uint32_t quantum;
	uint64_t delay;
	uint64_t low;
};

static const char *const t2_pacing[] = { "nopacing", "pacing", NULL };
static const char *const t2_horizon[] = { "horizon_cap", "horizon_drop", NULL };

#define T2(f) .off = offsetof(struct t2_cfg, f), .width = sizeof(((struct t2_cfg *)0)->f)

static const struct qd_opt t2_opts[] = { { .name = "pacing",
					   .type = QD_OPT_BOOL,
					   T2(pacing),
					   .def = 1,
					   .choices = t2_pacing,
					   .flags = QD_OPT_QUIET_DEFAULT },
					 { .name = "horizon_drop",
					   .type = QD_OPT_WORD,
					   T2(horizon_drop),
					   .def = 1,
					   .choices = t2_horizon },
					 { .name = "maxrate",
					   .type = QD_OPT_RATE,
					   T2(maxrate),
					   .def = ~0ULL,
					   .max = ~0ULL,
					   .special = "unlimited",
					   .special_val = ~0ULL,
					   .flags = QD_OPT_QUIET_DEFAULT },
					 { .name = "buckets",
					   T2(buckets),
					   .def = 1024,
					   .min = 1,
					   .max = 4096,
					   .flags = QD_OPT_POW2 },
					 { .name = "quantum",
					   .type = QD_OPT_SIZE,
					   T2(quantum),
					   .min = 256,
					   .max = 1 << 20,
					   .special = "auto",
					   .special_val = 0 },
					 { .name = "delay",
					   .type = QD_OPT_TIME,
					   T2(delay),
					   .def = 40000000,
					   .max = ~0ULL,
					   .json_div = 1000 },
					 { .name = "low",
					   .type = QD_OPT_RATE,
					   T2(low),
					   .def = 68750,
					   .max = ~0ULL,
					   .flags = QD_OPT_QUIET_ZERO },
					 {} };

static const struct qd_kind t2_kind = {
	.name = "tkind2",
	.id = "qdiscctl_tkind2",
	.summary = "keywords and special values",
	.opts = t2_opts,
	.cfg_size = sizeof(struct t2_cfg),
};
QD_KIND_REGISTER(t2_kind);

static int parse2(struct t2_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[16];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	qd_kind_defaults(&t2_kind, c);
	ret = qd_kind_parse(&t2_kind, argc, argv, c);
	free(copy);
	return ret;
}

/* change: start from cur, apply line. */
static int change2(const struct t2_cfg *cur, struct t2_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[16];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	ret = qd_kind_change(&t2_kind, cur, argc, argv, c);
	free(copy);
	return ret;
}

static char *print2(const struct t2_cfg *c, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print(&t2_kind, c);
	close_json_object();
	return cap_end();
}

static void test_keywords_and_specials(void)
{
	struct t2_cfg c, cur;
	char b[64];

	CHECK_INT(parse2(&c, ""), 0);
	CHECK_U64(c.pacing, 1);
	CHECK_U64(c.horizon_drop, 1);
	CHECK_U64(c.maxrate, ~0ULL);
	CHECK_U64(c.quantum, 0);
	/* Defaults print as tc prints sch_fq's: pacing and unlimited maxrate left out. */
	CHECK_STR(print2(&c, false),
		  "horizon_drop buckets 1024 quantum auto delay 40ms low 550Kbit ");
	CHECK_STR(print2(&c, true), "{\"horizon_drop\":null,\"buckets\":1024,\"quantum\":0,"
				    "\"delay\":40000,\"low\":68750}\n");

	CHECK_INT(parse2(&c, "nopacing horizon_cap maxrate 1gbit quantum 3028 low 0"), 0);
	CHECK_U64(c.pacing, 0);
	CHECK_U64(c.horizon_drop, 0);
	CHECK_U64(c.maxrate, 125000000);
	CHECK_STR(print2(&c, false),
		  "nopacing horizon_cap maxrate 1Gbit buckets 1024 quantum 3028b "
		  "delay 40ms ");
	CHECK_STR(print2(&c, true), "{\"pacing\":false,\"horizon_cap\":null,\"maxrate\":125000000,"
				    "\"buckets\":1024,\"quantum\":3028,\"delay\":40000}\n");

	/* The special words, and the special value typed as a number. */
	CHECK_INT(parse2(&c, "maxrate 1mbit maxrate unlimited quantum auto"), 0);
	CHECK_U64(c.maxrate, ~0ULL);
	CHECK_U64(c.quantum, 0);
	CHECK_INT(parse2(&c, "quantum 0"), 0);
	CHECK_U64(c.quantum, 0);
	CHECK_INT(parse2(&c, "quantum 255"), -EINVAL);
	CHECK_INT(parse2(&c, "quantum automatic"), -EINVAL);
	CHECK_STR(qd_opt_text(&t2_opts[2], ~0ULL, b, sizeof(b)), "unlimited");
	CHECK_STR(qd_opt_text(&t2_opts[0], 0, b, sizeof(b)), "nopacing");
	CHECK_STR(qd_opt_text(&t2_opts[0], 7, b, sizeof(b)), "?");

	/* Powers of two only. */
	CHECK_INT(parse2(&c, "buckets 4096"), 0);
	CHECK_INT(parse2(&c, "buckets 1"), 0);
	CHECK_INT(parse2(&c, "buckets 1000"), -EINVAL);
	CHECK_INT(parse2(&c, "buckets 8192"), -EINVAL);
	/* Keywords take no value; option names of keyword types are no keywords. */
	CHECK_INT(parse2(&c, "pacing 1"), -EINVAL);
	CHECK_INT(parse2(&c, "horizon_drop"), 0);

	/* change keeps what it is not given. */
	CHECK_INT(parse2(&cur, "nopacing horizon_cap buckets 64 maxrate 10mbit"), 0);
	CHECK_INT(change2(&cur, &c, "buckets 128"), 0);
	CHECK_U64(c.buckets, 128);
	CHECK_U64(c.pacing, 0);
	CHECK_U64(c.horizon_drop, 0);
	CHECK_U64(c.maxrate, 1250000);
	CHECK_U64(c.delay, 40000000);
	CHECK_INT(change2(&cur, &c, "pacing maxrate unlimited"), 0);
	CHECK_U64(c.pacing, 1);
	CHECK_U64(c.maxrate, ~0ULL);
	CHECK_U64(c.buckets, 64);
	CHECK_INT(change2(&cur, &c, ""), 0);
	CHECK(!memcmp(&c, &cur, sizeof(c)));
	CHECK_INT(change2(&cur, &c, "buckets 3"), -EINVAL);
	CHECK_U64(cur.buckets, 64);

	CHECK(qd_kind_knows(&t2_kind, "buckets"));
	CHECK(qd_kind_knows(&t2_kind, "nopacing"));
	CHECK(qd_kind_knows(&t2_kind, "horizon_cap"));
	CHECK(!qd_kind_knows(&t2_kind, "pacing_rate"));
	CHECK(!qd_kind_knows(&t2_kind, "tkind2"));
}

int main(void)
{
	struct t_cfg c;

	CHECK(qd_kind_find("tkind") == &t_kind);
	CHECK(qd_kind_find("qdiscctl_tkind") == &t_kind);
	CHECK(qd_kind_find("fifo") == NULL);

	CHECK_INT(parse(&c, ""), 0);
	CHECK_U64(c.limit, 1000);
	CHECK_U64(c.mode, 0);
	CHECK_U64(c.horizon, 10000000000ULL);
	CHECK_U64(c.rate, ~0ULL);
	CHECK_U64(c.quantum, 3028);

	CHECK_INT(parse(&c, "limit 10 cap horizon 2ms maxrate 1gbit quantum 64kb"), 0);
	CHECK_U64(c.limit, 10);
	CHECK_U64(c.mode, 1);
	CHECK_U64(c.horizon, 2000000);
	CHECK_U64(c.rate, 125000000);
	CHECK_U64(c.quantum, 65536);
	CHECK_STR(print_cfg(&c, false), "limit 10p cap horizon 2ms maxrate 1Gbit quantum 64Kb ");
	CHECK_STR(print_cfg(&c, true), "{\"limit\":10,\"cap\":null,\"horizon\":2000000,"
				       "\"maxrate\":125000000,\"quantum\":65536}\n");
	/* The last word wins, as with tc. */
	CHECK_INT(parse(&c, "cap drop limit 5 limit 6"), 0);
	CHECK_U64(c.mode, 0);
	CHECK_U64(c.limit, 6);

	CHECK_INT(parse(&c, "limit 0"), -EINVAL);
	CHECK_INT(parse(&c, "limit 4097"), -EINVAL);
	CHECK_INT(parse(&c, "limit -1"), -EINVAL);
	CHECK_INT(parse(&c, "limit 10x"), -EINVAL);
	CHECK_INT(parse(&c, "limit"), -EINVAL);
	CHECK_INT(parse(&c, "bogus 1"), -EINVAL);
	CHECK_INT(parse(&c, "mode cap"), -EINVAL);
	CHECK_INT(parse(&c, "horizon 1ns"), -EINVAL);
	CHECK_INT(parse(&c, "quantum 2mb"), -EINVAL);
	CHECK_INT(parse(&c, "maxrate fast"), -EINVAL);

	test_keywords_and_specials();
	return test_summary("test_kinds");
}
