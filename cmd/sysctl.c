// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl: the sysctls that shape backpressure, for this network namespace
 * (or -n's): show them, set one, apply the "backpressure" profile and
 * restore what it changed. The table, the profile and the save file are
 * sysctl/'s; this file is the command line and the printing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/default_qdisc.h"
#include "core/instance.h"
#include "core/registry.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "sysctl/proc.h"
#include "sysctl/profile.h"
#include "sysctl/sysctl.h"

#define STR_(x) #x
#define STR(x)	STR_(x)

/* A value in JSON with its type: a number, an array of three, a string. */
static void json_value(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *key,
		       const char *text)
{
	struct qd_sysctl_val v;

	if (!text) {
		print_null(PRINT_JSON, key, NULL, NULL);
		return;
	}
	if (qd_sysctl_parse(s, &env->kernel, text, false, &v, NULL, 0)) {
		print_string(PRINT_JSON, key, NULL, text);
		return;
	}
	switch (s->type) {
	case QD_SYSCTL_STRING:
		print_string(PRINT_JSON, key, NULL, v.s);
		break;
	case QD_SYSCTL_TRIPLE:
		open_json_array(PRINT_JSON, key);
		for (int i = 0; i < 3; i++)
			print_int(PRINT_JSON, NULL, NULL, v.v[i]);
		close_json_array(PRINT_JSON, NULL);
		break;
	case QD_SYSCTL_UINT:
		print_uint(PRINT_JSON, key, NULL, v.v[0]);
		break;
	default:
		print_int(PRINT_JSON, key, NULL, v.v[0]);
		break;
	}
}

struct row {
	const struct qd_sysctl *s;
	char value[QD_SYSCTL_TEXT + 32]; /* text column: value, or why there is none */
	char raw[QD_SYSCTL_TEXT];
	char dbuf[QD_SYSCTL_TEXT];
	const char *dflt; /* text column */
	bool dflt_known;  /* else JSON says null */
	const char *note; /* why it is absent or read-only; NULL if neither */
	bool available, writable;
};

static int show(const struct qd_sysctl_env *env, int argc, char **argv)
{
	struct row rows[16];
	int n = 0, wn = 4, wv = 5, wd = 7;

	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++) {
		bool wanted = argc == 0;

		for (int i = 0; i < argc; i++)
			wanted |= !strcmp(argv[i], s->name);
		if (wanted && n < (int)ARRAY_SIZE(rows))
			rows[n++].s = s;
	}
	for (int i = 0; i < argc; i++) {
		if (!qd_sysctl_find(argv[i])) {
			qd_err("sysctl show: \"%s\" is not one of the sysctls qdiscctl manages",
			       qd_tok(argv[i]));
			return QD_EXIT_USAGE;
		}
	}

	for (int i = 0; i < n; i++) {
		struct row *r = &rows[i];
		int e;

		e = qd_sysctl_read(env, r->s, r->raw, sizeof(r->raw), &r->writable);
		r->available = !e;
		r->note = NULL;
		if (e == -ENOENT) {
			r->note = qd_sysctl_absent_why(env, r->s);
			r->writable = false;
		} else if (e) {
			r->note = strerror(-e);
			r->writable = false;
		} else if (!r->writable) {
			r->note = "read-only in this network namespace";
		}
		if (!r->available)
			snprintf(r->value, sizeof(r->value), "%s", r->note);
		else if (!r->writable)
			snprintf(r->value, sizeof(r->value), "%s (read-only here)", r->raw);
		else
			snprintf(r->value, sizeof(r->value), "%s", r->raw);
		r->dflt_known = r->s->dflt && r->s->dflt(&env->kernel, r->dbuf, sizeof(r->dbuf));
		r->dflt = qd_sysctl_default(r->s, &env->kernel, r->dbuf, sizeof(r->dbuf));
		wn = (int)strlen(r->s->name) > wn ? (int)strlen(r->s->name) : wn;
		wv = (int)strlen(r->value) > wv ? (int)strlen(r->value) : wv;
		wd = (int)strlen(r->dflt) > wd ? (int)strlen(r->dflt) : wd;
	}

	print_text("%-*s  %-*s  %-*s  %s\n", wn, "NAME", wv, "VALUE", wd, "DEFAULT", "MEANING");
	open_json_array(PRINT_JSON, NULL);
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, r->s->name);
		print_text("%-*s  %-*s  ", wn, r->s->name, wv, r->value);
		json_value(env, r->s, "value", r->available ? r->raw : NULL);
		print_text("%-*s  ", wd, r->dflt);
		json_value(env, r->s, "default", r->dflt_known ? r->dflt : NULL);
		print_bool(PRINT_JSON, "available", NULL, r->available);
		print_bool(PRINT_JSON, "writable", NULL, r->writable);
		if (r->note)
			print_string(PRINT_JSON, "note", NULL, r->note);
		print_string(PRINT_ANY, "meaning", "%s", r->s->meaning);
		print_nl();
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	return QD_EXIT_OK;
}

/*
 * net.core.default_qdisc has one owner, `default`'s: a kind of qdiscctl's
 * (qdiscctl_fifo, any version) is set as `qdiscctl default fifo` sets it,
 * with its default options; any other qdisc is written, and what `default`
 * saved goes, since restoring it would undo this set.
 */
static int set_default_qdisc(const char *value)
{
	const struct qd_kind *k = qd_reg_kind(value);
	int e;

	if (geteuid() != 0) {
		qd_err("sysctl set: cannot write %s: %s (needs root)", QD_DEFAULT_QDISC,
		       strerror(EACCES));
		return QD_EXIT_FAIL;
	}
	if (k) {
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];

		if ((e = qd_check_kernel(k)))
			return e;
		qd_kind_defaults(k, cfg);
		return qd_default_set_kind(k, cfg) ? QD_EXIT_FAIL : QD_EXIT_OK;
	}
	e = qd_default_set_other(value);
	if (e == -ENOLCK)
		return QD_EXIT_FAIL;
	if (e) {
		/* Passed qdiscctl's checks, refused by the kernel (no such qdisc). */
		qd_err("sysctl set: the kernel refused \"%s\" for %s: %s", value, QD_DEFAULT_QDISC,
		       strerror(-e));
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

static int set(const struct qd_sysctl_env *env, int argc, char **argv)
{
	char text[QD_SYSCTL_TEXT * 2] = "", canon[QD_SYSCTL_TEXT], cur[QD_SYSCTL_TEXT];
	char err[QD_SYSCTL_ERR];
	const struct qd_sysctl *s;
	struct qd_sysctl_val v;
	bool writable;
	size_t n = 0;
	int e;

	if (argc < 2) {
		qd_err("sysctl set: needs NAME and VALUE");
		return QD_EXIT_USAGE;
	}
	s = qd_sysctl_find(argv[0]);
	if (!s) {
		qd_err("sysctl set: \"%s\" is not one of the sysctls qdiscctl manages "
		       "(see 'qdiscctl sysctl show')",
		       qd_tok(argv[0]));
		return QD_EXIT_USAGE;
	}
	/* A triple may come as three words or as one quoted word. */
	for (int i = 1; i < argc && n < sizeof(text); i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%s", i > 1 ? " " : "", argv[i]);
	if (n >= sizeof(text)) {
		qd_err("sysctl set: the value of %s is too long", s->name);
		return QD_EXIT_USAGE;
	}
	if (qd_sysctl_parse(s, &env->kernel, text, true, &v, err, sizeof(err))) {
		qd_err("sysctl set: %s", err);
		return QD_EXIT_USAGE;
	}
	qd_sysctl_format(s, &v, canon, sizeof(canon));

	e = qd_sysctl_read(env, s, cur, sizeof(cur), &writable);
	if (e) {
		qd_err("sysctl set: %s: %s", s->name,
		       e == -ENOENT ? qd_sysctl_absent_why(env, s) : strerror(-e));
		return QD_EXIT_FAIL;
	}
	if (!writable) {
		qd_err("sysctl set: %s is read-only in this network namespace; the initial "
		       "namespace's value applies here",
		       s->name);
		return QD_EXIT_FAIL;
	}
	if (!strcmp(s->name, QD_DEFAULT_QDISC))
		return set_default_qdisc(canon);
	e = qd_sysctl_write(env, s, canon);
	if (e == -EACCES || e == -EPERM) {
		qd_err("sysctl set: cannot write %s: %s (needs root)", s->name, strerror(-e));
		return QD_EXIT_FAIL;
	}
	if (e) {
		/* Passed qdiscctl's checks, refused by the kernel (e.g. no such qdisc). */
		qd_err("sysctl set: the kernel refused \"%s\" for %s: %s", qd_tok(canon), s->name,
		       strerror(-e));
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

static const char *action_name(enum qd_step_action a)
{
	switch (a) {
	case QD_STEP_SET:
		return "set";
	case QD_STEP_KEEP:
		return "kept";
	case QD_STEP_ABSENT:
		return "absent";
	case QD_STEP_READONLY:
		return "read-only";
	}
	return "?";
}

/* One line a step: "NAME OLD -> NEW", or "NAME OLD (kept: why)". */
static void print_steps(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan,
			const char *keep_why)
{
	open_json_array(PRINT_JSON, "steps");
	for (int i = 0; i < plan->n; i++) {
		const struct qd_sysctl_step *st = &plan->step[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "name", "%s ", st->s->name);
		print_string(PRINT_JSON, "action", NULL, action_name(st->action));
		json_value(env, st->s, "old", st->action == QD_STEP_ABSENT ? NULL : st->old);
		json_value(env, st->s, "new", st->action == QD_STEP_SET ? st->new : NULL);
		switch (st->action) {
		case QD_STEP_SET:
			print_text("%s -> %s", st->old, st->new);
			break;
		case QD_STEP_KEEP:
			print_text("%s (kept: %s)", st->old, keep_why);
			break;
		case QD_STEP_ABSENT:
			print_text("(skipped: %s)", qd_sysctl_absent_why(env, st->s));
			break;
		case QD_STEP_READONLY:
			print_text(
				"%s (skipped: read-only in this network namespace; set it in the "
				"initial one)",
				st->old);
			break;
		}
		print_nl();
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static int apply(const struct qd_sysctl_env *env, int argc, char **argv)
{
	char err[QD_SYSCTL_ERR], path[PATH_MAX];
	struct qd_sysctl_plan plan;
	int e, changes = 0;

	if (argc < 1) {
		qd_err("sysctl apply: needs a profile: backpressure");
		return QD_EXIT_USAGE;
	}
	if (strcmp(argv[0], "backpressure")) {
		qd_err("sysctl apply: no profile \"%s\" (there is: backpressure)", qd_tok(argv[0]));
		return QD_EXIT_USAGE;
	}
	if (argc > 1) {
		qd_err("sysctl apply: unexpected \"%s\"", qd_tok(argv[1]));
		return QD_EXIT_USAGE;
	}
	e = qd_sysctl_apply_profile(env, qd_profile_backpressure, &plan, err, sizeof(err));
	if (e) {
		/* A failed lock has said why. */
		if (err[0])
			qd_err("sysctl apply: %s", err);
		return QD_EXIT_FAIL;
	}

	for (int i = 0; i < plan.n; i++)
		changes += plan.step[i].action == QD_STEP_SET;
	qd_sysctl_save_path(env, path, sizeof(path));
	open_json_object(NULL);
	print_string(PRINT_JSON, "profile", NULL, "backpressure");
	print_steps(env, &plan, "meets the profile");
	if (changes || access(path, F_OK) == 0) {
		print_string(PRINT_ANY, "saved", "previous values saved in %s", path);
		print_text(" ('qdiscctl sysctl restore' puts them back)\n");
	} else {
		print_null(PRINT_JSON, "saved", NULL, NULL);
		print_text("nothing to change\n");
	}
	close_json_object();
	return QD_EXIT_OK;
}

static int restore(const struct qd_sysctl_env *env, int argc, char **argv)
{
	char err[QD_SYSCTL_ERR], path[PATH_MAX];
	struct qd_sysctl_plan done;
	int lock, e;

	if (argc > 0) {
		qd_err("sysctl restore: unexpected \"%s\"", qd_tok(argv[0]));
		return QD_EXIT_USAGE;
	}
	/* It says why when it fails. */
	lock = qd_sysctl_lock(env);
	if (lock < 0)
		return QD_EXIT_FAIL;
	e = qd_sysctl_restore(env, &done, err, sizeof(err));
	close(lock);
	if (e) {
		qd_err("sysctl restore: %s", err);
		return QD_EXIT_FAIL;
	}
	qd_sysctl_save_path(env, path, sizeof(path));
	open_json_object(NULL);
	print_steps(env, &done, "already the saved value");
	print_string(PRINT_ANY, "removed", "removed %s\n", path);
	close_json_object();
	return QD_EXIT_OK;
}

static int run_sysctl(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(const struct qd_sysctl_env *env, int argc, char **argv);
	} subs[] = { { "show", show }, { "set", set }, { "apply", apply }, { "restore", restore } };
	const char *word = argc > 1 ? argv[1] : "show";
	struct qd_sysctl_env env;
	int found = -1;

	for (int i = 0; i < (int)ARRAY_SIZE(subs); i++) {
		if (!qd_matches(word, subs[i].name))
			continue;
		if (!strcmp(word, subs[i].name)) {
			found = i;
			break;
		}
		if (found >= 0) {
			qd_err("sysctl: \"%s\" is ambiguous (%s, %s)", qd_tok(word),
			       subs[found].name, subs[i].name);
			return QD_EXIT_USAGE;
		}
		found = i;
	}
	if (found < 0) {
		qd_err("sysctl: unknown \"%s\" (show, set, apply, restore)", qd_tok(word));
		return QD_EXIT_USAGE;
	}
	qd_sysctl_env_init(&env);
	return subs[found].run(&env, argc > 2 ? argc - 2 : 0, argv + (argc > 2 ? 2 : argc));
}

/* clang-format off: a table whose numbers are the profile's macros */
static const char sysctl_help[] =
	"show lists each one with its value, the kernel's default and what it does;\n"
	"\"not available on this kernel\" or \"not in this network namespace\" where the\n"
	"kernel has none here. set takes exactly the names show lists; a triple\n"
	"(tcp_wmem) as three words or one. Exit status: 255 for a bad name or value\n"
	"(nothing is written), 1 when it cannot be written here, 2 when the kernel\n"
	"refuses a value qdiscctl accepted. net.core.default_qdisc is set the way\n"
	"'qdiscctl default' sets it: one of qdiscctl's kinds is registered first, and\n"
	"any other qdisc ends what 'qdiscctl default' saved.\n"
	"\n"
	"apply backpressure tightens, and never loosens, what holds a local sender's\n"
	"packets in a qdisc that does not drop them (the sender blocks on its send\n"
	"buffer instead). Sizing: a blocked UDP socket queues about sndbuf / 2.3 KB\n"
	"datagrams, and qdiscctl's fifo holds 1000 by default.\n"
	"  net.core.wmem_default            <= " STR(
		QD_BP_WMEM_DEFAULT) "   57 datagrams a sender: 16 senders fit\n"
				    "  net.core.wmem_max                <= " STR(
					    QD_BP_WMEM_MAX) "  SO_SNDBUF doubles it: 910 "
							    "datagrams\n"
							    "  net.ipv4.tcp_limit_output_bytes  "
							    "<= " STR(
								    QD_BP_TCP_LIMIT_OUTPUT) "  TSQ "
											    "a TCP "
											    "socket"
											    ", as "
											    "before"
											    " 6."
											    "16\n"
											    "  "
											    "net."
											    "ipv4."
											    "tcp_"
											    "notsen"
											    "t_"
											    "lowat "
											    "      "
											    "<="
											    " " STR(QD_BP_TCP_NOTSENT_LOWAT) "   unsent data before a writer blocks\n"
															     "  net.ipv4.tcp_ecn                 " STR(
																     QD_BP_TCP_ECN) " (3, 4 kept)  request ECN: CE marks, not drops\n"
																		    "tcp_wmem, default_qdisc and qdisc_max_burst are left alone. A value that\n"
																		    "already meets its bound is kept; one that only the initial namespace may set\n"
																		    "(wmem_* inside a namespace) is skipped, and said so. Before writing, apply\n"
																		    "saves the values it changes in /run/qdiscctl/sysctl-COOKIE.saved (COOKIE:\n"
																		    "the network namespace's cookie); a second apply keeps the first one's\n"
																		    "originals. If a write fails, what was written is put back.\n"
																		    "restore writes the saved values back and removes the file; with -n NETNS it\n"
																		    "finds that namespace's file.";
/* clang-format on */

static const struct qd_cmd sysctl_cmd = {
	.name = "sysctl",
	.args = "[show [NAME...]] | set NAME VALUE | apply backpressure | restore",
	.summary = "show and set the sysctls that shape backpressure, in this network namespace",
	.help = sysctl_help,
	.order = 55,
	.run = run_sysctl,
};
QD_CMD_REGISTER(sysctl_cmd);
