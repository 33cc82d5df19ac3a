// SPDX-License-Identifier: GPL-2.0
/*
 * The apply file: parsing and checking it, option words that read back to
 * the same options, and the plan that compares a statement with what the
 * kernel has. The real fifo, fq and prio descriptors.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/config.h"
#include "lib/common.h"
#include "test.h"
#include "lib/batch.h"

static const struct qd_kernel kernel = { .major = 7, .minor = 3, .x86_64 = true };

/* qd_config_read(path), its stderr into err. */
static int stderr_of(const char *path, struct qd_config *c, char *err, size_t errlen)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = qd_config_read(path, &kernel, c);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, errlen - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return ret;
}

static int read_text(const char *text, struct qd_config *c, char *err, size_t errlen)
{
	char path[] = "/tmp/test_config.XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	ret = stderr_of(path, c, err, errlen);
	unlink(path);
	return ret;
}

static void check_grammar(void)
{
	struct qd_config c;
	char err[4096];
	int ret;

	ret = read_text("# a comment\n"
			"dev eth0 root mq fq maxrate 1gbit\n"
			"dev eth1 root handle 1: edt rate 500mbit \\\n  horizon 1ms\n"
			"dev eth2 root pfifo_fast\n"
			"default fq limit 2000\n"
			"sysctl backpressure\n"
			"sysctl net.core.wmem_max 1048576\n"
			"netns blue\n"
			"dev veth* root fifo limit 50\n"
			"dev eth0 root fifo\n",
			&c, err, sizeof(err));
	CHECK_INT(ret, 0);
	CHECK_STR(err, "");
	CHECK_INT(c.n, 8);
	if (c.n != 8)
		return;
	CHECK(c.stmts[0].mq && !strcmp(c.stmts[0].kind->name, "fq"));
	CHECK_INT(c.stmts[0].line, 2);
	CHECK_INT(c.stmts[1].line, 3);
	CHECK(c.stmts[1].spec.have_handle && c.stmts[1].spec.handle == 0x10000);
	CHECK(!c.stmts[2].kind && !strcmp(c.stmts[2].spec.kind, "pfifo_fast"));
	CHECK_INT(c.stmts[2].line, 5);
	CHECK_INT(c.stmts[3].type, QD_STMT_DEFAULT);
	CHECK_INT(c.stmts[4].type, QD_STMT_PROFILE);
	CHECK_INT(c.stmts[5].type, QD_STMT_SYSCTL);
	CHECK_STR(c.stmts[5].value, "1048576");
	CHECK(!c.stmts[5].netns);
	CHECK_STR(c.stmts[6].netns, "blue");
	CHECK(c.stmts[6].glob && qd_stmt_matches(&c.stmts[6], "veth12") &&
	      !qd_stmt_matches(&c.stmts[6], "eth0"));
	/* fnmatch's forms. */
	{
		struct qd_stmt g = { .glob = true };
		static const struct {
			const char *pat, *name;
			bool match;
		} cases[] = {
			{ "veth*", "veth", true },
			{ "veth*", "vet", false },
			{ "*", "", true },
			{ "a*b*c", "axxbyyc", true },
			{ "a*b*c", "axxbyy", false },
			{ "eth?", "eth1", true },
			{ "eth?", "eth12", false },
			{ "eth[0-3]", "eth2", true },
			{ "eth[0-3]", "eth4", false },
			{ "eth[!0-3]", "eth4", true },
			{ "eth[!0-3]", "eth0", false },
			{ "tap[ab]x", "tapbx", true },
			{ "tap[]]", "tap]", true },
			{ "br[", "br[", true },
			{ "**x", "yyx", true },
			{ "x*", "y", false },
		};

		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			g.spec.dev = cases[i].pat;
			if (!CHECK(qd_stmt_matches(&g, cases[i].name) == cases[i].match))
				fprintf(stderr, "     %s ~ %s\n", cases[i].pat, cases[i].name);
		}
	}
	/* The same device in another namespace is another device. */
	CHECK_STR(c.stmts[7].netns, "blue");
	CHECK(qd_stmt_matches(&c.stmts[7], "eth0") && !qd_stmt_matches(&c.stmts[7], "eth01"));
	qd_config_free(&c);
}

/* Every bad line is named, with its line, and nothing is returned. */
static void check_errors(void)
{
	struct qd_config c;
	char err[4096];
	int ret;

	ret = read_text("dev eth0 root fifo limit 10\n"
			"dev eth0 root fq\n"
			"dev eth1 root fifo limit lots\n"
			"dev eth2 root pfifo limit 5\n"
			"dev eth3 fifo\n"
			"frobnicate\n"
			"sysctl net.core.nothing 1\n"
			"sysctl net.core.wmem_max -1\n"
			"dev eth4 parent 1:1 mq fifo\n"
			"default pfifo_fast\n"
			"netns a/b\n"
			"dev eth5 root edt\n"
			"dev eth6 root 'fifo\n",
			&c, err, sizeof(err));
	CHECK_INT(ret, QD_EXIT_USAGE);
	CHECK_INT(c.n, 0);
	CHECK(strstr(err, ":2: \"dev\" says again what line 1 says\n"));
	CHECK(strstr(err, ":3: fifo: invalid limit \"lots\""));
	CHECK(strstr(err, ":4: dev: \"pfifo\" is not one of qdiscctl's kinds, so \"limit\""));
	CHECK(strstr(err, ":5: dev eth3: \"root\" or \"parent ID\" is required\n"));
	CHECK(strstr(err, ":6: unknown statement \"frobnicate\""));
	CHECK(strstr(err, ":7: sysctl: \"net.core.nothing\" is not one of"));
	CHECK(strstr(err, ":8: sysctl: "));
	CHECK(strstr(err, ":9: dev: only \"root\" can hold an mq\n"));
	CHECK(strstr(err, ":10: default: \"pfifo_fast\" is not one of qdiscctl's kinds"));
	CHECK(strstr(err, ":11: netns: needs one NAME"));
	CHECK(strstr(err, ":12: edt: \"rate\" is required"));
	CHECK(strstr(err, ":13: unterminated quote\n"));
	CHECK(!strstr(err, ":1: "));
}

/* Options as words, parsed back: the same options. */
static void check_words(void)
{
	static const char *const names[] = { "fifo", "fq", "prio", "edt" };
	_Alignas(uint64_t) char cfg[QD_CFG_MAX], back[QD_CFG_MAX];
	char words[4096], *argv[128];

	for (size_t n = 0; n < ARRAY_SIZE(names); n++) {
		const struct qd_kind *k = qd_kind_find(names[n]);
		int argc;

		qd_kind_defaults(k, cfg);
		/* Values show would round: they must be written exactly. */
		for (const struct qd_opt *o = k->opts; o->name; o++)
			if (o->type == QD_OPT_RATE || o->type == QD_OPT_SIZE ||
			    o->type == QD_OPT_TIME)
				qd_opt_set(o, cfg, o->max - o->min > 1001 ? o->min + 1001 : o->max);
		CHECK_INT(qd_kind_words(k, cfg, words, sizeof(words)), 0);
		argc = batch_split(words, argv, 128);
		qd_kind_defaults(k, back);
		CHECK(argc > 0 && !qd_kind_parse(k, argc, argv, back));
		if (!CHECK(!memcmp(cfg, back, k->cfg_size)))
			fprintf(stderr, "     kind %s\n", k->name);
	}
}

/* Defaults as save writes them: special words stay words. */
static void check_default_words(void)
{
	const struct qd_kind *edt = qd_kind_find("edt"), *fq = qd_kind_find("fq");
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	char words[4096];

	qd_kind_defaults(edt, cfg);
	CHECK_INT(qd_kind_words(edt, cfg, words, sizeof(words)), 0);
	CHECK_STR(words, "rate 0bit burst auto horizon 500us ce_threshold 50us min_inflight 2 "
			 "limit 10000 backpressure default_rate unlimited default_ceil none "
			 "default_prio 0 default_weight 1 timer_slack 50us");
	qd_kind_defaults(fq, cfg);
	CHECK_INT(qd_kind_words(fq, cfg, words, sizeof(words)), 0);
	CHECK_STR(words,
		  "limit 10000 flow_limit 100 buckets 1024 orphan_mask 1023 pacing bands 3 priomap "
		  "1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536 quantum "
		  "auto initial_quantum auto maxrate unlimited low_rate_threshold 550Kbit "
		  "refill_delay 40ms ce_threshold 4294967295000ns timer_slack 10us horizon 10s "
		  "horizon_drop offload_horizon 0us");
}

static void check_plan(void)
{
	const struct qd_kind *fq = qd_kind_find("fq"), *fifo = qd_kind_find("fifo");
	_Alignas(uint64_t) char cur_cfg[QD_CFG_MAX], child_cfg[2][QD_CFG_MAX];
	struct qd_stmt st = { .type = QD_STMT_QDISC };
	struct qd_current cur = { .present = true };
	struct qd_child child[2];
	struct qd_plan p;
	char *opts[] = { "limit", "2000", "nopacing" };

	/* dev x root fq limit 2000 nopacing */
	st.spec.dev = "x";
	st.spec.parent = 0xFFFFFFFFU;
	st.spec.kind = "fq";
	st.kind = fq;
	st.cfg = malloc(fq->cfg_size);
	qd_kind_defaults(fq, st.cfg);
	CHECK(!qd_kind_parse(fq, 3, opts, st.cfg));

	/* The kernel's default: add. */
	snprintf(cur.qi.kind, sizeof(cur.qi.kind), "pfifo_fast");
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_ADD);
	CHECK_STR(p.desc, "qdiscctl_fq");
	/* One someone added: replace. */
	cur.qi.handle = 0x10000;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_REPLACE);
	CHECK_STR(p.desc, "pfifo_fast -> qdiscctl_fq");
	/* Ours with other options: change, only what differs. */
	snprintf(cur.qi.kind, sizeof(cur.qi.kind), "qdiscctl_fq");
	cur.ours = fq;
	cur.cfg = cur_cfg;
	qd_kind_defaults(fq, cur_cfg);
	qd_opt_set(qd_kind_named(fq, "quantum"), cur_cfg, 3028); /* resolved auto */
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_CHANGE);
	CHECK_STR(p.desc, "limit 10000 -> 2000, pacing -> nopacing");
	CHECK_STR(p.words, "limit 2000 nopacing");
	/* The same: unchanged, whatever quantum auto resolved to. */
	memcpy(cur_cfg, st.cfg, fq->cfg_size);
	qd_opt_set(qd_kind_named(fq, "quantum"), cur_cfg, 3028);
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_UNCHANGED);
	/* A handle asked for that is not the one there: replace. */
	st.spec.have_handle = true;
	st.spec.handle = 0x20000;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_REPLACE);
	st.spec.have_handle = false;
	/* Another of qdiscctl's kinds: replace. */
	cur.ours = fifo;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_REPLACE);

	/* mq fq limit 2000 nopacing over two children. */
	st.mq = true;
	cur.ours = NULL;
	cur.cfg = NULL;
	snprintf(cur.qi.kind, sizeof(cur.qi.kind), "mq");
	cur.qi.handle = 0x80010000;
	cur.ntx = 2;
	cur.nchild = 2;
	cur.child = child;
	for (int i = 0; i < 2; i++) {
		child[i].ours = fq;
		child[i].cfg = child_cfg[i];
		memcpy(child_cfg[i], st.cfg, fq->cfg_size);
	}
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_UNCHANGED);
	for (int i = 0; i < 2; i++)
		qd_opt_set(qd_kind_named(fq, "limit"), child_cfg[i], 100);
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_CHANGE);
	CHECK_STR(p.words, "limit 2000");
	/* Children unalike, or fewer than the tx queues: replace. */
	qd_opt_set(qd_kind_named(fq, "limit"), child_cfg[1], 2000);
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_REPLACE);
	qd_opt_set(qd_kind_named(fq, "limit"), child_cfg[1], 100);
	cur.ntx = 4;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_REPLACE);
	/* The kernel's own mq (handle 0) is where a qdisc is added. */
	cur.qi.handle = 0;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_ADD);
	CHECK_STR(p.desc, "mq qdiscctl_fq");
	free(st.cfg);

	/* A native kind: the kind alone decides. */
	memset(&st, 0, sizeof(st));
	st.spec.kind = "pfifo_fast";
	snprintf(cur.qi.kind, sizeof(cur.qi.kind), "pfifo_fast");
	cur.nchild = 0;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_UNCHANGED);
	cur.present = false;
	CHECK(!qd_plan_qdisc(&st, &cur, &p));
	CHECK_INT(p.action, QD_ACT_ADD);
}

int main(void)
{
	check_grammar();
	check_errors();
	check_words();
	check_default_words();
	check_plan();
	return test_summary("test_config");
}
