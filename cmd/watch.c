// SPDX-License-Identifier: GPL-2.0
/*
 * watch FILE: apply FILE, then keep it applied. rtnetlink's link and qdisc
 * events say which device changed (one socket in each network namespace
 * FILE names); that device's statements are applied again 50 ms later,
 * so that a burst of events (an mq's children) costs one pass, which finds
 * nothing to do when the events were apply's own. A device that keeps
 * being refused is retried after 1, 2, 4 ... 300 s. SIGHUP reads FILE
 * again; SIGTERM and SIGINT end it. What it keeps is one entry a device
 * with work due, dropped when done or when the device goes, so memory is
 * bounded by the devices there are.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <sched.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"
#include "core/instance.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "netlink/monitor.h"
#include "netlink/netns.h"
#include "sysctl/proc.h"
#include "sysctl/profile.h"
#include "sysctl/sysctl.h"

#define WATCH_DELAY_MS	  50   /* from an event to the apply it causes */
#define WATCH_NETNS_MS	  2000 /* how often named namespaces are looked for */
#define WATCH_NETNS_MAX	  255  /* namespaces one watch listens in, its own included */
#define WATCH_BACKOFF_MAX 300  /* seconds between tries of a device refused again and again */

struct watched_ns {
	const char *name; /* NULL: the one watch runs in */
	struct mnl_socket *nl;
	ino_t ino; /* of /run/netns/NAME when its socket was opened */
};

struct due {
	int ns; /* index into w->ns */
	int ifindex;
	uint64_t at; /* CLOCK_MONOTONIC ms */
	unsigned int fails;
};

#define WATCH_KINDS 16

struct watch {
	const char *file;
	/* Holds on the registrations of the kinds FILE names (qd_reg_hold), by qd_kinds() index. */
	int hold[WATCH_KINDS];
	bool made[WATCH_KINDS]; /* registering tried for this file */
	struct qd_config c;
	bool have_config;
	int home;
	struct watched_ns *ns;
	int nns;
	struct due *due;
	int ndue, maxdue;
	uint64_t all_at; /* a pass over everything is due (0: none) */
	int ev_ns;	 /* the namespace whose events are being read */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void forget_ns(struct watch *w, int i)
{
	if (w->ns[i].nl)
		mnl_socket_close(w->ns[i].nl);
	w->ns[i].nl = NULL;
	for (int j = 0; j < w->ndue; j++)
		if (w->due[j].ns == i)
			w->due[j--] = w->due[--w->ndue];
}

/* Subscribe in namespace i (entering it for the socket): 0 or -errno. */
static int open_ns(struct watch *w, int i)
{
	struct watched_ns *n = &w->ns[i];
	int err = 0;

	if (n->name) {
		char path[64 + 16];
		struct stat st;

		snprintf(path, sizeof(path), "/run/netns/%s", n->name);
		if (stat(path, &st))
			return -errno;
		n->ino = st.st_ino;
		err = netns_enter(n->name);
	}
	if (!err) {
		n->nl = rtnl_monitor_open();
		err = n->nl ? 0 : -errno;
	}
	if (n->name && setns(w->home, CLONE_NEWNET) && !err)
		err = -errno;
	return err;
}

/* Named namespaces that went are forgotten; ones that came are watched and applied. */
static void check_netns(struct watch *w, uint64_t now)
{
	for (int i = 1; i < w->nns; i++) {
		struct watched_ns *n = &w->ns[i];
		char path[64 + 16];
		struct stat st;
		bool there;

		snprintf(path, sizeof(path), "/run/netns/%s", n->name);
		there = !stat(path, &st);
		if (n->nl && (!there || st.st_ino != n->ino)) {
			fprintf(stderr, "watch: netns %s went away: forgotten\n", n->name);
			forget_ns(w, i);
		}
		if (!n->nl && there && !open_ns(w, i)) {
			fprintf(stderr, "watch: netns %s is there: watching it\n", n->name);
			w->all_at = now + WATCH_DELAY_MS;
		}
	}
}

static void on_event(enum rtnl_event ev, int ifindex, const struct nlmsghdr *nlh, void *data)
{
	struct watch *w = data;
	struct due *d = NULL;

	(void)nlh;
	for (int i = 0; i < w->ndue && !d; i++)
		if (w->due[i].ns == w->ev_ns && w->due[i].ifindex == ifindex)
			d = &w->due[i];
	if (ev == RTNL_EV_UNLINK) {
		/* A device that comes back is a new one, with a clean record. */
		if (d)
			*d = w->due[--w->ndue];
		return;
	}
	if (d) {
		/* A device in back-off waits its turn; others are due soon. */
		if (!d->fails && !d->at)
			d->at = now_ms() + WATCH_DELAY_MS;
		return;
	}
	if (w->ndue == w->maxdue) {
		int max = w->maxdue ? 2 * w->maxdue : 16;
		struct due *p = realloc(w->due, max * sizeof(*p));

		if (!p) {
			/* Nothing is lost: a pass over everything follows. */
			w->all_at = now_ms() + WATCH_DELAY_MS;
			return;
		}
		w->due = p;
		w->maxdue = max;
	}
	w->due[w->ndue++] = (struct due){ w->ev_ns, ifindex, now_ms() + WATCH_DELAY_MS, 0 };
}

/*
 * Hold a registration of every kind FILE names, making one if need be
 * (once a file): a device that appears or is made again then gets its
 * qdisc without a program being loaded and verified first, which alone
 * can take longer than the second watch promises.
 */
static void hold_kinds(struct watch *w)
{
	const struct qd_kind *const *kinds = qd_kinds();

	for (int i = 0; kinds[i] && i < WATCH_KINDS; i++) {
		const struct qd_stmt *st = NULL;
		struct stat sb;
		struct qd_reg r;
		struct rtnl rt;
		int lock;

		for (int j = 0; j < w->c.n && !st; j++)
			if (w->c.stmts[j].type == QD_STMT_QDISC && w->c.stmts[j].kind == kinds[i])
				st = &w->c.stmts[j];
		/* A held directory removed all the same (by hand) holds nothing. */
		if (w->hold[i] >= 0 && (!st || fstat(w->hold[i], &sb) || !sb.st_nlink)) {
			close(w->hold[i]);
			w->hold[i] = -1;
		}
		if (!st || w->hold[i] >= 0)
			continue;
		if (!qd_reg_open(kinds[i], &r, 0, NULL)) {
			w->hold[i] = qd_reg_hold(&r);
			qd_reg_close(&r);
			continue;
		}
		if (w->made[i])
			continue;
		w->made[i] = true;
		if (qd_check_kernel(kinds[i]) || qd_cmd_rtnl(&rt))
			continue;
		lock = qd_lock_and_open(&rt, kinds[i], &r, 1, st->cfg);
		if (lock >= 0) {
			w->hold[i] = qd_reg_hold(&r);
			qd_reg_close(&r);
			qd_unlock(lock);
		}
		rtnl_close(&rt);
	}
}

static int apply_now(struct watch *w, int ns, int ifindex)
{
	struct qd_apply_opts o = { .force = true, .quiet = true, .ifindex = ifindex };
	int ret;

	if (ns >= 0)
		o.netns = w->ns[ns].name;
	ret = qd_apply(&w->c, &o, w->home);
	hold_kinds(w);
	return ret;
}

static void run_due(struct watch *w, uint64_t now)
{
	if (w->all_at && w->all_at <= now) {
		w->all_at = 0;
		/* Devices named that are not there are watch's normal case. */
		apply_now(w, -1, 0);
		fprintf(stderr, "watch: %s applied; watching\n", w->file);
	}
	for (int i = 0; i < w->ndue; i++) {
		struct due *d = &w->due[i];
		unsigned int wait;

		if (!d->at || d->at > now)
			continue;
		if (!apply_now(w, d->ns, d->ifindex)) {
			w->due[i--] = w->due[--w->ndue];
			continue;
		}
		d->fails++;
		wait = d->fails > 9 ? WATCH_BACKOFF_MAX : 1U << (d->fails - 1);
		if (wait > WATCH_BACKOFF_MAX)
			wait = WATCH_BACKOFF_MAX;
		fprintf(stderr, "watch: device %d%s%s: refused %u time%s: next try in %us\n",
			d->ifindex, w->ns[d->ns].name ? " in netns " : "",
			w->ns[d->ns].name ? w->ns[d->ns].name : "", d->fails,
			d->fails > 1 ? "s" : "", wait);
		d->at = now_ms() + wait * 1000ULL;
	}
}

static void drop_config(struct watch *w)
{
	for (int i = 0; i < w->nns; i++)
		forget_ns(w, i);
	free(w->ns);
	w->ns = NULL;
	w->nns = 0;
	if (w->have_config)
		qd_config_free(&w->c);
	w->have_config = false;
}

/* Read FILE (again): on a bad file the old one stays. An exit code. */
static int load(struct watch *w)
{
	struct qd_sysctl_env env;
	struct qd_config c;
	int ret, err;

	qd_sysctl_env_init(&env);
	ret = qd_config_read(w->file, &env.kernel, &c);
	if (ret)
		return ret;
	if (c.nnetns >= WATCH_NETNS_MAX) {
		qd_err("watch: %s names %d network namespaces; one watch listens in at most %d",
		       w->file, c.nnetns, WATCH_NETNS_MAX - 1);
		qd_config_free(&c);
		return QD_EXIT_USAGE;
	}
	drop_config(w);
	w->c = c;
	w->have_config = true;
	memset(w->made, 0, sizeof(w->made));
	w->nns = 1 + c.nnetns;
	w->ns = calloc(w->nns, sizeof(*w->ns));
	if (!w->ns) {
		qd_err("out of memory");
		return QD_EXIT_FAIL;
	}
	for (int i = 1; i < w->nns; i++)
		w->ns[i].name = c.netns[i - 1];
	err = open_ns(w, 0);
	if (err) {
		qd_err("watch: cannot listen to rtnetlink: %s", strerror(-err));
		return QD_EXIT_FAIL;
	}
	/* A namespace not there yet is looked for again every few seconds. */
	for (int i = 1; i < w->nns; i++)
		if (open_ns(w, i))
			fprintf(stderr, "watch: netns %s is not there (yet)\n", w->ns[i].name);
	w->all_at = now_ms();
	return 0;
}

static int watch_loop(struct watch *w, int sfd)
{
	uint64_t next_ns = now_ms() + WATCH_NETNS_MS;

	for (;;) {
		struct pollfd pfd[1 + WATCH_NETNS_MAX];
		int map[WATCH_NETNS_MAX], n = 1, timeout;
		uint64_t now = now_ms(), next = next_ns;

		run_due(w, now);
		if (now >= next_ns) {
			check_netns(w, now);
			next_ns = now + WATCH_NETNS_MS;
			next = next_ns;
		}
		if (w->all_at && w->all_at < next)
			next = w->all_at;
		for (int i = 0; i < w->ndue; i++)
			if (w->due[i].at && w->due[i].at < next)
				next = w->due[i].at;
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (int i = 0; i < w->nns && n < (int)ARRAY_SIZE(pfd); i++) {
			if (!w->ns[i].nl)
				continue;
			map[n - 1] = i;
			pfd[n++] = (struct pollfd){ .fd = mnl_socket_get_fd(w->ns[i].nl),
						    .events = POLLIN };
		}
		now = now_ms();
		timeout = next > now ? (int)(next - now) : 0;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
			qd_err("watch: poll: %s", strerror(errno));
			return QD_EXIT_FAIL;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP) {
					fprintf(stderr, "watch: signal %u: stopping\n",
						si.ssi_signo);
					return QD_EXIT_OK;
				}
				fprintf(stderr, "watch: SIGHUP: reading %s again\n", w->file);
				if (load(w))
					fprintf(stderr,
						"watch: %s not taken: still applying the one "
						"before\n",
						w->file);
				continue;
			}
		}
		for (int i = 1; i < n; i++) {
			int err;

			if (!(pfd[i].revents & POLLIN))
				continue;
			w->ev_ns = map[i - 1];
			err = rtnl_monitor_read(w->ns[w->ev_ns].nl, on_event, w);
			if (err == -ENOBUFS) {
				/* Events were lost: look at everything. */
				w->all_at = now_ms() + WATCH_DELAY_MS;
			} else if (err) {
				qd_err("watch: reading rtnetlink events: %s", strerror(-err));
				return QD_EXIT_FAIL;
			}
		}
	}
}

static int run_watch(int argc, char **argv)
{
	struct watch w = {};
	sigset_t sigs;
	int sfd, ret;

	if (argc != 2) {
		qd_err("watch: needs one FILE");
		return QD_EXIT_USAGE;
	}
	if (qd_opts.json) {
		qd_err("watch logs text lines: -j does not apply");
		return QD_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		qd_err("watch needs root (CAP_NET_ADMIN and CAP_BPF; it reads BPF maps)");
		return QD_EXIT_FAIL;
	}
	w.file = argv[1];
	for (int i = 0; i < WATCH_KINDS; i++)
		w.hold[i] = -1;
	w.home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (w.home < 0) {
		qd_err("cannot open /proc/self/ns/net: %s", strerror(errno));
		return QD_EXIT_FAIL;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	/* Its log is stderr, a line an action, unbuffered as a service's journal wants. */
	out_end();
	out_start(stderr, false, false);
	ret = sfd < 0 ? QD_EXIT_FAIL : load(&w);
	if (!ret)
		ret = watch_loop(&w, sfd);
	drop_config(&w);
	for (int i = 0; i < WATCH_KINDS; i++)
		if (w.hold[i] >= 0)
			close(w.hold[i]);
	free(w.due);
	if (sfd >= 0)
		close(sfd);
	close(w.home);
	return ret;
}

static const struct qd_cmd watch_cmd = {
	.name = "watch",
	.args = "FILE",
	.summary = "apply FILE, then apply it again wherever a device or qdisc changes",
	.help = "Runs until SIGTERM or SIGINT. Within a second of a device appearing, coming\n"
		"up or losing the qdisc FILE gives it, that device's statements are applied\n"
		"again; one line on stderr for each thing done. A device the kernel keeps\n"
		"refusing is tried again after 1, 2, 4 ... 300 seconds. SIGHUP reads FILE\n"
		"again (a bad file is reported and the old one kept). Namespaces FILE names\n"
		"are watched while they exist.",
	.order = 64,
	.run = run_watch,
};
QD_CMD_REGISTER(watch_cmd);
