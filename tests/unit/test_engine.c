// SPDX-License-Identifier: GPL-2.0
/*
 * The option engine itself: every type's table of operations, the one
 * walker of the grammar that parsing, the required check and completion
 * share, the describer's order, and the text formats of the real kinds'
 * counters (data, which -Wformat cannot check).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/complete.h"
#include "kinds/describe.h"
#include "kinds/opt.h"
#include "lib/json_print.h"
#include "lib/units.h"
#include "capture.h"
#include "test.h"

struct e_cfg {
	uint32_t limit;
	uint32_t pacing;
	uint16_t map[4];
	struct qd_cgroup_val cg[2];
	uint64_t quantum;
};

static const char *const e_pacing[] = { "nopacing", "pacing", NULL };
static const uint64_t e_map_defs[] = { 1, 2, 3, 0 };

static const struct qd_opt e_opts[] = { { .name = "limit",
					  .type = QD_OPT_COUNT,
					  .off = offsetof(struct e_cfg, limit),
					  .width = 4,
					  .min = 1,
					  .max = 100,
					  .unit = "p",
					  .flags = QD_OPT_REQUIRED,
					  .help = "packets" },
					{ .name = "pacing",
					  .type = QD_OPT_BOOL,
					  .off = offsetof(struct e_cfg, pacing),
					  .width = 4,
					  .def = 1,
					  .choices = e_pacing,
					  .help = "pace" },
					{ .name = "map",
					  .type = QD_OPT_LIST,
					  .off = offsetof(struct e_cfg, map),
					  .width = 2,
					  .count = 4,
					  .defs = e_map_defs,
					  .max = 3,
					  .help = "a map" },
					{ .name = "cgroup",
					  .type = QD_OPT_CGROUPS,
					  .off = offsetof(struct e_cfg, cg),
					  .width = sizeof(struct qd_cgroup_val),
					  .count = 2,
					  .sub = "rate",
					  .sub_type = QD_OPT_RATE,
					  .unset = "nocgroup",
					  .min = 1,
					  .max = ~0ULL,
					  .help = "per cgroup" },
					{ .name = "quantum",
					  .type = QD_OPT_SIZE,
					  .off = offsetof(struct e_cfg, quantum),
					  .width = 8,
					  .def = 3028,
					  .min = 1,
					  .max = ~0ULL,
					  .special = "auto",
					  .special_val = 0,
					  .help = "bytes" },
					{} };

static const struct qd_kind e_kind = {
	.name = "ekind",
	.id = "qdiscctl_ekind",
	.summary = "the engine's test kind",
	.opts = e_opts,
	.cfg_size = sizeof(struct e_cfg),
};

/* Every type has a table, of its own type, with what the engine calls. */
static void test_tables(void)
{
	for (int t = 0; t < QD_OPT_NTYPES; t++) {
		const struct qd_opt_ops *ops = qd_opt_type_ops(t);

		if (!CHECK(ops))
			continue;
		CHECK_INT(ops->type, t);
		CHECK(ops->nwords && ops->text && ops->print && ops->words && ops->diff &&
		      ops->describe);
		/* A keyword is set by the walker; everything else parses its words. */
		CHECK(ops->keyword ? !ops->parse && !ops->metavar : ops->parse && ops->metavar);
		/* A type with entries names their removing word's parser and labels them. */
		CHECK(!ops->entry_key == !ops->print_entry);
		CHECK(!ops->repeat || ops->unset);
	}
	CHECK(!qd_opt_type_ops(QD_OPT_NTYPES));
	/* The number types read and write a value; their exact words read back. */
	for (int t = 0; t < QD_OPT_NTYPES; t++) {
		const struct qd_opt_ops *ops = qd_opt_type_ops(t);
		const struct qd_opt o = { .type = t };
		char buf[UNITS_BUF];
		uint64_t back = 0;

		if (!ops || !ops->value)
			continue;
		CHECK(ops->bound && ops->exact_unit);
		CHECK(!ops->value(&o, qd_opt_value_word(&o, ops, 1000000001, buf, sizeof(buf)),
				  &back));
		CHECK_U64(back, 1000000001);
	}
}

/* One walker: what each word is, and how many value words go with it. */
static void test_walk(void)
{
	char *argv[] = { "limit", "5",	      "pacing", "map",	"1",	  "2", "3",
			 "0",	  "nocgroup", "/x",	"what", "cgroup", "/y" };
	struct qd_opt_step s = QD_OPT_STEP_START;
	const struct {
		int i;
		unsigned int n;
		enum qd_step_how how;
		const char *opt;
	} want[] = {
		{ 0, 1, QD_STEP_NAME, "limit" },  { 2, 0, QD_STEP_KEYWORD, "pacing" },
		{ 3, 4, QD_STEP_NAME, "map" },	  { 8, 1, QD_STEP_UNSET, "cgroup" },
		{ 10, 0, QD_STEP_UNKNOWN, NULL }, { 11, 3, QD_STEP_NAME, "cgroup" },
	};
	unsigned int n = 0;

	while (qd_kind_walk(&e_kind, 13, argv, &s)) {
		if (!CHECK(n < sizeof(want) / sizeof(want[0])))
			break;
		CHECK_INT(s.i, want[n].i);
		CHECK_INT(s.n, want[n].n);
		CHECK_INT(s.how, want[n].how);
		CHECK(want[n].opt ? s.o && !strcmp(s.o->name, want[n].opt) : !s.o);
		n++;
	}
	CHECK_INT(n, 6);
	s = QD_OPT_STEP_START;
	CHECK(qd_kind_walk(&e_kind, 3, argv, &s) && qd_kind_walk(&e_kind, 3, argv, &s));
	CHECK_U64(s.idx, 1);
	CHECK(!qd_kind_walk(&e_kind, 3, argv, &s));
}

/*
 * The required check and completion read the words as the parser does:
 * "limit" as a cgroup's path is no limit, and completing after "map 1"
 * is still the map's numbers (no candidates), not an option name.
 */
static void test_walk_users(void)
{
	char *cg[] = { "cgroup", "limit", "rate", "1" };
	char *lim[] = { "pacing", "limit", "5" };
	char *map[] = { "map", "1" };
	char *done[] = { "map", "1", "2", "3", "0" };
	char out[256];
	FILE *f;

	CHECK_INT(qd_kind_check_required(&e_kind, 4, cg), -EINVAL);
	CHECK_INT(qd_kind_check_required(&e_kind, 3, lim), 0);
	f = fmemopen(out, sizeof(out), "w");
	CHECK_INT(qd_complete_kind_values(&e_kind, 2, map, f), 0);
	CHECK_INT(qd_complete_kind_values(&e_kind, 5, done, f), -ENOENT);
	CHECK_INT(qd_complete_kind_values(&e_kind, 3, cg, f), 0);
	CHECK_INT(qd_complete_kind_values(&e_kind, 1, (char *[]){ "quantum" }, f), 0);
	fclose(f);
	/* "cgroup limit rate": the next word is the rate; then quantum's special word. */
	CHECK_STR(out, "auto\n");
}

/* The describer: the options in order, then the lists and capacities where asked. */
static char trace[512];

static void t_add(const char *s)
{
	size_t n = strlen(trace);

	snprintf(trace + n, sizeof(trace) - n, "%s;", s);
}

static void t_kind(const struct qd_kind *k, const char *syn)
{
	(void)k;
	t_add(syn);
}

static void t_option(const struct qd_opt *o, const char *label, const char *dflt)
{
	char b[128];

	snprintf(b, sizeof(b), "%s=%s(%s)", o->name, label, dflt ? dflt : "required");
	t_add(b);
}

static void t_options_end(const struct qd_kind *k)
{
	(void)k;
	t_add("end");
}

static void t_caps(const struct qd_kind *k)
{
	(void)k;
	t_add("caps");
}

static void test_describer(void)
{
	struct qd_describer be = {
		.kind = t_kind,
		.option = t_option,
		.options_end = t_options_end,
		.caps = t_caps,
	};

	qd_kind_describe_to(&e_kind, &be);
	CHECK_STR(trace, "ekind limit PACKETS [nopacing | pacing] [map NUMBERS] "
			 "[cgroup PATH | nocgroup PATH]... [quantum BYTES];"
			 "limit=limit PACKETS(required);pacing=nopacing | pacing(pacing);"
			 "map=map NUMBERS(1 2 3 0);cgroup=cgroup PATH | nocgroup PATH(none);"
			 "quantum=quantum BYTES(3028b);end;caps;");
	trace[0] = '\0';
	be.caps_first = true;
	qd_kind_describe_to(&e_kind, &be);
	CHECK(strstr(trace, ";end;caps;"));
}

/* A counter's text is a format with one %s (the value in tc's units) and no other conversion. */
static bool one_s(const char *text)
{
	const char *p = strstr(text, "%s");

	return p && strchr(text, '%') == p && !strchr(p + 2, '%');
}

static void check_texts(const struct qd_stat *s)
{
	for (; s && s->name; s++)
		if (!CHECK(s->text && one_s(s->text)))
			fprintf(stderr, "  stat %s: text \"%s\"\n", s->name, s->text);
}

static void test_stat_texts(void)
{
	unsigned int n = 0;

	for (const struct qd_kind *const *k = qd_kinds(); *k; k++, n++) {
		check_texts((*k)->stats);
		if ((*k)->rows)
			check_texts((*k)->rows->stats);
		if ((*k)->table)
			check_texts((*k)->table->stats);
	}
	CHECK(n >= 4);
	CHECK(!one_s(" gc %d") && !one_s(" %s%%") && one_s("  band %s:"));
}

int main(void)
{
	test_tables();
	test_walk();
	test_walk_users();
	test_describer();
	test_stat_texts();
	return test_summary("test_engine");
}
