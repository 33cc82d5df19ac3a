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
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysctl/sysctl.h"

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

int qd_sysctl_err(char *err, size_t len, int ret, const char *fmt, ...)
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
		return qd_sysctl_err(err, errlen, -EINVAL, "\"%.20s...\" is too long for %s", text,
				     s->name);
	strcpy(buf, text);

	if (s->type == QD_SYSCTL_STRING) {
		size_t len;

		tok = strtok_r(buf, " \t\n", &save);
		if (!tok)
			return qd_sysctl_err(err, errlen, -EINVAL, "%s needs a qdisc name",
					     s->name);
		if (strtok_r(NULL, " \t\n", &save))
			return qd_sysctl_err(err, errlen, -EINVAL, "\"%s\" is not one word", text);
		len = strlen(tok);
		if (len > QD_SYSCTL_STRMAX)
			return qd_sysctl_err(err, errlen, -ERANGE,
					     "\"%s\" is longer than a qdisc id (%d characters)",
					     tok, QD_SYSCTL_STRMAX);
		/* The kernel's set_default_qdisc takes any string; ids are words. */
		for (const char *p = tok; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
				return qd_sysctl_err(err, errlen, -EINVAL,
						     "\"%s\" is not a qdisc id", tok);
		strcpy(v->s, tok);
		return 0;
	}

	qd_sysctl_range(s, k, &min, &max);
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		long long x;
		int e;

		if (n == want)
			return qd_sysctl_err(err, errlen, -EINVAL, "\"%s\": %s takes %d value%s",
					     tok, s->name, want, want > 1 ? "s" : "");
		e = parse_ll(tok, &x);
		if (e == -EINVAL)
			return qd_sysctl_err(err, errlen, e, "\"%s\" is not a number", tok);
		if (e || (check && (x < min || x > max)))
			return qd_sysctl_err(err, errlen, -ERANGE,
					     "\"%s\" is outside %s's range %lld..%lld", tok,
					     s->name, min, max);
		v->v[n++] = x;
	}
	if (n < want)
		return qd_sysctl_err(err, errlen, -EINVAL, "\"%s\": %s takes %d value%s", text,
				     s->name, want, want > 1 ? "s (min, initial, max)" : "");
	if (check && (s->flags & QD_SYSCTL_F_SORTED) && (v->v[0] > v->v[1] || v->v[1] > v->v[2]))
		return qd_sysctl_err(err, errlen, -EINVAL, "\"%s\": %s wants min <= initial <= max",
				     text, s->name);
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
