// SPDX-License-Identifier: GPL-2.0
/* Completion candidates from descriptors and dump replies. */
#include <errno.h>
#include <stdlib.h>

#include "core/complete.h"
#include "lib/units.h"
#include "test.h"

struct t_cfg {
	uint32_t limit, mode, buckets, flag;
	uint64_t rate;
};

static const char *const t_modes[] = { "drop", "cap", NULL };
static const char *const t_flag[] = { "noflag", "flag", NULL };

#define F(f) .off = offsetof(struct t_cfg, f), .width = sizeof(((struct t_cfg *)0)->f)

static const struct qd_opt t_opts[] = {
	{ .name = "limit", .type = QD_OPT_COUNT, F(limit), .def = 10, .min = 1, .max = 100 },
	{ .name = "mode", .type = QD_OPT_WORD, F(mode), .choices = t_modes },
	{ .name = "buckets",
	  .type = QD_OPT_COUNT,
	  F(buckets),
	  .def = 16,
	  .min = 4,
	  .max = 64,
	  .flags = QD_OPT_POW2 },
	{ .name = "flag", .type = QD_OPT_BOOL, F(flag), .choices = t_flag },
	{ .name = "rate",
	  .type = QD_OPT_RATE,
	  F(rate),
	  .max = UINT64_MAX,
	  .special = "unlimited",
	  .special_val = UINT64_MAX },
	{}
};

static const struct qd_col t_cols[] = { { .name = "flow" }, { .name = "qlen" }, {} };
static const struct qd_col u_cols[] = { { .name = "qlen" }, { .name = "age" }, {} };
static const struct qd_flows t_flows = { .cols = t_cols };
static const struct qd_flows u_flows = { .cols = u_cols };

static const struct qd_kind t_kind = { .name = "t", .opts = t_opts, .flows = &t_flows };
static const struct qd_kind u_kind = { .name = "u", .opts = t_opts + 5, .flows = &u_flows };
static const struct qd_kind v_kind = { .name = "v", .opts = t_opts + 5 };
/* A list option: its values are the next count words. */
static const uint64_t l_defs[3] = { 0, 1, 2 };
static const struct qd_opt l_opts[] = {
	{ .name = "map", .type = QD_OPT_LIST, .width = 1, .count = 3, .defs = l_defs, .max = 7 },
	{ .name = "rate",
	  .type = QD_OPT_RATE,
	  .off = 8,
	  .width = 8,
	  .max = UINT64_MAX,
	  .special = "unlimited",
	  .special_val = UINT64_MAX },
	{}
};
static const struct qd_kind l_kind = { .name = "l", .opts = l_opts };
/* A cgroup entry's optional fields come after its value, with the options. */
static const struct qd_opt c_fields[] = {
	{ .name = "ceil", .type = QD_OPT_RATE, .off = 16, .width = 8, .special = "none" },
	{ .name = "prio", .type = QD_OPT_COUNT, .off = 24, .width = 4, .max = 7 },
	{}
};
static const struct qd_opt c_opts[] = {
	{ .name = "cgroup",
	  .type = QD_OPT_CGROUPS,
	  .width = 32,
	  .count = 2,
	  .sub = "rate",
	  .sub_type = QD_OPT_RATE,
	  .unset = "nocgroup",
	  .fields = c_fields },
	{ .name = "limit", .type = QD_OPT_COUNT, .off = 64, .width = 4, .max = 100 },
	{}
};
static const struct qd_kind c_kind = { .name = "c", .opts = c_opts };
/* kind.c iterates the registered kinds; one makes the section exist. */
QD_KIND_REGISTER(t_kind);

/* What fn printed, newlines as spaces; static, valid until the next call. */
static char out[1024];
static FILE *mem;
static char *membuf;
static size_t memlen;

static void begin(void)
{
	mem = open_memstream(&membuf, &memlen);
}

static const char *end(void)
{
	fclose(mem);
	snprintf(out, sizeof(out), "%s", membuf);
	free(membuf);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

static void test_words(void)
{
	begin();
	qd_complete_kind_words(&t_kind, mem);
	/* Keyword options by their words, never their names (mode, flag). */
	CHECK_STR(end(), "limit drop cap buckets noflag flag rate ");
	begin();
	qd_complete_kind_words(&v_kind, mem);
	CHECK_STR(end(), "");
}

static void test_values(void)
{
	begin();
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "buckets" }, mem) == 0);
	CHECK_STR(end(), "4 8 16 32 64 ");
	begin();
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "rate" }, mem) == 0);
	CHECK_STR(end(), "unlimited ");
	/* An open range: takes a value, none to offer. */
	begin();
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "limit" }, mem) == 0);
	CHECK_STR(end(), "");
	/* Keywords take no value; neither do unknown words. */
	begin();
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "mode" }, mem) == -ENOENT);
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "drop" }, mem) == -ENOENT);
	CHECK(qd_complete_kind_values(&t_kind, 1, (char *[]){ "nosuch" }, mem) == -ENOENT);
	CHECK_STR(end(), "");
}

static void test_list_values(void)
{
	/* Within the list a number is due, after it an option name, then rate's value. */
	begin();
	CHECK(qd_complete_kind_values(&l_kind, 1, (char *[]){ "map" }, mem) == 0);
	CHECK(qd_complete_kind_values(&l_kind, 3, (char *[]){ "map", "1", "2" }, mem) == 0);
	CHECK_STR(end(), "");
	CHECK(qd_complete_kind_values(&l_kind, 4, (char *[]){ "map", "1", "2", "3" }, mem) ==
	      -ENOENT);
	begin();
	CHECK(qd_complete_kind_values(&l_kind, 5, (char *[]){ "map", "1", "2", "3", "rate" },
				      mem) == 0);
	CHECK_STR(end(), "unlimited ");
	/* A number that happens to be an option's name inside a list is a value. */
	begin();
	CHECK(qd_complete_kind_values(&l_kind, 3, (char *[]){ "map", "rate", "1" }, mem) == 0);
	CHECK_STR(end(), "");
}

static void test_cgroup_fields(void)
{
	begin();
	CHECK(qd_complete_kind_values(&c_kind, 3, (char *[]){ "cgroup", "/x", "rate" }, mem) == 0);
	CHECK_STR(end(), "");
	begin();
	CHECK(qd_complete_kind_values(&c_kind, 4, (char *[]){ "cgroup", "/x", "rate", "1mbit" },
				      mem) == 0);
	CHECK_STR(end(), "ceil prio cgroup nocgroup limit ");
	begin();
	CHECK(qd_complete_kind_values(
		      &c_kind, 5, (char *[]){ "cgroup", "/x", "rate", "1mbit", "ceil" }, mem) == 0);
	CHECK_STR(end(), ""); /* a field's value: open-ended */
	begin();
	CHECK(qd_complete_kind_values(
		      &c_kind, 6, (char *[]){ "cgroup", "/x", "rate", "1mbit", "ceil", "2mbit" },
		      mem) == 0);
	CHECK_STR(end(), "ceil prio cgroup nocgroup limit ");
	/* After the fields, an option's value, then an option name. */
	begin();
	CHECK(qd_complete_kind_values(
		      &c_kind, 7,
		      (char *[]){ "cgroup", "/x", "rate", "1mbit", "prio", "1", "limit" },
		      mem) == 0);
	CHECK(qd_complete_kind_values(
		      &c_kind, 8,
		      (char *[]){ "cgroup", "/x", "rate", "1mbit", "prio", "1", "limit", "5" },
		      mem) == -ENOENT);
	CHECK_STR(end(), "");
}

static void test_columns(void)
{
	const struct qd_kind *const kinds[] = { &t_kind, &v_kind, &u_kind, NULL };

	begin();
	qd_complete_columns(kinds, mem);
	CHECK_STR(end(), "flow qlen age ");
}

static void test_handles(void)
{
	struct qd_handles h = {};
	struct qdisc_info qi[] = {
		{ .handle = 0x10000, .parent = UNITS_H_ROOT }, /* 1: root */
		{ .handle = 0x20000, .parent = 0x10001 },      /* 2: under 1:1 */
		{ .handle = 0, .parent = 0x10002 },	       /* a default child */
		{ .handle = 0x20000, .parent = 0x10001 },      /* listed twice */
		{ .handle = 0, .parent = 0x3 },		       /* mq's :3 */
	};

	for (size_t i = 0; i < sizeof(qi) / sizeof(qi[0]); i++)
		qd_handles_add(&h, &qi[i]);
	CHECK_U64(h.n, 5);
	begin();
	qd_handles_print(&h, mem);
	CHECK_STR(end(), ":3 1: 1:1 1:2 2: ");

	/* Full: more are dropped, never written past the end. */
	memset(&h, 0, sizeof(h));
	for (uint32_t i = 1; i <= QD_HANDLES_MAX + 10; i++)
		qd_handles_add(&h, &(struct qdisc_info){ .handle = i << 16 });
	CHECK_U64(h.n, QD_HANDLES_MAX);
}

int main(void)
{
	test_words();
	test_values();
	test_list_values();
	test_cgroup_fields();
	test_columns();
	test_handles();
	return test_summary("test_complete");
}
