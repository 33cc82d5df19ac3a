// SPDX-License-Identifier: GPL-2.0
/*
 * qstat: sample the counters of a device's root qdisc over rtnetlink, each
 * sample stamped with the CLOCK_MONOTONIC time it was taken, for rate and
 * backlog measurements that a shell loop around tc is too slow and too
 * coarse for.
 *
 *   qstat -d DEV [-i INTERVAL] [-t TIME | -n COUNT] [-s]
 *
 *   -d DEV       the device (in the current network namespace)
 *   -i INTERVAL  time between samples (default 100ms)
 *   -t TIME      sample for TIME (default: one sample)
 *   -n COUNT     take COUNT samples
 *   -s           summary only
 *
 * One line a sample:
 *   t_ns T bytes B packets P drops D overlimits O requeues R qlen Q backlog K
 * where T is the middle of the netlink request and reply. Then, with more
 * than one sample, a summary line:
 *   samples N max_qlen Q mean_qlen M max_backlog K rate_bps R
 * where M is the mean qlen over the samples and R the least-squares slope
 * of bytes over time, in bits/s (robust against where in a pacing burst a
 * single sample falls).
 */
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

struct sample {
	uint64_t t, bytes, packets;
	uint32_t drops, overlimits, requeues, qlen, backlog;
};

static int nl_fd;
static unsigned ifindex;
static uint32_t seq;

/* Walk the attributes in [a, end). */
#define for_attr(a, start, len)                                                   \
	for (struct rtattr *a = (struct rtattr *)(start); RTA_OK(a, (int)(len)); \
	     a = RTA_NEXT(a, len))

static void parse_stats2(void *data, unsigned len, struct sample *s)
{
	for_attr(a, data, len) {
		if (a->rta_type == TCA_STATS_BASIC && RTA_PAYLOAD(a) >= sizeof(struct gnet_stats_basic)) {
			struct gnet_stats_basic b;

			memcpy(&b, RTA_DATA(a), sizeof(b));
			s->bytes = b.bytes;
			s->packets = b.packets;
		} else if (a->rta_type == TCA_STATS_QUEUE &&
			   RTA_PAYLOAD(a) >= sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;

			memcpy(&q, RTA_DATA(a), sizeof(q));
			s->qlen = q.qlen;
			s->backlog = q.backlog;
			s->drops = q.drops;
			s->requeues = q.requeues;
			s->overlimits = q.overlimits;
		}
	}
}

/* One sample of the root qdisc of ifindex; 0 when found. */
static int take(struct sample *s)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETQDISC,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = ++seq },
		.tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex },
	};
	static char buf[1 << 16];
	uint64_t t0, t1;
	int found = 0, done = 0;

	t0 = mono_ns();
	if (send(nl_fd, &req, sizeof(req), 0) < 0)
		die("netlink send: %s", strerror(errno));
	while (!done) {
		ssize_t n = recv(nl_fd, buf, sizeof(buf), 0);
		unsigned len;

		if (n < 0)
			die("netlink recv: %s", strerror(errno));
		len = (unsigned)n;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc;
			unsigned alen;

			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR)
				die("netlink error %d", ((struct nlmsgerr *)NLMSG_DATA(nh))->error);
			if (nh->nlmsg_type != RTM_NEWQDISC)
				continue;
			tc = NLMSG_DATA(nh);
			if ((unsigned)tc->tcm_ifindex != ifindex || tc->tcm_parent != TC_H_ROOT)
				continue;
			alen = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc));
			for_attr(a, (char *)tc + NLMSG_ALIGN(sizeof(*tc)), alen) {
				if (a->rta_type == TCA_STATS2) {
					parse_stats2(RTA_DATA(a), RTA_PAYLOAD(a), s);
					found = 1;
				}
			}
		}
	}
	t1 = mono_ns();
	s->t = t0 + (t1 - t0) / 2;
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int64_t interval = 100000000, duration = -1;
	uint64_t count = 1, n = 0;
	int summary = 0, c;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint32_t max_qlen = 0, max_backlog = 0;
	uint64_t sum_qlen = 0;
	/* Sums for the least-squares slope, in seconds and bytes from the first sample. */
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	struct sample first = { 0 };

	prog_name = "qstat";
	while ((c = getopt(argc, argv, "d:i:t:n:s")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'i': interval = parse_time_ns("interval", optarg); break;
		case 't': duration = parse_time_ns("time", optarg); count = 0; break;
		case 'n': count = parse_u64("count", optarg); break;
		case 's': summary = 1; break;
		default:
			fprintf(stderr, "usage: qstat -d DEV [-i INTERVAL] [-t TIME | -n COUNT] [-s]\n");
			return 255;
		}
	}
	if (!dev || optind != argc || interval <= 0)
		die("need -d DEV");
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die("no device %s", dev);
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("netlink: %s", strerror(errno));

	uint64_t start = mono_ns();
	for (;;) {
		struct sample s = { 0 };
		double x, y;

		if (take(&s))
			die("%s has no root qdisc", dev);
		if (!n)
			first = s;
		n++;
		if (!summary)
			printf("t_ns %llu bytes %llu packets %llu drops %u overlimits %u requeues %u qlen %u backlog %u\n",
			       (unsigned long long)s.t, (unsigned long long)s.bytes,
			       (unsigned long long)s.packets, s.drops, s.overlimits, s.requeues, s.qlen,
			       s.backlog);
		if (s.qlen > max_qlen)
			max_qlen = s.qlen;
		sum_qlen += s.qlen;
		if (s.backlog > max_backlog)
			max_backlog = s.backlog;
		x = (double)(s.t - first.t) / 1e9;
		y = (double)(s.bytes - first.bytes);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		if (count && n >= count)
			break;
		uint64_t next = start + n * (uint64_t)interval;
		if (duration >= 0 && next > start + (uint64_t)duration)
			break;
		sleep_until(next);
	}
	if (n > 1) {
		double den = (double)n * sxx - sx * sx;
		double slope = den > 0 ? ((double)n * sxy - sx * sy) / den : 0;

		printf("samples %llu max_qlen %u mean_qlen %.1f max_backlog %u rate_bps %.0f\n",
		       (unsigned long long)n, max_qlen, (double)sum_qlen / (double)n, max_backlog, slope * 8);
	}
	return 0;
}
