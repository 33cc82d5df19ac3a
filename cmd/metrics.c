// SPDX-License-Identifier: GPL-2.0
/*
 * metrics: every qdisc (root or child, qdiscctl's or not) of the asked
 * namespaces in Prometheus' text exposition format, version 0.0.4. Labels
 * netns, dev, kind, handle and parent; the basic counters as
 * qdiscctl_qdisc_*_total; the kinds' own counters and gauges as the kinds'
 * descriptors list them (qdiscctl_KIND_NAME, in base units: seconds,
 * bytes); the registrations' capacities and map memory. All samples of a
 * metric come together, as the format demands, so everything is read first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/metrics.h"
#include "core/snapshot.h"
#include "lib/cgroup.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"
#include "netlink/netns.h"

struct ns_snap {
	const char *label;
	struct qd_snap snap;
};

int metrics_args(int argc, char **argv, struct metrics_scope *sc, const char **textfile)
{
	memset(sc, 0, sizeof(*sc));
	if (qd_opts.json) {
		qd_err("%s: the output is Prometheus' text format, not JSON (no -j)", argv[0]);
		return -1;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all-netns")) {
			sc->all = true;
		} else if (!strcmp(argv[i], "netns") ||
			   (textfile && !strcmp(argv[i], "--textfile"))) {
			if (!qd_need_arg(argc, argv, i))
				return -1;
			if (argv[i][0] == '-') {
				*textfile = argv[++i];
				continue;
			}
			if (!sc->names)
				sc->names = argv + i + 1;
			/* Gathered at the front of argv's tail, which outlives sc; never ahead of
			 * i. */
			sc->names[sc->nnames++] = argv[++i];
		} else {
			qd_err("%s: unexpected \"%s\"", argv[0], qd_tok(argv[i]));
			return -1;
		}
	}
	return 0;
}

/* A label value as the format escapes it: \\, \" and \n; bytes that are not UTF-8 as U+FFFD. */
static void put_value(FILE *f, const char *s)
{
	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fputs("\xef\xbf\xbd", f);
			s++;
		} else if (*s == '\\' || *s == '"') {
			fprintf(f, "\\%c", *s++);
		} else if (*s == '\n') {
			fputs("\\n", f);
			s++;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
}

static void put_label(FILE *f, const char *name, const char *value)
{
	fprintf(f, ",%s=\"", name);
	put_value(f, value);
	fputc('"', f);
}

/* "NAME{netns=...,dev=...,kind=...,handle=...,parent=..." without the closing brace. */
static void put_qdisc(FILE *f, const char *metric, const char *ns, const struct qd_snap_qdisc *q)
{
	char b[UNITS_BUF];

	fprintf(f, "%s{netns=\"", metric);
	put_value(f, ns);
	fputc('"', f);
	put_label(f, "dev", q->dev);
	put_label(f, "kind", q->qi.kind);
	put_label(f, "handle", sprint_handle(q->qi.handle, b, sizeof(b)));
	put_label(f, "parent", sprint_classid(q->qi.parent, b, sizeof(b)));
}

static void put_head(FILE *f, const char *metric, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric, type);
}

/* Nanoseconds as seconds, exactly. */
static void put_ns(FILE *f, uint64_t ns)
{
	fprintf(f, " %llu.%09llu\n", (unsigned long long)(ns / 1000000000),
		(unsigned long long)(ns % 1000000000));
}

static const struct basic {
	const char *name, *type, *help;
	size_t off;
	unsigned int width;
} basics[] = {
#define B(n, f, t, h)                                                                          \
	{                                                                                      \
		n, t, h, offsetof(struct qdisc_stats, f), sizeof(((struct qdisc_stats *)0)->f) \
	}
	B("bytes_total", bytes, "counter", "Bytes the qdisc sent (as tc -s counts them)"),
	B("packets_total", packets, "counter",
	  "Packets the qdisc sent (GSO segments, as tc counts them)"),
	B("drops_total", drops, "counter", "Packets the qdisc dropped"),
	B("overlimits_total", overlimits, "counter", "Overlimit events of the qdisc"),
	B("requeues_total", requeues, "counter", "Packets the driver handed back to the qdisc"),
	B("backlog_bytes", backlog, "gauge", "Bytes queued in the qdisc"),
	B("qlen", qlen, "gauge", "Packets queued in the qdisc"),
#undef B
};

static void put_basics(FILE *f, const struct ns_snap *ns, int nns)
{
	char metric[64];

	for (size_t b = 0; b < ARRAY_SIZE(basics); b++) {
		snprintf(metric, sizeof(metric), "qdiscctl_qdisc_%s", basics[b].name);
		put_head(f, metric, basics[b].type, basics[b].help);
		for (int n = 0; n < nns; n++)
			for (int i = 0; i < ns[n].snap.n; i++) {
				const struct qd_snap_qdisc *q = &ns[n].snap.q[i];
				uint64_t v = 0;

				if (!q->qi.has_stats)
					continue;
				memcpy(&v, (const char *)&q->qi.stats + basics[b].off,
				       basics[b].width);
				put_qdisc(f, metric, ns[n].label, q);
				fprintf(f, "} %llu\n", (unsigned long long)v);
			}
	}
}

/* qdiscctl_KIND[_RECORD]_NAME, with its unit and _total for a counter. */
static void stat_metric(const struct qd_kind *k, const char *record, const struct qd_stat *s,
			char *buf, size_t len)
{
	static const char *const unit[] = {
		[QD_STAT_TIME] = "_seconds",
		[QD_STAT_DEADLINE] = "_seconds",
		[QD_STAT_RATE] = "_bytes_per_second",
		[QD_STAT_SIZE] = "_bytes",
	};

	snprintf(buf, len, "qdiscctl_%s_%s%s%s%s%s", k->name, record ? record : "",
		 record ? "_" : "", qd_stat_metric(s), unit[s->type] ? unit[s->type] : "",
		 qd_stat_is_counter(s) ? "_total" : "");
}

/* The label that tells a ROWS or TABLE sample's record apart. */
static void put_record(FILE *f, const struct qd_kind *k, const struct qd_sample *sm)
{
	char path[4096], num[24];

	if (sm->group == QD_SAMPLE_ROWS) {
		put_label(f, k->rows->opt, qd_cgroup_path(sm->key, path, sizeof(path)) ? path : "");
		snprintf(num, sizeof(num), "%llu", (unsigned long long)sm->key);
		put_label(f, "cgroup_id", num);
	} else if (sm->group == QD_SAMPLE_TABLE) {
		for (const struct qd_stat *s = k->table->stats; s->name; s++)
			if (s->flags & QD_STAT_LABEL) {
				snprintf(num, sizeof(num), "%llu", (unsigned long long)sm->key);
				put_label(f, s->name, num);
			}
	}
}

static void put_stat(FILE *f, const struct qd_kind *k, const char *record, const struct qd_stat *s,
		     const struct ns_snap *ns, int nns)
{
	char metric[128], help[160];

	stat_metric(k, record, s, metric, sizeof(metric));
	snprintf(help, sizeof(help), "%s's \"%s\"%s%s, as show -s reads it%s", k->name, s->name,
		 record ? " of each " : "", record ? record : "",
		 s->type == QD_STAT_TIME || s->type == QD_STAT_DEADLINE ? " (in seconds)" : "");
	put_head(f, metric, qd_stat_is_counter(s) ? "counter" : "gauge", help);
	for (int n = 0; n < nns; n++)
		for (int i = 0; i < ns[n].snap.n; i++) {
			const struct qd_snap_qdisc *q = &ns[n].snap.q[i];

			for (size_t j = 0; q->kind == k && j < q->nsamples; j++) {
				const struct qd_sample *sm = &q->samples[j];

				if (sm->stat != s)
					continue;
				put_qdisc(f, metric, ns[n].label, q);
				put_record(f, k, sm);
				fputc('}', f);
				if (s->type == QD_STAT_TIME || s->type == QD_STAT_DEADLINE)
					put_ns(f, sm->value);
				else
					fprintf(f, " %llu\n", (unsigned long long)sm->value);
			}
		}
}

static void put_kinds(FILE *f, const struct ns_snap *ns, int nns)
{
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		for (const struct qd_stat *s = (*k)->stats; s && s->name; s++)
			put_stat(f, *k, NULL, s, ns, nns);
		for (const struct qd_stat *s = (*k)->rows ? (*k)->rows->stats : NULL; s && s->name;
		     s++)
			put_stat(f, *k, (*k)->rows->opt, s, ns, nns);
		for (const struct qd_stat *s = (*k)->table ? (*k)->table->stats : NULL;
		     s && s->name; s++) {
			const struct qd_stat *l = (*k)->table->stats;

			while (l->name && !(l->flags & QD_STAT_LABEL))
				l++;
			if (!(s->flags & QD_STAT_LABEL))
				put_stat(f, *k, l->name ? l->name : (*k)->table->name, s, ns, nns);
		}
	}
}

static void put_regs(FILE *f, const struct qd_snap_reg *regs, int n)
{
	static const char *const metric[] = {
		"qdiscctl_registration_capacity",
		"qdiscctl_registration_instances",
		"qdiscctl_registration_memory_bytes",
	};
	static const char *const help[] = {
		"What a registration of a kind holds, by capacity (qdiscctl help KIND)",
		"Instance slots a registration has in use",
		"Bytes of the BPF maps a registration pins",
	};

	for (size_t m = 0; m < ARRAY_SIZE(metric); m++) {
		put_head(f, metric[m], "gauge", help[m]);
		for (int i = 0; i < n; i++) {
			int ncaps = m ? 1 : qd_kind_ncaps(regs[i].kind);

			for (int c = 0; c < ncaps; c++) {
				fprintf(f, "%s{kind=\"%s\",registration=\"", metric[m],
					regs[i].kind->name);
				put_value(f, regs[i].id);
				fputc('"', f);
				if (m == 0)
					put_label(f, "capacity",
						  qd_kind_cap(regs[i].kind, c)->name);
				fprintf(f, "} %llu\n",
					(unsigned long long)(m == 0   ? regs[i].cap[c]
							     : m == 1 ? regs[i].used
								      : regs[i].memory));
			}
		}
	}
}

/* Every name under /run/netns, after what ns already holds: 0 or -ENOMEM. */
static int named_netns(struct ns_snap **ns, int *nns, char ***owned)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		void *p, *q;

		if (e->d_name[0] == '.')
			continue;
		p = realloc(*ns, (*nns + 1) * sizeof(**ns));
		q = p ? realloc(*owned, (n + 1) * sizeof(**owned)) : NULL;
		if (p)
			*ns = p;
		if (q)
			*owned = q;
		if (!p || !q || !((*owned)[n] = strdup(e->d_name))) {
			closedir(d);
			return -ENOMEM;
		}
		(*ns)[(*nns)++] = (struct ns_snap){ .label = (*owned)[n++] };
	}
	if (d)
		closedir(d);
	return n;
}

/* Read one namespace's qdiscs (name NULL: the own): 0, or -1 with the reason said. */
static int take_ns(struct ns_snap *ns, const char *name, int home)
{
	struct qdisc_spec all = {};
	struct rtnl rt;
	int err = 0;

	if (name && (err = netns_enter(name))) {
		qd_err("metrics: cannot enter network namespace \"%s\": %s", qd_tok(name),
		       strerror(-err));
		return -1;
	}
	err = rtnl_open(&rt);
	if (name && setns(home, CLONE_NEWNET)) {
		qd_err("metrics: cannot return from network namespace \"%s\": %s", qd_tok(name),
		       strerror(errno));
		if (!err)
			rtnl_close(&rt);
		return -1;
	}
	if (err) {
		qd_err("metrics: cannot open rtnetlink: %s", strerror(-err));
		return -1;
	}
	err = qd_snap_take(&ns->snap, &rt, &all);
	if (err)
		qd_err_kernel(err, rt.errmsg);
	rtnl_close(&rt);
	return err ? -1 : 0;
}

int metrics_write(FILE *f, const struct metrics_scope *sc)
{
	struct ns_snap *ns = NULL;
	struct qd_snap_reg *regs = NULL;
	char **owned = NULL;
	int nns = 0, nowned = 0, ret = -1, home;
	bool oom = true; /* until the namespaces are listed */
	int nregs = 0;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		qd_err("metrics: cannot open /proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	if (!sc->nnames) {
		if (!(ns = calloc(1, sizeof(*ns))))
			goto out;
		ns[nns++].label = qd_opts.netns ? qd_opts.netns : "";
	}
	for (int i = 0; i < sc->nnames; i++) {
		void *p = realloc(ns, (nns + 1) * sizeof(*ns));

		if (!p)
			goto out;
		ns = p;
		ns[nns++] = (struct ns_snap){ .label = sc->names[i] };
	}
	if (sc->all && (nowned = named_netns(&ns, &nns, &owned)) < 0)
		goto out;
	oom = false;
	for (int i = 0; i < nns; i++) {
		bool own = !i && !sc->nnames;

		/* --all-netns: the one -n named is listed under /run/netns too. */
		if (i >= nns - nowned && qd_opts.netns && !strcmp(ns[i].label, qd_opts.netns))
			continue;
		if (take_ns(&ns[i], own ? NULL : ns[i].label, home))
			goto out;
	}
	if (qd_snap_regs(&regs, &nregs)) {
		oom = true;
		goto out;
	}
	put_basics(f, ns, nns);
	put_kinds(f, ns, nns);
	put_regs(f, regs, nregs);
	ret = fflush(f) || ferror(f) ? -1 : 0;
	if (ret)
		qd_err("metrics: cannot write: %s", strerror(errno));
out:
	if (oom)
		qd_err("metrics: out of memory");
	for (int i = 0; i < nns; i++)
		qd_snap_free(&ns[i].snap);
	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(ns);
	free(regs);
	close(home);
	return ret;
}

/* PATH written whole or not at all: a temporary file beside it, renamed over it. */
static int write_textfile(const char *path, const struct metrics_scope *sc)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	FILE *f = NULL;
	int fd = -1, ret = -1;

	if (!tmp) {
		qd_err("metrics: out of memory");
		return -1;
	}
	/* Not *.prom while it is written: node_exporter reads only those. */
	snprintf(tmp, len + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		qd_err("metrics: cannot create %s: %s", qd_tok(tmp), strerror(errno));
		goto out;
	}
	fd = -1;
	if (metrics_write(f, sc))
		goto out;
	if (fsync(fileno(f)) || fclose(f)) {
		f = NULL;
		qd_err("metrics: cannot write %s: %s", qd_tok(tmp), strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		qd_err("metrics: cannot rename %s to %s: %s", qd_tok(tmp), qd_tok(path),
		       strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

static int run_metrics(int argc, char **argv)
{
	struct metrics_scope sc;
	const char *textfile = NULL;

	if (metrics_args(argc, argv, &sc, &textfile))
		return QD_EXIT_USAGE;
	if (textfile)
		return write_textfile(textfile, &sc) ? QD_EXIT_FAIL : QD_EXIT_OK;
	return metrics_write(stdout, &sc) ? QD_EXIT_FAIL : QD_EXIT_OK;
}

static const struct qd_cmd metrics_cmd = {
	.name = "metrics",
	.args = "[netns NAME]... [--all-netns] [--textfile PATH]",
	.summary = "print every qdisc's counters in Prometheus' text format",
	.help = "Labels netns, dev, kind, handle and parent; the kinds' own counters as their\n"
		"descriptors name them (qdiscctl_KIND_NAME); the registrations' capacities and "
		"memory.\n"
		"netns NAME reads the named namespaces instead of the current one, --all-netns\n"
		"the current one and every named one. --textfile writes PATH atomically, for\n"
		"node_exporter's textfile collector.",
	.order = 46,
	.run = run_metrics,
};
QD_CMD_REGISTER(metrics_cmd);
