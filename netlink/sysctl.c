// SPDX-License-Identifier: GPL-2.0
/*
 * The sysctls that shape backpressure (see hbm-and-backpressure.md 3.2-3.4)
 * and the "backpressure" profile.
 *
 * Ranges are the kernel's own (the extra1/extra2 of each ctl_table entry)
 * unless a comment says qdiscctl is stricter; where the kernel takes any
 * int (proc_dointvec), qdiscctl refuses the values that would quietly mean
 * something else than they say.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "lib/common.h"
#include "lib/savefile.h"
#include "netlink/sysctl.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static bool since(const struct qd_kernel *k, unsigned int major, unsigned int minor)
{
	return k->major > major || (k->major == major && k->minor >= minor);
}

/* SK_WMEM_DEFAULT = SKB_TRUESIZE(256) * 256 depends on struct sizes: known for x86-64. */
static const char *dflt_wmem_default(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)buf, (void)len;
	return k->x86_64 ? "212992" : NULL;
}

/* 6.18 (commit "net: set net.core.rmem_max and net.core.wmem_max to 4 MB") decoupled it. */
static const char *dflt_wmem_max(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)buf, (void)len;
	if (since(k, 6, 18))
		return "4194304";
	return k->major && k->x86_64 ? "212992" : NULL;
}

/* 16 * 65536 until 6.16 raised it to 4 MB (commit 9ea3bfa61b09). */
static const char *dflt_tcp_limit_output(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)buf, (void)len;
	if (since(k, 6, 16))
		return "4194304";
	return since(k, 5, 0) ? "1048576" : NULL;
}

/*
 * tcp_init(): PAGE_SIZE, 16 KiB, and min(4 MiB, 1/128 of the free buffer
 * pages): 4 MiB from about 512 MiB of memory, so say so from 1 GiB.
 */
static const char *dflt_tcp_wmem(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)buf, (void)len;
	return k->x86_64 && k->mem_bytes >= 1ULL << 30 ? "4096 16384 4194304" : NULL;
}

static const char *dflt_notsent_lowat(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)k, (void)buf, (void)len;
	return "4294967295"; /* UINT_MAX: no limit */
}

static const char *dflt_tcp_ecn(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)k, (void)buf, (void)len;
	return "2";
}

/* CONFIG_DEFAULT_NET_SCH: pfifo_fast unless the kernel's config names another. */
static const char *dflt_default_qdisc(const struct qd_kernel *k, char *buf, size_t len)
{
	if (!k->default_qdisc[0])
		return NULL;
	snprintf(buf, len, "%s", k->default_qdisc);
	return buf;
}

static const char *dflt_qdisc_max_burst(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)k, (void)buf, (void)len;
	return "1000";
}

/* The RFC v2 patch's default, in milliseconds. */
static const char *dflt_udp_bp_interval(const struct qd_kernel *k, char *buf, size_t len)
{
	(void)k, (void)buf, (void)len;
	return "100";
}

/*
 * SOCK_MIN_SNDBUF is 2 * (2048 + SKB_DATA_ALIGN(sizeof(struct sk_buff))),
 * 4608 on x86-64 (4607 is refused by 7.3); other architectures may differ
 * a little, and the kernel has the last word.
 */
#define MIN_SNDBUF 4608

const struct qd_sysctl qd_sysctls[] = {
	{ "net.core.wmem_default", QD_SYSCTL_INT, QD_SYSCTL_F_HOST, MIN_SNDBUF, INT_MAX,
	  "send buffer of new UDP/raw sockets: what one sender queues before it blocks",
	  dflt_wmem_default },
	{ "net.core.wmem_max", QD_SYSCTL_INT, QD_SYSCTL_F_HOST, MIN_SNDBUF, INT_MAX,
	  "largest SO_SNDBUF a socket may ask for (it gets twice that)", dflt_wmem_max },
	/* proc_dointvec: a negative value would compare as unsigned, i.e. no limit. */
	{ "net.ipv4.tcp_limit_output_bytes", QD_SYSCTL_INT, 0, 0, INT_MAX,
	  "TSQ: bytes one TCP socket may have in qdiscs and device rings", dflt_tcp_limit_output },
	/* extra1 = SYSCTL_ONE; the kernel does not insist on the order, qdiscctl does. */
	{ "net.ipv4.tcp_wmem", QD_SYSCTL_TRIPLE, QD_SYSCTL_F_SORTED, 1, INT_MAX,
	  "TCP send buffer autotuning: min, initial, max bytes", dflt_tcp_wmem },
	{ "net.ipv4.tcp_notsent_lowat", QD_SYSCTL_UINT, 0, 0, UINT_MAX,
	  "unsent bytes a TCP socket holds before its writer blocks", dflt_notsent_lowat },
	{ "net.ipv4.tcp_ecn", QD_SYSCTL_INT, QD_SYSCTL_F_ACCECN, 0, 5,
	  "0 off, 1 request ECN, 2 only accept it (3-5: AccECN variants)", dflt_tcp_ecn },
	{ "net.core.default_qdisc", QD_SYSCTL_STRING, QD_SYSCTL_F_HOST, 1, QD_SYSCTL_STRMAX,
	  "qdisc that new devices and mq leaves get; one for the host", dflt_default_qdisc },
	/*
	 * proc_dointvec, but the check is "queued > limit, drop": 0 or less
	 * drops every packet that finds the qdisc busy.
	 */
	{ "net.core.qdisc_max_burst", QD_SYSCTL_INT, QD_SYSCTL_F_HOST, 1, INT_MAX,
	  "packets that may wait for a busy qdisc; more are dropped before it",
	  dflt_qdisc_max_burst },
	/* Only on kernels carrying the never-merged Qdisc backpressure RFC v2. */
	{ "net.ipv4.udp_backpressure_interval", QD_SYSCTL_INT, 0, 0, INT_MAX,
	  "ms before a throttled UDP socket's send buffer regrows (RFC patch; 0 off)",
	  dflt_udp_bp_interval },
	{}
};

const struct qd_sysctl *qd_sysctl_find(const char *name)
{
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

int qd_kernel_parse_release(const char *release, struct qd_kernel *k)
{
	unsigned int major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return -EINVAL;
	k->major = major;
	k->minor = minor;
	return 0;
}

void qd_kernel_parse_config(const char *text, struct qd_kernel *k)
{
	static const char key[] = "CONFIG_DEFAULT_NET_SCH=\"";
	const char *p = text, *end;
	size_t n;

	snprintf(k->default_qdisc, sizeof(k->default_qdisc), "pfifo_fast");
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, sizeof(key) - 1))
			continue;
		p += sizeof(key) - 1;
		end = strchr(p, '"');
		n = end ? (size_t)(end - p) : 0;
		if (n && n < sizeof(k->default_qdisc))
			snprintf(k->default_qdisc, sizeof(k->default_qdisc), "%.*s", (int)n, p);
		return;
	}
}

void qd_sysctl_range(const struct qd_sysctl *s, const struct qd_kernel *k, long long *min,
		     long long *max)
{
	*min = s->min;
	*max = s->max;
	/* AccECN's modes 3-5 came with 6.19; 6.18 still refuses 3. */
	if ((s->flags & QD_SYSCTL_F_ACCECN) && !since(k, 6, 19))
		*max = 2;
}

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Decimal, an optional '-', nothing else: "1e3", "0x10" and "+5" are typos here. */
static int parse_ll(const char *tok, long long *out)
{
	const char *p = tok + (*tok == '-');
	char *end;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return -EINVAL;
	errno = 0;
	*out = strtoll(tok, &end, 10);
	return errno == ERANGE ? -ERANGE : 0;
}

int qd_sysctl_parse(const struct qd_sysctl *s, const struct qd_kernel *k, const char *text,
		    bool check, struct qd_sysctl_val *v, char *err, size_t errlen)
{
	char buf[QD_SYSCTL_TEXT * 2], *tok, *save = NULL;
	int want = s->type == QD_SYSCTL_TRIPLE ? 3 : 1, n = 0;
	long long min, max;

	memset(v, 0, sizeof(*v));
	if (strlen(text) >= sizeof(buf))
		return fail(err, errlen, -EINVAL, "\"%.20s...\" is too long for %s", text, s->name);
	strcpy(buf, text);

	if (s->type == QD_SYSCTL_STRING) {
		size_t len;

		tok = strtok_r(buf, " \t\n", &save);
		if (!tok)
			return fail(err, errlen, -EINVAL, "%s needs a qdisc name", s->name);
		if (strtok_r(NULL, " \t\n", &save))
			return fail(err, errlen, -EINVAL, "\"%s\" is not one word", text);
		len = strlen(tok);
		if (len > QD_SYSCTL_STRMAX)
			return fail(err, errlen, -ERANGE,
				    "\"%s\" is longer than a qdisc id (%d characters)", tok,
				    QD_SYSCTL_STRMAX);
		/* The kernel's set_default_qdisc takes any string; ids are words. */
		for (const char *p = tok; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
				return fail(err, errlen, -EINVAL, "\"%s\" is not a qdisc id", tok);
		strcpy(v->s, tok);
		return 0;
	}

	qd_sysctl_range(s, k, &min, &max);
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		long long x;
		int e;

		if (n == want)
			return fail(err, errlen, -EINVAL, "\"%s\": %s takes %d value%s", tok,
				    s->name, want, want > 1 ? "s" : "");
		e = parse_ll(tok, &x);
		if (e == -EINVAL)
			return fail(err, errlen, e, "\"%s\" is not a number", tok);
		if (e || (check && (x < min || x > max)))
			return fail(err, errlen, -ERANGE, "\"%s\" is outside %s's range %lld..%lld",
				    tok, s->name, min, max);
		v->v[n++] = x;
	}
	if (n < want)
		return fail(err, errlen, -EINVAL, "\"%s\": %s takes %d value%s", text, s->name,
			    want, want > 1 ? "s (min, initial, max)" : "");
	if (check && (s->flags & QD_SYSCTL_F_SORTED) && (v->v[0] > v->v[1] || v->v[1] > v->v[2]))
		return fail(err, errlen, -EINVAL, "\"%s\": %s wants min <= initial <= max", text,
			    s->name);
	return 0;
}

void qd_sysctl_format(const struct qd_sysctl *s, const struct qd_sysctl_val *v, char *buf,
		      size_t len)
{
	switch (s->type) {
	case QD_SYSCTL_STRING:
		snprintf(buf, len, "%s", v->s);
		break;
	case QD_SYSCTL_TRIPLE:
		snprintf(buf, len, "%lld %lld %lld", v->v[0], v->v[1], v->v[2]);
		break;
	default:
		snprintf(buf, len, "%lld", v->v[0]);
		break;
	}
}

const char *qd_sysctl_default(const struct qd_sysctl *s, const struct qd_kernel *k, char *buf,
			      size_t len)
{
	const char *d = s->dflt ? s->dflt(k, buf, len) : NULL;

	return d ? d : "kernel default";
}

/* --- /proc/sys ------------------------------------------------------ */

static void proc_path(const struct qd_sysctl_env *env, const char *name, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s/", env->proc_root);

	for (const char *p = name; *p && n + 1 < len; p++)
		buf[n++] = *p == '.' ? '/' : *p;
	if (n < len)
		buf[n] = '\0';
}

static bool proc_exists(const struct qd_sysctl_env *env, const char *name)
{
	char path[PATH_MAX];

	proc_path(env, name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* Reads a whole small file; -errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

int qd_sysctl_env_init(struct qd_sysctl_env *env)
{
	char path[PATH_MAX];
	struct utsname u;
	struct sysinfo si;
	socklen_t slen;
	unsigned long long cookie;
	char *config;
	struct stat st;
	int fd;

	memset(env, 0, sizeof(*env));
	env->proc_root = "/proc/sys";
	env->state_dir = "/run/qdiscctl";

	/*
	 * The namespace cookie, not the inode of /proc/self/ns/net: inodes
	 * are reused once a namespace is gone, cookies never are during a
	 * boot (and /run does not outlive one), so a save file cannot be
	 * restored into a later namespace by mistake.
	 */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	slen = sizeof(cookie);
	if (fd >= 0 && !getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &slen))
		snprintf(env->netns_id, sizeof(env->netns_id), "%llu", cookie);
	else if (!stat("/proc/self/ns/net", &st)) /* before 5.14 */
		snprintf(env->netns_id, sizeof(env->netns_id), "ino%llu",
			 (unsigned long long)st.st_ino);
	else
		snprintf(env->netns_id, sizeof(env->netns_id), "unknown");
	if (fd >= 0)
		close(fd);

	/*
	 * netdev_max_backlog has been an initial-namespace-only sysctl since
	 * namespaces exist, and exists wherever net.core does.
	 */
	env->init_netns = proc_exists(env, "net.core.netdev_max_backlog");

	if (!uname(&u)) {
		qd_kernel_parse_release(u.release, &env->kernel);
		env->kernel.x86_64 = !strcmp(u.machine, "x86_64");
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		config = malloc(1 << 20);
		if (config && !read_text(path, config, 1 << 20))
			qd_kernel_parse_config(config, &env->kernel);
		free(config);
	}
	if (!sysinfo(&si))
		env->kernel.mem_bytes = (unsigned long long)si.totalram * si.mem_unit;
	return 0;
}

int qd_sysctl_read(const struct qd_sysctl_env *env, const struct qd_sysctl *s, char *buf,
		   size_t len, bool *writable)
{
	char path[PATH_MAX], raw[256];
	struct stat st;
	size_t n = 0;
	int err;

	proc_path(env, s->name, path, sizeof(path));
	err = read_text(path, raw, sizeof(raw));
	if (err)
		return err;
	/* Canonical form: the kernel separates a vector's integers with tabs. */
	for (const char *p = raw; *p && n + 1 < len; p++) {
		if (isspace((unsigned char)*p)) {
			if (n && buf[n - 1] != ' ')
				buf[n++] = ' ';
		} else {
			buf[n++] = *p;
		}
	}
	if (n && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	if (writable)
		*writable = !stat(path, &st) && (st.st_mode & S_IWUSR);
	return 0;
}

static int write_file(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text)
{
	char path[PATH_MAX], line[QD_SYSCTL_TEXT + 1];
	ssize_t n;
	int fd, err = 0;

	proc_path(env, s->name, path, sizeof(path));
	/* No O_CREAT: a sysctl that is not there is not made up. O_TRUNC for tests' files. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%s\n", text);
	/* /proc/sys parses one write(); a short one would leave half a vector. */
	if (write(fd, line, n) != n)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int qd_sysctl_write(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text)
{
	errno = 0;
	return env->write ? env->write(env, s, text) : write_file(env, s, text);
}

const char *qd_sysctl_absent_why(const struct qd_sysctl_env *env, const struct qd_sysctl *s)
{
	if ((s->flags & QD_SYSCTL_F_HOST) && !env->init_netns)
		return "not in this network namespace";
	return "not available on this kernel";
}

/* --- the profile ---------------------------------------------------- */

/*
 * Backpressure holds a local sender's packets in the qdisc instead of
 * dropping them, so the sender blocks on its own send buffer. What that
 * costs the qdisc follows from the sizing rule (reference 3.3): a blocked
 * socket keeps about sndbuf / truesize packets queued, and a 1400-byte
 * datagram has a truesize of about 2.3 KB (0.55 bytes of packet per byte
 * of sndbuf). qdiscctl's default fifo holds 1000 packets. Each bound below
 * keeps a worst case inside that, so the qdisc never has to drop one of
 * them for lack of room. Rules only tighten: a value that already meets a
 * bound is kept, as Cilium does with its baselines.
 */
const struct qd_profile_rule qd_profile_backpressure[] = {
	/*
	 * 128 KiB: a sender blocks at about 57 datagrams (72 KB) in the
	 * qdisc, so 16 of them (the RFC's and issue's experiment) need 910
	 * packets and fit the default fifo limit; 72 KB is 0.6 ms at
	 * 1 Gbit/s. The kernel's 208 KiB would need 1300.
	 */
	{ "net.core.wmem_default", QD_RULE_AT_MOST, QD_BP_WMEM_DEFAULT },
	/*
	 * 1 MiB: SO_SNDBUF doubles it, so the greediest socket reaches
	 * 2 MiB, about 910 datagrams: still one fifo's default limit. 7.x's
	 * 4 MiB lets one socket claim 3640, most of the 4096 a fifo can
	 * ever hold.
	 */
	{ "net.core.wmem_max", QD_RULE_AT_MOST, QD_BP_WMEM_MAX },
	/*
	 * 1 MiB, the value of every kernel from 4.x to 6.15: TSQ stops a TCP
	 * socket at 1 MiB of truesize in qdisc and ring (about 455 MTU
	 * packets, half the fifo), without drops. 6.16's 4 MiB was sized for
	 * 200 Gbit/s NICs with nothing shaping in front of them.
	 */
	{ "net.ipv4.tcp_limit_output_bytes", QD_RULE_AT_MOST, QD_BP_TCP_LIMIT_OUTPUT },
	/*
	 * 128 KiB: behind a shaped queue the write queue would otherwise fill
	 * all of tcp_wmem's 4 MiB, seconds of latency the qdisc never sees;
	 * 128 KiB unsent still covers a millisecond of 1 Gbit/s.
	 */
	{ "net.ipv4.tcp_notsent_lowat", QD_RULE_AT_MOST, QD_BP_TCP_NOTSENT_LOWAT },
	/*
	 * Request ECN on outgoing connections, so a CE mark (edt's
	 * ce_threshold) cuts the sender's window instead of a drop. 3 and 4
	 * (AccECN) request it too and are kept.
	 */
	{ "net.ipv4.tcp_ecn", QD_RULE_ECN_OUT, QD_BP_TCP_ECN },
	{}
};

bool qd_profile_target(const struct qd_profile_rule *r, const struct qd_sysctl_val *cur,
		       struct qd_sysctl_val *target)
{
	*target = *cur;
	switch (r->kind) {
	case QD_RULE_AT_MOST:
		if (cur->v[0] <= r->value)
			return false;
		target->v[0] = r->value;
		return true;
	case QD_RULE_ECN_OUT:
		/* tcp_ecn_mode: 1 ECN/ECN, 3 AccECN/AccECN, 4 AccECN/ECN request on connect */
		if (cur->v[0] == 1 || cur->v[0] == 3 || cur->v[0] == 4)
			return false;
		target->v[0] = r->value;
		return true;
	}
	return false;
}

int qd_sysctl_plan(const struct qd_sysctl_env *env, const struct qd_profile_rule *rules,
		   struct qd_sysctl_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	for (const struct qd_profile_rule *r = rules; r->name; r++) {
		struct qd_sysctl_step *st = &plan->step[plan->n];
		const struct qd_sysctl *s = qd_sysctl_find(r->name);
		struct qd_sysctl_val cur, target;
		char path[PATH_MAX];
		bool writable;
		int e;

		if (!s || plan->n == QD_PROFILE_MAX)
			return fail(err, errlen, -EINVAL, "profile rule for \"%s\" is broken",
				    r->name);
		st->s = s;
		plan->n++;
		e = qd_sysctl_read(env, s, st->old, sizeof(st->old), &writable);
		if (e == -ENOENT) {
			st->action = QD_STEP_ABSENT;
			continue;
		}
		if (e)
			return fail(err, errlen, e, "cannot read %s: %s", s->name, strerror(-e));
		e = qd_sysctl_parse(s, &env->kernel, st->old, false, &cur, err, errlen);
		if (e)
			return fail(err, errlen, e, "%s reads \"%s\", which is not a value",
				    s->name, st->old);
		if (!qd_profile_target(r, &cur, &target)) {
			st->action = QD_STEP_KEEP;
			continue;
		}
		if (!writable) {
			st->action = QD_STEP_READONLY;
			continue;
		}
		/* The mode allows it; find out now whether this process may. */
		proc_path(env, s->name, path, sizeof(path));
		if (access(path, W_OK))
			return fail(err, errlen, -errno, "cannot write %s: %s", s->name,
				    strerror(errno));
		st->action = QD_STEP_SET;
		qd_sysctl_format(s, &target, st->new, sizeof(st->new));
		/* The profile's own values pass the checks set applies. */
		e = qd_sysctl_parse(s, &env->kernel, st->new, true, &target, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

/* --- the save file --------------------------------------------------- */

void qd_sysctl_save_path(const struct qd_sysctl_env *env, char *buf, size_t len)
{
	snprintf(buf, len, "%s/sysctl-%s.saved", env->state_dir, env->netns_id);
}

static const char save_header[] =
	"# qdiscctl: sysctl values from before \"qdiscctl sysctl apply\";\n"
	"# \"qdiscctl sysctl restore\" in the same network namespace writes them back.\n";

int qd_sysctl_saved_format(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv,
			   char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%snetns %s\n", save_header, env->netns_id);

	for (int i = 0; i < sv->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s %s\n", sv->e[i].s->name, sv->e[i].value);
	return n < len ? 0 : -ENOSPC;
}

int qd_sysctl_saved_parse(const struct qd_sysctl_env *env, const char *text,
			  struct qd_sysctl_saved *sv, char *err, size_t errlen)
{
	char line[256];
	bool have_netns = false;
	int lineno = 0;

	memset(sv, 0, sizeof(*sv));
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const struct qd_sysctl *s;
		struct qd_sysctl_val v;
		char *sp;

		lineno++;
		if (n >= sizeof(line))
			return fail(err, errlen, -EINVAL, "line %d is too long", lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL);
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		if (!sp)
			return fail(err, errlen, -EINVAL, "line %d: \"%s\" has no value", lineno,
				    line);
		*sp++ = '\0';
		if (!strcmp(line, "netns")) {
			/* A copied file must not set another namespace's values. */
			if (strcmp(sp, env->netns_id))
				return fail(
					err, errlen, -EINVAL,
					"it was saved in network namespace %s, not this one (%s)",
					sp, env->netns_id);
			have_netns = true;
			continue;
		}
		s = qd_sysctl_find(line);
		if (!s)
			return fail(err, errlen, -EINVAL, "line %d: \"%s\" is not a sysctl", lineno,
				    line);
		for (int i = 0; i < sv->n; i++)
			if (sv->e[i].s == s)
				return fail(err, errlen, -EINVAL, "line %d: %s twice", lineno,
					    s->name);
		if (sv->n == QD_PROFILE_MAX)
			return fail(err, errlen, -EINVAL, "line %d: too many values", lineno);
		if (qd_sysctl_parse(s, &env->kernel, sp, false, &v, NULL, 0))
			return fail(err, errlen, -EINVAL, "line %d: \"%s\" is not a value of %s",
				    lineno, sp, s->name);
		sv->e[sv->n].s = s;
		qd_sysctl_format(s, &v, sv->e[sv->n].value, sizeof(sv->e[sv->n].value));
		sv->n++;
	}
	if (!have_netns)
		return fail(err, errlen, -EINVAL, "it names no network namespace");
	return 0;
}

int qd_sysctl_saved_load(const struct qd_sysctl_env *env, struct qd_sysctl_saved *sv, char *err,
			 size_t errlen)
{
	char path[PATH_MAX], text[4096], why[QD_SYSCTL_ERR];
	int e;

	qd_sysctl_save_path(env, path, sizeof(path));
	e = qd_save_read(path, text, sizeof(text));
	if (e == -EPERM)
		return fail(err, errlen, e,
			    "%s is not qdiscctl's (a symlink, or another user's): not used", path);
	if (e)
		return fail(err, errlen, e, "cannot read %s: %s", path, strerror(-e));
	e = qd_sysctl_saved_parse(env, text, sv, why, sizeof(why));
	if (e)
		return fail(err, errlen, e, "%s: %s", path, why);
	return 0;
}

int qd_sysctl_saved_store(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv)
{
	char path[PATH_MAX], text[4096];

	if (qd_sysctl_saved_format(env, sv, text, sizeof(text)))
		return -ENOSPC;
	qd_sysctl_save_path(env, path, sizeof(path));
	return qd_save_write(path, text, false);
}

int qd_sysctl_saved_remove(const struct qd_sysctl_env *env)
{
	char path[PATH_MAX];

	qd_sysctl_save_path(env, path, sizeof(path));
	return unlink(path) ? -errno : 0;
}

int qd_sysctl_lock(const struct qd_sysctl_env *env)
{
	/* Only its user can open it, so nobody else can hold its lock. */
	int fd = qd_own_dir(env->state_dir, true, true);

	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX)) {
		int err = -errno;

		qd_err("cannot lock %s: %s", env->state_dir, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/* --- apply, restore --------------------------------------------------- */

/*
 * Put back the first n writes of steps (to their old values). What fails
 * is described in msg; returns the number of failures.
 */
static int roll_back(const struct qd_sysctl_env *env, const struct qd_sysctl_step *steps, int n,
		     char *msg, size_t len)
{
	size_t used = 0;
	int failed = 0;

	msg[0] = '\0';
	for (int i = n - 1; i >= 0; i--) {
		int e;

		if (steps[i].action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, steps[i].s, steps[i].old);
		if (!e)
			continue;
		failed++;
		if (used < len)
			used += snprintf(msg + used, len - used,
					 "; putting back %s=%s failed too: %s", steps[i].s->name,
					 steps[i].old, strerror(-e));
	}
	return failed;
}

/*
 * Write step failed with e: undo steps 0..step-1 and the save file. If
 * anything cannot be put back, the save file stays as written, since it
 * still holds the originals for a later restore.
 */
static int undo_apply(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan, int step,
		      const struct qd_sysctl_saved *prev, int e, char *err, size_t errlen)
{
	const struct qd_sysctl_step *st = &plan->step[step];
	char rb[QD_SYSCTL_ERR];

	if (roll_back(env, plan->step, step, rb, sizeof(rb)))
		return fail(err, errlen, e, "writing %s=%s failed: %s%s; the save file is kept",
			    st->s->name, st->new, strerror(-e), rb);
	if (prev)
		qd_sysctl_saved_store(env, prev);
	else
		qd_sysctl_saved_remove(env);
	return fail(err, errlen, e, "writing %s=%s failed: %s; nothing was changed", st->s->name,
		    st->new, strerror(-e));
}

int qd_sysctl_apply(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan, char *err,
		    size_t errlen)
{
	struct qd_sysctl_saved prev, merged;
	bool had_prev, changes = false;
	char why[QD_SYSCTL_ERR];
	int e;

	e = qd_sysctl_saved_load(env, &prev, why, sizeof(why));
	if (e && e != -ENOENT)
		return fail(err, errlen, e, "%s", why);
	had_prev = !e;
	if (!had_prev)
		memset(&prev, 0, sizeof(prev));

	/* What an earlier apply saved is the original; only add what is new. */
	merged = prev;
	for (int i = 0; i < plan->n; i++) {
		const struct qd_sysctl_step *st = &plan->step[i];
		bool known = false;

		if (st->action != QD_STEP_SET)
			continue;
		changes = true;
		for (int j = 0; j < merged.n; j++)
			known |= merged.e[j].s == st->s;
		if (known)
			continue;
		if (merged.n == QD_PROFILE_MAX)
			return fail(err, errlen, -ENOSPC, "too many values to save");
		merged.e[merged.n].s = st->s;
		snprintf(merged.e[merged.n].value, sizeof(merged.e[0].value), "%s", st->old);
		merged.n++;
	}
	if (!changes)
		return 0;
	if (merged.n != prev.n || !had_prev) {
		char path[PATH_MAX];

		e = qd_sysctl_saved_store(env, &merged);
		if (e) {
			qd_sysctl_save_path(env, path, sizeof(path));
			return fail(err, errlen, e, "cannot save the current values in %s: %s",
				    path, strerror(-e));
		}
	}

	for (int i = 0; i < plan->n; i++) {
		const struct qd_sysctl_step *st = &plan->step[i];

		if (st->action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, st->s, st->new);
		if (!e)
			continue;
		return undo_apply(env, plan, i, had_prev ? &prev : NULL, e, err, errlen);
	}
	return 0;
}

int qd_sysctl_restore(const struct qd_sysctl_env *env, struct qd_sysctl_plan *done, char *err,
		      size_t errlen)
{
	char path[PATH_MAX], why[QD_SYSCTL_ERR], rb[QD_SYSCTL_ERR] = "";
	struct qd_sysctl_saved sv;
	int e;

	memset(done, 0, sizeof(*done));
	e = qd_sysctl_saved_load(env, &sv, err, errlen);
	if (e == -ENOENT) {
		qd_sysctl_save_path(env, path, sizeof(path));
		return fail(err, errlen, e,
			    "nothing saved for this network namespace (no %s): apply first", path);
	}
	if (e)
		return e;

	/* Read everything first: a restore that cannot finish does not start. */
	for (int i = 0; i < sv.n; i++) {
		struct qd_sysctl_step *st = &done->step[done->n++];
		bool writable;

		st->s = sv.e[i].s;
		snprintf(st->new, sizeof(st->new), "%s", sv.e[i].value);
		e = qd_sysctl_read(env, st->s, st->old, sizeof(st->old), &writable);
		if (e)
			return fail(err, errlen, e, "cannot read %s: %s", st->s->name,
				    e == -ENOENT ? qd_sysctl_absent_why(env, st->s) : strerror(-e));
		st->action = strcmp(st->old, st->new) ? QD_STEP_SET : QD_STEP_KEEP;
		if (st->action != QD_STEP_SET)
			continue;
		if (!writable)
			return fail(err, errlen, -EACCES,
				    "%s is read-only in this network namespace", st->s->name);
		proc_path(env, st->s->name, path, sizeof(path));
		if (access(path, W_OK))
			return fail(err, errlen, -errno, "cannot write %s: %s", st->s->name,
				    strerror(errno));
	}
	for (int i = 0; i < done->n; i++) {
		struct qd_sysctl_step *st = &done->step[i];

		if (st->action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, st->s, st->new);
		if (!e)
			continue;
		snprintf(why, sizeof(why), "writing %s=%s failed: %s", st->s->name, st->new,
			 strerror(-e));
		if (roll_back(env, done->step, i, rb, sizeof(rb)))
			return fail(err, errlen, e, "%s%s; the save file is kept", why, rb);
		return fail(err, errlen, e, "%s; nothing was restored", why);
	}
	e = qd_sysctl_saved_remove(env);
	if (e) {
		qd_sysctl_save_path(env, path, sizeof(path));
		return fail(err, errlen, e, "restored, but cannot remove %s: %s", path,
			    strerror(-e));
	}
	return 0;
}
