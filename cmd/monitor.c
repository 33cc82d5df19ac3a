// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: the rates of every qdisc, from two readings of the kernel's
 * counters (and the kinds' own, as their descriptors list them) an
 * interval apart on CLOCK_MONOTONIC. On a terminal a view redrawn every
 * interval, with keys to sort and quit; otherwise, for scripts, one line
 * per qdisc per interval (with -j one JSON object per interval).
 *
 * monitor events: qdiscs added, replaced and deleted, as tc monitor
 * prints them (without their options), every version of qdiscctl's kinds
 * under the kind's id.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "cmd/cmd.h"
#include "cmd/show_flows.h"
#include "core/instance.h"
#include "core/registry.h"
#include "core/snapshot.h"
#include "kinds/flows.h"
#include "lib/cgroup.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"
#include "netlink/link.h"
#include "netlink/monitor.h"
#include "netlink/qdisc_print.h"

#define MONITOR_MIN_NS (10 * 1000 * 1000ULL) /* 10 ms: shorter reads mostly the syscalls */
#define MONITOR_MAX_NS (3600 * 1000000000ULL)
#define MONITOR_FLOWS  5 /* the busiest flows shown a qdisc */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SIGINT and SIGTERM end the loop (the terminal is put back), without SA_RESTART. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* --- monitor events -------------------------------------------------------- */

struct events {
	struct rtnl *rt;
	struct link_names names;
};

static void on_event(enum rtnl_event ev, int ifindex, const struct nlmsghdr *nlh, void *data)
{
	struct events *e = data;
	const struct qd_kind *k;
	struct qdisc_info qi;
	char dev[IF_NAMESIZE];
	const char *name;

	if (ev == RTNL_EV_LINK || ev == RTNL_EV_UNLINK) {
		/* Names change with their devices: read them again when one is needed. */
		link_names_free(&e->names);
		return;
	}
	if (qdisc_msg_parse(nlh, &qi))
		return;
	if ((k = qd_reg_kind(qi.kind)))
		snprintf(qi.kind, sizeof(qi.kind), "%s", k->id);
	if (!e->names.names)
		link_names_load(e->rt, &e->names);
	if (!(name = link_name(&e->names, ifindex)) && !if_indextoname(ifindex, dev))
		snprintf(dev, sizeof(dev), "if%d", ifindex);
	out_start(stdout, qd_opts.json, qd_opts.pretty);
	open_json_object(NULL);
	/* As tc monitor: "deleted" first, nothing for an added or changed one. */
	if (nlh->nlmsg_type == RTM_DELQDISC)
		print_bool(PRINT_ANY, "deleted", "deleted ", true);
	qdisc_print_head(&qi, name ? name : dev);
	close_json_object();
	print_text("\n");
	out_end();
}

static int run_events(void)
{
	struct events e = {};
	struct mnl_socket *nl = rtnl_monitor_open();
	struct rtnl rt;
	int err = 0, ret = QD_EXIT_OK;

	if (!nl) {
		qd_err("monitor: cannot subscribe to rtnetlink: %s", strerror(errno));
		return QD_EXIT_FAIL;
	}
	ret = qd_cmd_rtnl(&rt);
	if (ret) {
		mnl_socket_close(nl);
		return ret;
	}
	e.rt = &rt;
	link_names_init(&e.names);
	/* The document of each event is its own: nothing is left for main's. */
	out_end();
	catch_signals();
	while (!stop) {
		struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		err = rtnl_monitor_read(nl, on_event, &e);
		if (err == -ENOBUFS) {
			fprintf(stderr, "monitor: the kernel dropped events (too many at once)\n");
			err = 0;
		} else if (err) {
			break;
		}
	}
	if (err) {
		qd_err("monitor: reading rtnetlink events: %s", strerror(-err));
		ret = QD_EXIT_FAIL;
	}
	/* Keep main's closing of the document from printing a null. */
	out_start(stdout, false, false);
	link_names_free(&e.names);
	rtnl_close(&rt);
	mnl_socket_close(nl);
	return ret;
}

/* --- rates ----------------------------------------------------------------- */

enum sort_by { SORT_NONE, SORT_BITS, SORT_PACKETS, SORT_DROPS, SORT_BACKLOG, SORT_N };

static const char *const sort_names[SORT_N] = { "dump order", "bit/s", "pkt/s", "drops/s",
						"backlog" };

/* A qdisc's flow table as one reading found it (kinds that keep one, with "flows"). */
struct flow_table {
	struct qd_flow_entry *e;
	char *vals;
	int n;
};

/* One qdisc of the latest reading with its rates: what a row shows. */
struct row {
	const struct qd_snap_qdisc *q;
	const struct qd_snap_qdisc *old; /* in the reading before, or NULL when new */
	double bytes, packets, drops;	 /* per second */
	const struct flow_table *ft, *ft_old;
};

static void print_flows(const struct row *r, double secs, const char *lead)
{
	if (r->ft && r->ft_old && r->ft->n > 0)
		qd_flows_print_rates(r->q->kind->flows, r->ft->e, r->ft->n, r->ft_old->e,
				     r->ft_old->n > 0 ? r->ft_old->n : 0, secs, qd_inst_now(),
				     MONITOR_FLOWS, lead);
}

static double rate(uint64_t now, uint64_t before, double secs)
{
	/* A counter that went back is a new qdisc in the old one's place. */
	return (now >= before ? now - before : now) / secs;
}

/* Rates are never negative (see rate): no libm for rounding them. */
static uint64_t round_u(double v)
{
	return v + 0.5;
}

static const struct qd_snap_qdisc *find_old(const struct qd_snap *s, const struct qd_snap_qdisc *q)
{
	for (int i = 0; i < s->n; i++) {
		const struct qd_snap_qdisc *o = &s->q[i];

		if (o->qi.ifindex == q->qi.ifindex && o->qi.handle == q->qi.handle &&
		    o->qi.parent == q->qi.parent && o->kind == q->kind &&
		    !strcmp(o->qi.kind, q->qi.kind))
			return o;
	}
	return NULL;
}

static const struct qd_sample *find_sample(const struct qd_snap_qdisc *o, const struct qd_sample *s)
{
	for (size_t i = 0; o && i < o->nsamples; i++)
		if (o->samples[i].stat == s->stat && o->samples[i].group == s->group &&
		    o->samples[i].key == s->key)
			return &o->samples[i];
	return NULL;
}

static void print_gauge(const struct qd_stat *s, const char *name, uint64_t v)
{
	char b[UNITS_BUF];

	print_uint(PRINT_JSON, name, NULL, v);
	if (s->type == QD_STAT_RATE)
		sprint_rate(v, b, sizeof(b));
	else if (s->type == QD_STAT_SIZE)
		sprint_size(v, b, sizeof(b));
	else if (s->type == QD_STAT_TIME || s->type == QD_STAT_DEADLINE)
		sprint_time(v, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	print_text(" %s %s", name, b);
}

/* Beside a sample, the option value that sets what it achieves: "of 10Mbit", NAME_configured. */
static void print_configured(const struct qd_snap_qdisc *q, const struct qd_sample *s,
			     const char *name)
{
	const struct qd_opt *o = s->stat->of ? qd_kind_named(q->kind, s->stat->of) : NULL;
	char key[64], b[UNITS_BUF];
	uint64_t v;

	if (s->group != QD_SAMPLE_STATS || !o || !q->cfg)
		return;
	v = qd_opt_get(o, q->cfg);
	snprintf(key, sizeof(key), "%s_configured", name);
	print_uint(PRINT_JSON, key, NULL, v);
	print_text(" of %s", qd_opt_text(o, v, b, sizeof(b)));
}

/* A counter as NAME_per_sec (text "NAME N/s"), a gauge as its value. */
static void print_sample(const struct qd_snap_qdisc *q, const struct qd_sample *s,
			 const struct qd_sample *old, double secs)
{
	const char *name = qd_stat_metric(s->stat);
	char key[64];

	if (!qd_stat_is_counter(s->stat)) {
		print_gauge(s->stat, name, s->value);
		print_configured(q, s, name);
		return;
	}
	snprintf(key, sizeof(key), "%s_per_sec", name);
	if (!old) {
		print_null(PRINT_JSON, key, NULL, NULL);
		print_text(" %s -", name);
		return;
	}
	print_uint(PRINT_JSON, key, NULL, round_u(rate(s->value, old->value, secs)));
	print_text(" %s %.0f/s", name, rate(s->value, old->value, secs));
}

/* The record a ROWS or TABLE sample belongs to: what its object and text start with. */
static void print_record(const struct qd_snap_qdisc *q, const struct qd_sample *s, bool subrows)
{
	const struct qd_kind *k = q->kind;
	char path[4096];

	open_json_object(NULL);
	print_text(subrows ? "\n    " : " |");
	if (s->group == QD_SAMPLE_ROWS) {
		print_text(" %s ", k->rows->opt);
		if (qd_cgroup_path(s->key, path, sizeof(path))) {
			print_string(PRINT_ANY, "path", "%s:", path);
		} else {
			print_null(PRINT_JSON, "path", NULL, NULL);
			print_text("(removed, id %llu):", (unsigned long long)s->key);
		}
		print_uint(PRINT_JSON, "id", NULL, s->key);
		return;
	}
	for (const struct qd_stat *l = k->table->stats; l->name; l++)
		if (l->flags & QD_STAT_LABEL) {
			print_uint(PRINT_JSON, l->name, NULL, s->key);
			print_text(" %s %llu:", l->name, (unsigned long long)s->key);
		}
}

/* The kind's samples: its own first, then an array of objects a record (bands, cgroups). */
static void print_kind_samples(const struct qd_snap_qdisc *q, const struct qd_snap_qdisc *old,
			       double secs, bool subrows)
{
	enum qd_sample_group group = QD_SAMPLE_STATS;
	uint64_t key = 0;

	for (size_t i = 0; i < q->nsamples; i++) {
		const struct qd_sample *s = &q->samples[i];

		if (s->group != group || (group != QD_SAMPLE_STATS && s->key != key)) {
			if (group != QD_SAMPLE_STATS)
				close_json_object();
			if (s->group != group) {
				if (group != QD_SAMPLE_STATS)
					close_json_array(PRINT_JSON, NULL);
				open_json_array(PRINT_JSON, s->group == QD_SAMPLE_ROWS
								    ? q->kind->rows->name
								    : q->kind->table->name);
			}
			group = s->group;
			key = s->key;
			print_record(q, s, subrows);
		}
		print_sample(q, s, find_sample(old, s), secs);
	}
	if (group != QD_SAMPLE_STATS) {
		close_json_object();
		close_json_array(PRINT_JSON, NULL);
	}
}

/* The terminal's columns: a row's head, then the kind's values and a sub-row a record. */
static void print_cells(const struct row *r, double secs)
{
	const struct qdisc_stats *st = &r->q->qi.stats;
	char h[UNITS_BUF], p[UNITS_BUF], b[UNITS_BUF], bl[UNITS_BUF];

	if (r->old)
		sprint_rate(round_u(r->bytes), b, sizeof(b));
	else
		snprintf(b, sizeof(b), "-");
	print_text("%-15s %-16s %-6s %-10s %10s %9.0f %8.0f %9s %6u ", r->q->dev, r->q->qi.kind,
		   sprint_handle(r->q->qi.handle, h, sizeof(h)),
		   sprint_classid(r->q->qi.parent, p, sizeof(p)), b, r->packets, r->drops,
		   sprint_size(st->backlog, bl, sizeof(bl)), st->qlen);
	if (r->q->kind)
		print_kind_samples(r->q, r->old, secs, true);
	print_flows(r, secs, "\n    flow");
}

static void print_row(const struct row *r, double secs)
{
	const struct qdisc_stats *st = &r->q->qi.stats;
	char b[UNITS_BUF];

	qdisc_print_head(&r->q->qi, r->q->dev);
	if (r->old) {
		print_uint(PRINT_JSON, "bytes_per_sec", NULL, round_u(r->bytes));
		print_uint(PRINT_JSON, "packets_per_sec", NULL, round_u(r->packets));
		print_uint(PRINT_JSON, "drops_per_sec", NULL, round_u(r->drops));
		print_text("%s %.0fpps drops %.0f/s ", sprint_rate(round_u(r->bytes), b, sizeof(b)),
			   r->packets, r->drops);
	} else {
		print_null(PRINT_JSON, "bytes_per_sec", NULL, NULL);
		print_null(PRINT_JSON, "packets_per_sec", NULL, NULL);
		print_null(PRINT_JSON, "drops_per_sec", NULL, NULL);
		print_text("(new) ");
	}
	print_uint(PRINT_JSON, "backlog", NULL, st->backlog);
	print_uint(PRINT_JSON, "qlen", NULL, st->qlen);
	print_text("backlog %s %up", sprint_size(st->backlog, b, sizeof(b)), st->qlen);
	if (r->q->kind)
		print_kind_samples(r->q, r->old, secs, false);
	print_flows(r, secs, " | flow");
}

struct monitor {
	struct rtnl rt;
	struct qdisc_spec filter;
	uint64_t interval;   /* ns */
	unsigned long count; /* intervals to print, 0: until stopped */
	bool tty;
	bool keys; /* stdin is the terminal, in raw mode: keys are read */
	enum sort_by sort;
	struct qd_snap old, cur;
	bool flows;			    /* the busiest flows of kinds that keep a table */
	struct flow_table *ft_old, *ft_cur; /* one table per qdisc of old and cur */
	struct row *rows;
	size_t nrows;
};

static int by_sort;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx, dy;

	switch (by_sort) {
	case SORT_BITS:
		dx = x->bytes, dy = y->bytes;
		break;
	case SORT_PACKETS:
		dx = x->packets, dy = y->packets;
		break;
	case SORT_DROPS:
		dx = x->drops, dy = y->drops;
		break;
	case SORT_BACKLOG:
		dx = x->q->qi.stats.backlog, dy = y->q->qi.stats.backlog;
		break;
	default:
		return x->q < y->q ? -1 : x->q > y->q;
	}
	return dx < dy ? 1 : dx > dy ? -1 : (x->q > y->q) - (x->q < y->q);
}

/* The rows of m->cur against m->old, sorted as asked: 0 or -ENOMEM. */
static int make_rows(struct monitor *m)
{
	double secs = (m->cur.at - m->old.at) / 1e9;
	struct row *r = realloc(m->rows, (m->cur.n + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	m->rows = r;
	m->nrows = m->cur.n;
	for (int i = 0; i < m->cur.n; i++) {
		const struct qd_snap_qdisc *q = &m->cur.q[i], *o = find_old(&m->old, q);

		r[i] = (struct row){ .q = q, .old = o };
		if (m->ft_cur && m->ft_old && o) {
			r[i].ft = &m->ft_cur[i];
			r[i].ft_old = &m->ft_old[o - m->old.q];
		}
		if (o) {
			r[i].bytes = rate(q->qi.stats.bytes, o->qi.stats.bytes, secs);
			r[i].packets = rate(q->qi.stats.packets, o->qi.stats.packets, secs);
			r[i].drops = rate(q->qi.stats.drops, o->qi.stats.drops, secs);
		}
	}
	by_sort = m->sort;
	qsort(r, m->nrows, sizeof(*r), cmp_rows);
	return 0;
}

/* One JSON object (NDJSON) or one line per qdisc, for this interval. */
static void print_lines(struct monitor *m)
{
	double secs = (m->cur.at - m->old.at) / 1e9;
	struct timespec now;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &now);
	/* UTC by hand: localtime and strftime would link glibc's time zone code (20 KB). */
	snprintf(when, sizeof(when), "%02d:%02d:%02d", (int)(now.tv_sec / 3600 % 24),
		 (int)(now.tv_sec / 60 % 60), (int)(now.tv_sec % 60));
	out_start(stdout, qd_opts.json, qd_opts.pretty);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "time", NULL, now.tv_sec);
	print_uint(PRINT_JSON, "interval_ns", NULL, m->cur.at - m->old.at);
	open_json_array(PRINT_JSON, "qdiscs");
	for (size_t i = 0; i < m->nrows; i++) {
		print_text("%s ", when);
		open_json_object(NULL);
		print_row(&m->rows[i], secs);
		close_json_object();
		print_text("\n");
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

static void terminal_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* The view: a header, then a row per qdisc and a sub-row per record, cut to the screen. */
static void draw(struct monitor *m)
{
	double secs = (m->cur.at - m->old.at) / 1e9;
	char *text = NULL, *line, *end;
	size_t len = 0;
	int rows, cols, y = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	terminal_size(&rows, &cols);
	out_start(f, false, false);
	print_text("%-15s %-16s %-6s %-10s %10s %9s %8s %9s %6s  %s\n", "DEV", "KIND", "HANDLE",
		   "PARENT", "BIT/S", "PKT/S", "DROP/S", "BACKLOG", "QLEN",
		   "KIND'S OWN (/s: rates)");
	for (size_t i = 0; i < m->nrows; i++) {
		print_cells(&m->rows[i], secs);
		print_text("\n");
	}
	out_end();
	fclose(f);
	/* Home, clear; the header in reverse video. */
	printf("\033[H\033[2J\033[7m%-*.*s\033[0m\r\n", cols, cols, "");
	printf("\033[1;1H\033[7mqdiscctl monitor: every %.2gs, sorted by %s (b p d l n: sort, q: "
	       "quit)"
	       "\033[0m\r\n",
	       m->interval / 1e9, sort_names[m->sort]);
	y = 1;
	for (line = text; line && *line && y < rows; line = end ? end + 1 : NULL, y++) {
		int n;

		end = strchr(line, '\n');
		n = end ? end - line : (int)strlen(line);
		printf("%.*s\r\n", n < cols ? n : cols, line);
	}
	fflush(stdout);
	free(text);
	out_start(stdout, false, false);
}

/* A key pressed: false to quit. */
static bool key(struct monitor *m, char c)
{
	static const char keys[SORT_N] = { 'n', 'b', 'p', 'd', 'l' };

	if (c == 'q' || c == 'Q' || c == 3 /* ^C in raw mode */)
		return false;
	for (int i = 0; i < SORT_N; i++)
		if (c == keys[i])
			m->sort = i;
	return true;
}

/* Sleep until deadline (CLOCK_MONOTONIC ns), reading keys on a terminal: false to quit. */
static bool wait_until(struct monitor *m, uint64_t deadline)
{
	for (;;) {
		uint64_t now = qd_inst_now();
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		char c;

		if (stop)
			return false;
		if (now >= deadline)
			return true;
		if (!m->keys) {
			struct timespec ts = { deadline / 1000000000, deadline % 1000000000 };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			continue;
		}
		if (poll(&p, 1, (deadline - now + 999999) / 1000000) > 0 && (p.revents & POLLIN)) {
			if (read(STDIN_FILENO, &c, 1) != 1 || !key(m, c))
				return false;
			if (m->nrows) {
				by_sort = m->sort;
				qsort(m->rows, m->nrows, sizeof(*m->rows), cmp_rows);
				draw(m);
			}
		}
	}
}

static void free_tables(struct flow_table *ft, int n)
{
	for (int i = 0; ft && i < n; i++) {
		free(ft[i].e);
		free(ft[i].vals);
	}
	free(ft);
}

/* The flow tables of s's qdiscs whose kind keeps one (n -1 where it could not be read). */
static struct flow_table *read_tables(const struct qd_snap *s)
{
	struct flow_table *ft = calloc(s->n + 1, sizeof(*ft));

	for (int i = 0; ft && i < s->n; i++) {
		const struct qd_snap_qdisc *q = &s->q[i];
		struct qd_reg reg;

		ft[i].n = -1;
		if (!q->kind || !q->kind->flows || qd_reg_open_id(q->reg, &reg))
			continue;
		ft[i].n = show_flows_read(&reg, q->slot, &ft[i].e, &ft[i].vals);
		qd_reg_close(&reg);
	}
	return ft;
}

static int take(struct monitor *m, struct qd_snap *s, struct flow_table **ft)
{
	int err = qd_snap_take(s, &m->rt, &m->filter);

	if (err)
		qd_err_kernel(err, m->rt.errmsg);
	else if (m->flows && !(*ft = read_tables(s)))
		err = -ENOMEM;
	return err;
}

static int run_rates(struct monitor *m)
{
	struct termios saved, raw;
	bool raw_set = false;
	uint64_t next;
	int ret = QD_EXIT_OK;

	if (m->tty && isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw_set = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		m->keys = raw_set;
	}
	/* The alternate screen, without the cursor: the shell's screen comes back after. */
	if (m->tty)
		printf("\033[?1049h\033[?25l");
	catch_signals();
	if (take(m, &m->old, &m->ft_old))
		ret = QD_EXIT_KERNEL;
	next = m->old.at;
	for (unsigned long n = 0; !ret && (!m->count || n < m->count); n++) {
		next += m->interval;
		if (!wait_until(m, next))
			break;
		if (take(m, &m->cur, &m->ft_cur)) {
			ret = QD_EXIT_KERNEL;
			break;
		}
		if (make_rows(m)) {
			qd_err("monitor: out of memory");
			ret = QD_EXIT_FAIL;
			break;
		}
		if (m->tty) {
			draw(m);
		} else {
			/* Each interval's output is whole on stdout before the next is read. */
			if (n)
				out_end();
			print_lines(m);
		}
		free_tables(m->ft_old, m->old.n);
		qd_snap_free(&m->old);
		m->old = m->cur;
		m->ft_old = m->ft_cur;
		memset(&m->cur, 0, sizeof(m->cur));
		m->ft_cur = NULL;
	}
	if (m->tty) {
		printf("\033[?25h\033[?1049l");
		fflush(stdout);
		if (raw_set)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved);
		out_start(stdout, false, false);
	}
	free_tables(m->ft_old, m->old.n);
	free_tables(m->ft_cur, m->cur.n);
	qd_snap_free(&m->old);
	qd_snap_free(&m->cur);
	free(m->rows);
	return ret;
}

/* Seconds ("1", "0.5") or a time with tc's units ("500ms"). */
static int parse_interval(const char *s, uint64_t *ns)
{
	char *end;
	double secs;

	if (s[strspn(s, "0123456789.")]) {
		if (parse_time(s, ns))
			return -EINVAL;
	} else {
		secs = strtod(s, &end);
		if (end == s || *end || secs > MONITOR_MAX_NS / 1e9)
			return -EINVAL;
		*ns = secs * 1e9;
	}
	return *ns >= MONITOR_MIN_NS && *ns <= MONITOR_MAX_NS ? 0 : -ERANGE;
}

static int run_monitor(int argc, char **argv)
{
	struct monitor m = { .interval = 1000000000ULL };
	char *words[3];
	int n = 0, ret;

	if (argc == 2 && !strcmp(argv[1], "events"))
		return run_events();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-i") || !strcmp(argv[i], "-c")) {
			uint64_t v;

			if (!qd_need_arg(argc, argv, i))
				return QD_EXIT_USAGE;
			if (argv[i][1] == 'i' && parse_interval(argv[i + 1], &m.interval)) {
				qd_err("monitor: bad interval \"%s\" (10ms to 1 hour: \"2\", "
				       "\"0.5\", "
				       "\"250ms\")",
				       qd_tok(argv[i + 1]));
				return QD_EXIT_USAGE;
			}
			if (argv[i][1] == 'c') {
				if (parse_u64(argv[i + 1], &v) || !v || v > 1000000000) {
					qd_err("monitor: bad count \"%s\"", qd_tok(argv[i + 1]));
					return QD_EXIT_USAGE;
				}
				m.count = v;
			}
			i++;
		} else if (!strcmp(argv[i], "flows")) {
			m.flows = true;
		} else if (!strcmp(argv[i], "dev") && n == 0) {
			if (!qd_need_arg(argc, argv, i))
				return QD_EXIT_USAGE;
			words[n++] = argv[i];
			words[n++] = argv[++i];
		} else {
			qd_err("monitor: unexpected \"%s\"", qd_tok(argv[i]));
			return QD_EXIT_USAGE;
		}
	}
	words[n] = NULL;
	if (qdisc_spec_parse(n, words, &m.filter))
		return QD_EXIT_USAGE;
	if (m.filter.dev && qdisc_spec_resolve(&m.filter))
		return QD_EXIT_FAIL;
	if (geteuid() != 0) {
		qd_err("monitor needs root (it reads BPF maps)");
		return QD_EXIT_FAIL;
	}
	m.tty = !qd_opts.json && isatty(STDOUT_FILENO);
	ret = qd_cmd_rtnl(&m.rt);
	if (ret)
		return ret;
	ret = run_rates(&m);
	rtnl_close(&m.rt);
	return ret;
}

static const struct qd_cmd monitor_cmd = {
	.name = "monitor",
	.args = "[dev DEV] [flows] [-i INTERVAL] [-c COUNT] | events",
	.summary = "watch every qdisc's rates live, or (events) qdiscs come and go",
	.help = "On a terminal, a view redrawn every INTERVAL (seconds, or \"250ms\"; 1 by\n"
		"default): bit/s, packets/s, drops/s, backlog and qlen of each qdisc, and its\n"
		"kind's own counters as rates and gauges, a sub-row a band or cgroup; keys b, p, "
		"d,\n"
		"l sort by bit/s, packets/s, drops/s, backlog, n by the kernel's order, q quits.\n"
		"With \"flows\", the busiest flows of kinds that keep a flow table (fq), by "
		"bytes/s.\n"
		"Otherwise, and with -j, a line (a JSON object) an interval, after COUNT of them\n"
		"the end. Rates come from the kernel's counters and the monotonic clock.\n"
		"\"events\": qdiscs added, replaced and deleted as they happen, as tc monitor "
		"prints\n"
		"them.",
	.order = 45,
	.run = run_monitor,
};
QD_CMD_REGISTER(monitor_cmd);
