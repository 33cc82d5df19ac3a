// SPDX-License-Identifier: GPL-2.0
/*
 * The sysctl table, value parsing and checks, kernel defaults, the
 * backpressure profile, the save file, and apply/restore with their
 * rollbacks, against a fake /proc/sys in a scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sysctl/proc.h"
#include "sysctl/profile.h"
#include "sysctl/sysctl.h"
#include "tests/unit/test.h"

static struct qd_kernel k73 = { .major = 7, .minor = 3, .x86_64 = true, .mem_bytes = 2ULL << 30 };
static struct qd_kernel k618 = { .major = 6, .minor = 18, .x86_64 = true, .mem_bytes = 2ULL << 30 };

static const struct qd_sysctl *S(const char *name)
{
	const struct qd_sysctl *s = qd_sysctl_find(name);

	if (!s) {
		fprintf(stderr, "no sysctl %s in the table\n", name);
		exit(1);
	}
	return s;
}

static void test_lookup(void)
{
	static const char *const names[] = {
		"net.core.wmem_default",
		"net.core.wmem_max",
		"net.ipv4.tcp_limit_output_bytes",
		"net.ipv4.tcp_wmem",
		"net.ipv4.tcp_notsent_lowat",
		"net.ipv4.tcp_ecn",
		"net.core.default_qdisc",
		"net.core.qdisc_max_burst",
		"net.ipv4.udp_backpressure_interval",
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct qd_sysctl *s = qd_sysctl_find(names[i]);

		CHECK(s && !strcmp(s->name, names[i]));
		CHECK(s && s->meaning && *s->meaning);
	}
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++)
		n++;
	CHECK_INT(n, 9);
	CHECK(!qd_sysctl_find("net.core.wmem"));
	CHECK(!qd_sysctl_find("net.core.rmem_max"));
	CHECK(!qd_sysctl_find("net/core/wmem_max"));
	CHECK(!qd_sysctl_find(""));
	CHECK(S("net.ipv4.tcp_wmem")->type == QD_SYSCTL_TRIPLE);
	CHECK(S("net.core.default_qdisc")->type == QD_SYSCTL_STRING);
	CHECK(S("net.ipv4.tcp_notsent_lowat")->type == QD_SYSCTL_UINT);
	/* The host-wide ones are said to be absent from a child namespace. */
	CHECK(S("net.core.default_qdisc")->flags & QD_SYSCTL_F_HOST);
	CHECK(S("net.core.qdisc_max_burst")->flags & QD_SYSCTL_F_HOST);
	CHECK(!(S("net.ipv4.tcp_ecn")->flags & QD_SYSCTL_F_HOST));
}

static void test_kernel(void)
{
	struct qd_kernel k = {};

	CHECK_INT(qd_kernel_parse_release("7.3.4+deb13-cloud-amd64", &k), 0);
	CHECK(k.major == 7 && k.minor == 3);
	CHECK_INT(qd_kernel_parse_release("6.18.44-fc-v669", &k), 0);
	CHECK(k.major == 6 && k.minor == 18);
	CHECK_INT(qd_kernel_parse_release("bogus", &k), -EINVAL);

	qd_kernel_parse_config(
		"# comment\nCONFIG_NET_SCH_FQ=m\nCONFIG_DEFAULT_NET_SCH=\"fq_codel\"\n", &k);
	CHECK_STR(k.default_qdisc, "fq_codel");
	qd_kernel_parse_config("CONFIG_NET_SCH_FQ=m\n# CONFIG_DEFAULT_NET_SCH is not set\n", &k);
	CHECK_STR(k.default_qdisc, "pfifo_fast");
}

static const char *dflt(const char *name, const struct qd_kernel *k)
{
	static char buf[QD_SYSCTL_TEXT];

	return qd_sysctl_default(S(name), k, buf, sizeof(buf));
}

static void test_defaults(void)
{
	struct qd_kernel k612 = {
		.major = 6, .minor = 12, .x86_64 = true, .mem_bytes = 1ULL << 32
	};
	struct qd_kernel k615 = { .major = 6, .minor = 15, .x86_64 = true };
	struct qd_kernel arm612 = { .major = 6, .minor = 12 };
	struct qd_kernel small = k73;

	CHECK_STR(dflt("net.core.wmem_default", &k73), "212992");
	CHECK_STR(dflt("net.core.wmem_default", &arm612), "kernel default");
	CHECK_STR(dflt("net.core.wmem_max", &k73), "4194304");
	CHECK_STR(dflt("net.core.wmem_max", &k618), "4194304");
	CHECK_STR(dflt("net.core.wmem_max", &k612), "212992");
	CHECK_STR(dflt("net.core.wmem_max", &arm612), "kernel default");
	CHECK_STR(dflt("net.ipv4.tcp_limit_output_bytes", &k73), "4194304");
	CHECK_STR(dflt("net.ipv4.tcp_limit_output_bytes", &k615), "1048576");
	CHECK_STR(dflt("net.ipv4.tcp_wmem", &k73), "4096 16384 4194304");
	small.mem_bytes = 256ULL << 20; /* tcp_wmem's max shrinks below ~512 MiB */
	CHECK_STR(dflt("net.ipv4.tcp_wmem", &small), "kernel default");
	CHECK_STR(dflt("net.ipv4.tcp_notsent_lowat", &k73), "4294967295");
	CHECK_STR(dflt("net.ipv4.tcp_ecn", &k73), "2");
	CHECK_STR(dflt("net.core.qdisc_max_burst", &k73), "1000");
	CHECK_STR(dflt("net.ipv4.udp_backpressure_interval", &k73), "100");
	CHECK_STR(dflt("net.core.default_qdisc", &k73), "kernel default");
	snprintf(small.default_qdisc, sizeof(small.default_qdisc), "fq_codel");
	CHECK_STR(dflt("net.core.default_qdisc", &small), "fq_codel");
	/* Every known default is a value of its own sysctl. */
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++) {
		char buf[QD_SYSCTL_TEXT], e[QD_SYSCTL_ERR];
		struct qd_sysctl_val v;
		const char *d = qd_sysctl_default(s, &small, buf, sizeof(buf));

		if (strcmp(d, "kernel default"))
			CHECK(!qd_sysctl_parse(s, &small, d, true, &v, e, sizeof(e)));
	}
}

/* Parse name's text with checks on kernel k: the error, and the message's quote. */
static void parse_case(const char *name, const struct qd_kernel *k, const char *text, bool check,
		       int want_err, const char *want, int line)
{
	char err[QD_SYSCTL_ERR] = "", out[QD_SYSCTL_TEXT] = "", expr[200];
	const struct qd_sysctl *s = S(name);
	struct qd_sysctl_val v;
	int e = qd_sysctl_parse(s, k, text, check, &v, err, sizeof(err));
	bool ok;

	if (!e)
		qd_sysctl_format(s, &v, out, sizeof(out));
	/* On success want is the canonical text; on failure a part of the message. */
	ok = e == want_err && (e ? strstr(err, want) != NULL : !strcmp(out, want));
	snprintf(expr, sizeof(expr), "parse %s \"%s\"%s", name, text, check ? " checked" : "");
	if (!test_record(ok, __FILE__, line, expr))
		fprintf(stderr, "     got %d \"%s\" / \"%s\"\n    want %d \"%s\"\n", e, out, err,
			want_err, want);
}

#define OK(name, k, text, canon)      parse_case(name, k, text, true, 0, canon, __LINE__)
#define OK_RAW(name, k, text, canon)  parse_case(name, k, text, false, 0, canon, __LINE__)
#define BAD(name, k, text, err, part) parse_case(name, k, text, true, err, part, __LINE__)

static void test_parse(void)
{
	OK("net.core.wmem_default", &k73, "212992", "212992");
	OK("net.core.wmem_max", &k73, "4608", "4608");
	BAD("net.core.wmem_max", &k73, "4607", -ERANGE, "\"4607\" is outside");
	OK_RAW("net.core.wmem_max", &k73, "4607", "4607"); /* restore takes what was there */
	OK("net.core.wmem_max", &k73, "2147483647", "2147483647");
	BAD("net.core.wmem_max", &k73, "2147483648", -ERANGE, "\"2147483648\"");
	BAD("net.core.wmem_max", &k73, "1e6", -EINVAL, "\"1e6\" is not a number");
	BAD("net.core.wmem_max", &k73, "0x1000", -EINVAL, "\"0x1000\"");
	BAD("net.core.wmem_max", &k73, "+5000", -EINVAL, "\"+5000\"");
	BAD("net.core.wmem_max", &k73, "", -EINVAL, "takes 1 value");
	BAD("net.core.wmem_max", &k73, "8192 8192", -EINVAL, "\"8192\": net.core.wmem_max takes 1");
	BAD("net.core.wmem_max", &k73, "99999999999999999999", -ERANGE, "\"99999999999999999999\"");
	OK("net.ipv4.tcp_limit_output_bytes", &k73, "0", "0");
	BAD("net.ipv4.tcp_limit_output_bytes", &k73, "-5", -ERANGE, "\"-5\"");
	OK_RAW("net.ipv4.tcp_limit_output_bytes", &k73, "-5", "-5");
	OK("net.ipv4.tcp_notsent_lowat", &k73, "4294967295", "4294967295");
	BAD("net.ipv4.tcp_notsent_lowat", &k73, "4294967296", -ERANGE, "0..4294967295");
	BAD("net.ipv4.tcp_notsent_lowat", &k73, "-1", -ERANGE, "\"-1\"");
	OK("net.ipv4.tcp_ecn", &k73, "5", "5");
	BAD("net.ipv4.tcp_ecn", &k73, "6", -ERANGE, "range 0..5");
	BAD("net.ipv4.tcp_ecn", &k618, "3", -ERANGE, "range 0..2");
	OK("net.ipv4.tcp_ecn", &k618, "2", "2");
	OK("net.core.qdisc_max_burst", &k73, "1", "1");
	BAD("net.core.qdisc_max_burst", &k73, "0", -ERANGE, "\"0\"");
	OK("net.ipv4.udp_backpressure_interval", &k73, "0", "0");

	/* Triples: the kernel prints tabs; set takes spaces; canonical is spaces. */
	OK("net.ipv4.tcp_wmem", &k73, "4096\t16384\t4194304\n", "4096 16384 4194304");
	OK("net.ipv4.tcp_wmem", &k73, " 1  1   1 ", "1 1 1");
	BAD("net.ipv4.tcp_wmem", &k73, "4096 16384", -EINVAL, "\"4096 16384\": net.ipv4.tcp_wmem");
	BAD("net.ipv4.tcp_wmem", &k73, "1 2 3 4", -EINVAL, "\"4\"");
	BAD("net.ipv4.tcp_wmem", &k73, "0 16384 4194304", -ERANGE, "\"0\" is outside");
	BAD("net.ipv4.tcp_wmem", &k73, "4096 x 4194304", -EINVAL, "\"x\" is not a number");
	BAD("net.ipv4.tcp_wmem", &k73, "4096 16384 1000", -EINVAL, "min <= initial <= max");
	OK_RAW("net.ipv4.tcp_wmem", &k73, "4096 16384 1000", "4096 16384 1000");

	/* Strings: one qdisc id of at most 15 characters. */
	OK("net.core.default_qdisc", &k73, "fq_codel\n", "fq_codel");
	OK("net.core.default_qdisc", &k73, "qdiscctl_fifo", "qdiscctl_fifo");
	BAD("net.core.default_qdisc", &k73, "0123456789abcdef", -ERANGE, "\"0123456789abcdef\"");
	BAD("net.core.default_qdisc", &k73, "fq codel", -EINVAL, "\"fq codel\" is not one word");
	BAD("net.core.default_qdisc", &k73, "fq/x", -EINVAL, "\"fq/x\" is not a qdisc id");
	BAD("net.core.default_qdisc", &k73, "", -EINVAL, "needs a qdisc name");
}

static void test_profile(void)
{
	const struct qd_profile_rule *r;
	struct qd_sysctl_val cur = {}, t;
	int n = 0;

	for (r = qd_profile_backpressure; r->name; r++) {
		const struct qd_sysctl *s = qd_sysctl_find(r->name);
		char text[32], err[QD_SYSCTL_ERR];
		struct qd_sysctl_val v;

		n++;
		CHECK(s != NULL);
		/* Each bound is a value set would accept, on old and new kernels. */
		snprintf(text, sizeof(text), "%lld", r->value);
		CHECK(s && !qd_sysctl_parse(s, &k618, text, true, &v, err, sizeof(err)));
	}
	CHECK_INT(n, 5);

	r = &qd_profile_backpressure[0];
	CHECK_STR(r->name, "net.core.wmem_default");
	cur.v[0] = 212992; /* the kernel's default is above the bound: lowered */
	CHECK(qd_profile_target(r, &cur, &t));
	CHECK_INT(t.v[0], QD_BP_WMEM_DEFAULT);
	cur.v[0] = QD_BP_WMEM_DEFAULT; /* meets it */
	CHECK(!qd_profile_target(r, &cur, &t));
	cur.v[0] = 65536; /* tighter still: never loosened */
	CHECK(!qd_profile_target(r, &cur, &t));
	CHECK_INT(t.v[0], 65536);

	r = &qd_profile_backpressure[1];
	CHECK_STR(r->name, "net.core.wmem_max");
	cur.v[0] = 4194304; /* 6.18+ */
	CHECK(qd_profile_target(r, &cur, &t) && t.v[0] == QD_BP_WMEM_MAX);
	cur.v[0] = 212992; /* 6.12 */
	CHECK(!qd_profile_target(r, &cur, &t));

	r = &qd_profile_backpressure[2];
	CHECK_STR(r->name, "net.ipv4.tcp_limit_output_bytes");
	cur.v[0] = 4194304;
	CHECK(qd_profile_target(r, &cur, &t) && t.v[0] == QD_BP_TCP_LIMIT_OUTPUT);
	cur.v[0] = 1048576;
	CHECK(!qd_profile_target(r, &cur, &t));

	r = &qd_profile_backpressure[3];
	CHECK_STR(r->name, "net.ipv4.tcp_notsent_lowat");
	cur.v[0] = 4294967295LL;
	CHECK(qd_profile_target(r, &cur, &t) && t.v[0] == QD_BP_TCP_NOTSENT_LOWAT);

	r = &qd_profile_backpressure[4];
	CHECK_STR(r->name, "net.ipv4.tcp_ecn");
	for (int ecn = 0; ecn <= 5; ecn++) {
		bool requests = ecn == 1 || ecn == 3 || ecn == 4;

		cur.v[0] = ecn;
		CHECK(qd_profile_target(r, &cur, &t) == !requests);
		CHECK_INT(t.v[0], requests ? ecn : 1);
	}
}

/* --- a fake /proc/sys ------------------------------------------------- */

/* Short enough that no path built from them is ever truncated. */
static char root[200], proc[220], state[220];
static struct qd_sysctl_env env;

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static const char *get(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	f = fopen(path, "r");
	if (!f)
		return "(absent)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

/* The 7.3 initial namespace's values, as the kernel prints them. */
static void fake_proc(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' && mkdir -p '%s/net/core' '%s/net/ipv4'", proc,
		 state, proc, proc);
	if (system(cmd)) {
		perror("fake_proc");
		exit(1);
	}
	put("net/core/wmem_default", "212992\n");
	put("net/core/wmem_max", "4194304\n");
	put("net/core/default_qdisc", "fq_codel\n");
	put("net/core/qdisc_max_burst", "1000\n");
	put("net/core/netdev_max_backlog", "1000\n");
	put("net/ipv4/tcp_limit_output_bytes", "4194304\n");
	put("net/ipv4/tcp_wmem", "4096\t16384\t4194304\n");
	put("net/ipv4/tcp_notsent_lowat", "4294967295\n");
	put("net/ipv4/tcp_ecn", "2\n");
}

static bool saved_exists(void)
{
	char path[PATH_MAX * 2];

	qd_sysctl_save_path(&env, path, sizeof(path));
	return access(path, F_OK) == 0;
}

static const char *saved_text(void)
{
	static char buf[4096];
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n;

	qd_sysctl_save_path(&env, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_read(void)
{
	char buf[QD_SYSCTL_TEXT];
	bool w = false;

	fake_proc();
	CHECK_INT(qd_sysctl_read(&env, S("net.ipv4.tcp_wmem"), buf, sizeof(buf), &w), 0);
	CHECK_STR(buf, "4096 16384 4194304");
	CHECK(w);
	CHECK_INT(qd_sysctl_read(&env, S("net.ipv4.udp_backpressure_interval"), buf, sizeof(buf),
				 NULL),
		  -ENOENT);
	CHECK_STR(qd_sysctl_absent_why(&env, S("net.ipv4.udp_backpressure_interval")),
		  "not available on this kernel");
	/* In a child namespace the host-wide ones are missing for another reason. */
	env.init_netns = false;
	CHECK_STR(qd_sysctl_absent_why(&env, S("net.core.default_qdisc")),
		  "not in this network namespace");
	CHECK_STR(qd_sysctl_absent_why(&env, S("net.ipv4.udp_backpressure_interval")),
		  "not available on this kernel");
	env.init_netns = true;
	/* The kernel's read-only marking, whoever asks (tests may run as root). */
	{
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s/net/core/wmem_max", proc);
		chmod(path, 0444);
		CHECK_INT(qd_sysctl_read(&env, S("net.core.wmem_max"), buf, sizeof(buf), &w), 0);
		CHECK(!w);
		chmod(path, 0644);
	}
	CHECK_INT(qd_sysctl_write(&env, S("net.ipv4.tcp_wmem"), "1 2 3"), 0);
	CHECK_STR(get("net/ipv4/tcp_wmem"), "1 2 3");
	CHECK_INT(qd_sysctl_write(&env, S("net.ipv4.udp_backpressure_interval"), "5"), -ENOENT);
	CHECK_STR(get("net/ipv4/udp_backpressure_interval"), "(absent)"); /* not made up */
}

static void test_save_file(void)
{
	struct qd_sysctl_saved sv = {}, back;
	char text[4096], err[QD_SYSCTL_ERR];
	struct qd_sysctl_env other = env;

	sv.e[0].s = S("net.ipv4.tcp_ecn");
	strcpy(sv.e[0].value, "2");
	sv.e[1].s = S("net.ipv4.tcp_wmem");
	strcpy(sv.e[1].value, "4096 16384 4194304");
	sv.e[2].s = S("net.core.default_qdisc");
	strcpy(sv.e[2].value, "fq_codel");
	sv.n = 3;
	CHECK_INT(qd_sysctl_saved_format(&env, &sv, text, sizeof(text)), 0);
	CHECK(strstr(text, "\nnetns 42\n") != NULL);
	CHECK(strstr(text, "\nnet.ipv4.tcp_wmem 4096 16384 4194304\n") != NULL);
	CHECK_INT(qd_sysctl_saved_parse(&env, text, &back, err, sizeof(err)), 0);
	CHECK_INT(back.n, 3);
	for (int i = 0; i < 3 && i < back.n; i++) {
		CHECK(back.e[i].s == sv.e[i].s);
		CHECK_STR(back.e[i].value, sv.e[i].value);
	}

	/* Through the state directory: stored atomically, loaded back. */
	fake_proc();
	CHECK_INT(mkdir(state, 0755), 0);
	CHECK_INT(qd_sysctl_saved_store(&env, &sv), 0);
	CHECK_INT(qd_sysctl_saved_load(&env, &back, err, sizeof(err)), 0);
	CHECK_INT(back.n, 3);
	CHECK_STR(back.e[1].value, "4096 16384 4194304");
	{
		char tmp[PATH_MAX * 2];

		qd_sysctl_save_path(&env, tmp, sizeof(tmp));
		strcat(tmp, ".tmp");
		CHECK(access(tmp, F_OK) != 0);
	}
	/* Another namespace has its own file; a copied one is refused. */
	strcpy(other.netns_id, "43");
	CHECK_INT(qd_sysctl_saved_load(&other, &back, err, sizeof(err)), -ENOENT);
	CHECK_INT(qd_sysctl_saved_parse(&other, text, &back, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "network namespace 42") != NULL);
	CHECK_INT(qd_sysctl_saved_remove(&env), 0);
	CHECK_INT(qd_sysctl_saved_load(&env, &back, err, sizeof(err)), -ENOENT);

	CHECK_INT(qd_sysctl_saved_parse(&env, "net.ipv4.tcp_ecn 2\n", &back, err, sizeof(err)),
		  -EINVAL); /* no netns line */
	CHECK_INT(qd_sysctl_saved_parse(&env, "netns 42\nnet.core.rmem_max 5\n", &back, err,
					sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "\"net.core.rmem_max\"") != NULL);
	CHECK_INT(qd_sysctl_saved_parse(&env, "netns 42\nnet.ipv4.tcp_ecn 2\nnet.ipv4.tcp_ecn 1\n",
					&back, err, sizeof(err)),
		  -EINVAL);
	CHECK_INT(qd_sysctl_saved_parse(&env, "netns 42\nnet.ipv4.tcp_wmem 1 2\n", &back, err,
					sizeof(err)),
		  -EINVAL);
	CHECK_INT(qd_sysctl_saved_parse(&env, "netns 42\nnet.ipv4.tcp_ecn\n", &back, err,
					sizeof(err)),
		  -EINVAL);
	/* Comments and blank lines; values as they were, unchecked (a 4607 stays 4607). */
	CHECK_INT(qd_sysctl_saved_parse(&env, "# x\n\nnetns 42\nnet.core.wmem_max 4607", &back, err,
					sizeof(err)),
		  0);
	CHECK(back.n == 1 && !strcmp(back.e[0].value, "4607"));
}

/* Write hook: fails the writes named in fail_name/fail_text, writes the rest. */
static const char *fail_name, *fail_text, *fail_name2, *fail_text2;

static int failing_write(const struct qd_sysctl_env *e, const struct qd_sysctl *s, const char *t)
{
	struct qd_sysctl_env plain = *e;

	if ((fail_name && !strcmp(s->name, fail_name) && (!fail_text || !strcmp(t, fail_text))) ||
	    (fail_name2 && !strcmp(s->name, fail_name2) && (!fail_text2 || !strcmp(t, fail_text2))))
		return -EINVAL;
	plain.write = NULL;
	return qd_sysctl_write(&plain, s, t);
}

static int apply_profile(char *err, size_t len, struct qd_sysctl_plan *plan)
{
	int e = qd_sysctl_plan(&env, qd_profile_backpressure, plan, err, len);

	return e ? e : qd_sysctl_apply(&env, plan, err, len);
}

static void check_originals(int line)
{
	bool ok = !strcmp(get("net/core/wmem_default"), "212992") &&
		  !strcmp(get("net/core/wmem_max"), "4194304") &&
		  !strcmp(get("net/ipv4/tcp_limit_output_bytes"), "4194304") &&
		  !strcmp(get("net/ipv4/tcp_notsent_lowat"), "4294967295") &&
		  !strcmp(get("net/ipv4/tcp_ecn"), "2") &&
		  !strcmp(get("net/ipv4/tcp_wmem"), "4096\t16384\t4194304");

	test_record(ok, __FILE__, line, "every value as it was");
}

static void test_apply_restore(void)
{
	char err[QD_SYSCTL_ERR] = "", path[PATH_MAX * 2];
	struct qd_sysctl_plan plan, done;
	int lock;

	fake_proc();
	lock = qd_sysctl_lock(&env); /* makes the state directory */
	CHECK(lock >= 0);
	CHECK_INT(qd_sysctl_plan(&env, qd_profile_backpressure, &plan, err, sizeof(err)), 0);
	CHECK_INT(plan.n, 5);
	for (int i = 0; i < plan.n; i++)
		CHECK(plan.step[i].action == QD_STEP_SET);
	CHECK_STR(plan.step[4].old, "2");
	CHECK_STR(plan.step[4].new, "1");
	CHECK(!saved_exists()); /* planning writes nothing */
	CHECK_INT(qd_sysctl_apply(&env, &plan, err, sizeof(err)), 0);
	CHECK_STR(get("net/core/wmem_default"), "131072");
	CHECK_STR(get("net/core/wmem_max"), "1048576");
	CHECK_STR(get("net/ipv4/tcp_limit_output_bytes"), "1048576");
	CHECK_STR(get("net/ipv4/tcp_notsent_lowat"), "131072");
	CHECK_STR(get("net/ipv4/tcp_ecn"), "1");
	CHECK(strstr(saved_text(), "\nnet.core.wmem_max 4194304\n") != NULL);
	CHECK(strstr(saved_text(), "\nnet.ipv4.tcp_ecn 2\n") != NULL);

	/* Applying again changes nothing and keeps the originals. */
	CHECK_INT(apply_profile(err, sizeof(err), &plan), 0);
	for (int i = 0; i < plan.n; i++)
		CHECK(plan.step[i].action == QD_STEP_KEEP);
	CHECK(strstr(saved_text(), "\nnet.ipv4.tcp_ecn 2\n") != NULL);
	/* Someone loosened two values meanwhile: applied again, originals still kept. */
	put("net/ipv4/tcp_ecn", "0\n");
	put("net/ipv4/tcp_limit_output_bytes", "3000000\n");
	CHECK_INT(apply_profile(err, sizeof(err), &plan), 0);
	CHECK_STR(get("net/ipv4/tcp_ecn"), "1");
	CHECK(strstr(saved_text(), "\nnet.ipv4.tcp_ecn 2\n") != NULL);
	CHECK(strstr(saved_text(), "\nnet.ipv4.tcp_limit_output_bytes 4194304\n") != NULL);
	CHECK(strstr(saved_text(), "3000000") == NULL);

	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), 0);
	CHECK_INT(done.n, 5);
	check_originals(__LINE__);
	CHECK(!saved_exists());
	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "nothing saved") != NULL);
	check_originals(__LINE__);

	/* A child namespace on 7.3: wmem_* read-only, the host-wide ones absent. */
	env.init_netns = false;
	snprintf(path, sizeof(path), "%s/net/core/wmem_default", proc);
	chmod(path, 0444);
	snprintf(path, sizeof(path), "%s/net/core/wmem_max", proc);
	unlink(path);
	CHECK_INT(apply_profile(err, sizeof(err), &plan), 0);
	CHECK(plan.step[0].action == QD_STEP_READONLY);
	CHECK(plan.step[1].action == QD_STEP_ABSENT);
	CHECK(plan.step[2].action == QD_STEP_SET);
	CHECK_STR(get("net/core/wmem_default"), "212992");
	CHECK(strstr(saved_text(), "wmem") == NULL);
	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), 0);
	CHECK_STR(get("net/ipv4/tcp_limit_output_bytes"), "4194304");
	CHECK_STR(get("net/ipv4/tcp_ecn"), "2");
	env.init_netns = true;
	close(lock);
}

static void test_rollback(void)
{
	char err[QD_SYSCTL_ERR] = "", before[4096];
	struct qd_sysctl_plan plan, done;
	int lock;

	/* The last write fails: everything before it is put back, nothing is saved. */
	fake_proc();
	lock = qd_sysctl_lock(&env);
	CHECK(lock >= 0);
	env.write = failing_write;
	fail_name = "net.ipv4.tcp_ecn";
	fail_text = NULL;
	CHECK_INT(apply_profile(err, sizeof(err), &plan), -EINVAL);
	CHECK(strstr(err, "net.ipv4.tcp_ecn=1") && strstr(err, "nothing was changed"));
	check_originals(__LINE__);
	CHECK(!saved_exists());

	/* With an earlier save file, that file is left exactly as it was. */
	fail_name = NULL;
	CHECK_INT(apply_profile(err, sizeof(err), &plan), 0);
	snprintf(before, sizeof(before), "%s", saved_text());
	put("net/ipv4/tcp_ecn", "0\n");
	put("net/ipv4/tcp_notsent_lowat", "999999\n");
	fail_name = "net.ipv4.tcp_ecn";
	CHECK_INT(apply_profile(err, sizeof(err), &plan), -EINVAL);
	CHECK_STR(get("net/ipv4/tcp_notsent_lowat"), "999999");
	CHECK_STR(get("net/ipv4/tcp_ecn"), "0");
	CHECK_STR(saved_text(), before);

	/* A restore that fails midway puts back what it restored and keeps the file. */
	put("net/ipv4/tcp_ecn", "1\n");
	put("net/ipv4/tcp_notsent_lowat", "131072\n");
	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "nothing was restored") != NULL);
	CHECK_STR(get("net/core/wmem_max"), "1048576");
	CHECK_STR(get("net/ipv4/tcp_ecn"), "1");
	CHECK_STR(saved_text(), before);
	fail_name = NULL;
	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), 0);
	check_originals(__LINE__);

	/* When putting back fails too, say so and keep the save file for later. */
	fail_name = "net.ipv4.tcp_ecn";
	fail_name2 = "net.ipv4.tcp_limit_output_bytes";
	fail_text2 = "4194304";
	CHECK_INT(apply_profile(err, sizeof(err), &plan), -EINVAL);
	CHECK(strstr(err, "putting back net.ipv4.tcp_limit_output_bytes=4194304 failed too"));
	CHECK(strstr(err, "the save file is kept") != NULL);
	CHECK(strstr(saved_text(), "\nnet.ipv4.tcp_limit_output_bytes 4194304\n") != NULL);
	CHECK_STR(get("net/core/wmem_max"), "4194304"); /* the others were put back */
	fail_name = fail_name2 = fail_text2 = NULL;
	CHECK_INT(qd_sysctl_restore(&env, &done, err, sizeof(err)), 0);
	check_originals(__LINE__);
	env.write = NULL;
	close(lock);
}

static void test_env_init(void)
{
	struct qd_sysctl_env real;

	/* Reads only: which namespace and kernel this is. */
	CHECK_INT(qd_sysctl_env_init(&real), 0);
	CHECK_STR(real.proc_root, "/proc/sys");
	CHECK_STR(real.state_dir, "/run/qdiscctl");
	CHECK(real.netns_id[0] != '\0');
	CHECK(real.kernel.major > 0);
	CHECK(real.write == NULL);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/qdiscctl-sysctl-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(state, sizeof(state), "%s/state", root);
	env.proc_root = proc;
	env.state_dir = state;
	strcpy(env.netns_id, "42");
	env.init_netns = true;
	env.kernel = k73;

	test_lookup();
	test_kernel();
	test_defaults();
	test_parse();
	test_profile();
	test_read();
	test_save_file();
	test_apply_restore();
	test_rollback();
	test_env_init();

	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return test_summary("test_sysctl");
}
