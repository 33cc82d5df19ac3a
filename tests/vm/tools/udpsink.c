// SPDX-License-Identifier: GPL-2.0
/*
 * udpsink: receive UDP datagrams and count them per flow, for qdisc tests.
 *
 *   udpsink -p PORT [options]
 *
 *   -P NPORTS  listen on PORT .. PORT+NPORTS-1 (default 1)
 *   -t TIME    stop TIME after the start (e.g. 5s; default no limit)
 *   -i TIME    stop when nothing arrived for TIME, once something has
 *   -c COUNT   stop after COUNT datagrams
 *   -W N       per-flow rate from the flow's N-th datagram on (default 0),
 *              so that an initial burst does not count
 *   -S TIME    count nothing that arrives within TIME of the very first
 *              datagram (of any flow): every flow is then counted over the
 *              same window, after the start-up transient
 *   -H BYTES   add BYTES to every datagram's size (42: Ethernet + IPv4 + UDP
 *              headers, i.e. what a qdisc counts)
 *   -b BYTES   SO_RCVBUFFORCE (default 8 MB)
 *   -r FILE    create FILE once the sockets are bound (readiness)
 *   -q         summary only, no line per flow
 *
 * A flow is (source address, source port, destination port). At the end,
 * or on SIGINT/SIGTERM, one line per flow, sorted by destination and source
 * port:
 *   flow ADDR:SPORT dport DPORT pkts N bytes B first_ns F last_ns L rate_bps R lsq_bps S ooo O
 * then
 *   total pkts N bytes B flows F rxdrops D first_ns F last_ns L
 * Times are CLOCK_MONOTONIC ns when the datagram was read; rate_bps is
 * bytes * 8 over the flow's datagrams after its N-th (-W), divided by the
 * time from its N-th to its last datagram (0 when that is not defined);
 * lsq_bps is the least-squares slope of the bytes received after the N-th
 * datagram over time, in bits/s (robust against pacing bursts);
 * ooo counts datagrams whose sequence number (the u64 at payload offset 8,
 * as udpflows and txtime send it) is below one seen before (reordering);
 * rxdrops is what the sockets' receive queues dropped (SO_RXQ_OVFL).
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

struct flow {
	uint64_t key; /* addr << 32 | sport << 16 | dport; 0: empty */
	uint64_t pkts, bytes, first, last, warm_t, warm_bytes;
	/* Least-squares sums over the datagrams after the warm-up: seconds
	 * since warm_t against bytes received since then. */
	double sx, sy, sxx, sxy;
	uint64_t ln;
	uint64_t next_seq, ooo; /* the sequence number expected next; datagrams that went back */
};

static struct flow *tab;
static size_t tab_size = 1024, nflows;

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static size_t slot_of(uint64_t key, size_t size)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (size - 1);
}

static struct flow *lookup(uint64_t key)
{
	size_t i;

	if (2 * (nflows + 1) > tab_size) {
		struct flow *old = tab;
		size_t old_size = tab_size;

		tab_size *= 2;
		tab = calloc(tab_size, sizeof(*tab));
		if (!tab)
			die("out of memory");
		for (size_t j = 0; j < old_size; j++) {
			if (!old[j].key)
				continue;
			for (i = slot_of(old[j].key, tab_size); tab[i].key; i = (i + 1) & (tab_size - 1))
				;
			tab[i] = old[j];
		}
		free(old);
	}
	for (i = slot_of(key, tab_size); tab[i].key; i = (i + 1) & (tab_size - 1))
		if (tab[i].key == key)
			return &tab[i];
	tab[i].key = key;
	nflows++;
	return &tab[i];
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	uint64_t kx = (x->key & 0xffff) << 48 | (x->key >> 16 & 0xffff) << 32 | x->key >> 32;
	uint64_t ky = (y->key & 0xffff) << 48 | (y->key >> 16 & 0xffff) << 32 | y->key >> 32;

	return kx < ky ? -1 : kx > ky;
}


static unsigned port, overhead;
static uint64_t warm, count, total, total_bytes, t_first, t_last, skip_ns, t_begin;
static uint32_t *ovfl;

/* Read every datagram waiting on the sockets that poll marked (all: every socket). */
static void drain(struct pollfd *pfd, unsigned nports, int all)
{
	static char buf[65536];

	for (unsigned i = 0; i < nports; i++) {
		if (!all && !(pfd[i].revents & POLLIN))
			continue;
		for (;;) {
			struct sockaddr_in from;
			char ctl[CMSG_SPACE(sizeof(uint32_t))];
			struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
			struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
					     .msg_iov = &iov, .msg_iovlen = 1,
					     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
			ssize_t n = recvmsg(pfd[i].fd, &mh, MSG_DONTWAIT);
			struct cmsghdr *cm;
			struct flow *f;
			uint64_t t, key;

			if (n < 0)
				break;
			t = mono_ns();
			if (!t_begin)
				t_begin = t;
			if (t < t_begin + skip_ns)
				continue;
			for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
				if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL)
					memcpy(&ovfl[i], CMSG_DATA(cm), sizeof(uint32_t));
			key = (uint64_t)ntohl(from.sin_addr.s_addr) << 32 | (uint64_t)ntohs(from.sin_port) << 16 |
			      (port + i);
			f = lookup(key);
			if (n >= 16) {
				uint64_t seq;

				memcpy(&seq, buf + 8, sizeof(seq));
				if (f->pkts && seq < f->next_seq)
					f->ooo++;
				else
					f->next_seq = seq + 1;
			}
			n += overhead;
			if (!f->pkts)
				f->first = t;
			f->pkts++;
			f->bytes += (uint64_t)n;
			f->last = t;
			if (f->pkts == warm + 1)
				f->warm_t = t;
			else if (f->pkts > warm + 1)
				f->warm_bytes += (uint64_t)n;
			if (f->pkts >= warm + 1) {
				double x = (double)(t - f->warm_t) / 1e9, y = (double)f->warm_bytes;

				f->ln++;
				f->sx += x;
				f->sy += y;
				f->sxx += x * x;
				f->sxy += x * y;
			}
			total++;
			total_bytes += (uint64_t)n;
			if (!t_first)
				t_first = t;
			t_last = t;
			if (count && total >= count)
				return;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned nports = 1, quiet = 0;
	int64_t duration = -1, idle = -1;
	int rcvbuf = 8 << 20, c;
	const char *ready = NULL;
	struct pollfd *pfd;
	uint64_t t_start, rxdrops = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	prog_name = "udpsink";
	while ((c = getopt(argc, argv, "p:P:t:i:c:W:S:H:b:r:q")) != -1) {
		switch (c) {
		case 'p': port = (unsigned)parse_u64("port", optarg); break;
		case 'P': nports = (unsigned)parse_u64("ports", optarg); break;
		case 't': duration = parse_time_ns("time", optarg); break;
		case 'i': idle = parse_time_ns("idle time", optarg); break;
		case 'c': count = parse_u64("count", optarg); break;
		case 'W': warm = parse_u64("warm-up", optarg); break;
		case 'S': skip_ns = (uint64_t)parse_time_ns("skip time", optarg); break;
		case 'H': overhead = (unsigned)parse_u64("overhead", optarg); break;
		case 'b': rcvbuf = (int)parse_u64("rcvbuf", optarg); break;
		case 'r': ready = optarg; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: udpsink -p PORT [-P NPORTS] [-t TIME] [-i TIME] [-c COUNT] [-W N] [-S TIME]\n"
					"       [-H BYTES] [-b BYTES] [-r FILE] [-q]\n");
			return 255;
		}
	}
	if (!port || !nports || port + nports > 65536 || optind != argc)
		die("need -p PORT (and PORT + NPORTS <= 65536)");
	tab = calloc(tab_size, sizeof(*tab));
	pfd = calloc(nports, sizeof(*pfd));
	ovfl = calloc(nports, sizeof(*ovfl));
	for (unsigned i = 0; i < nports; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(port + i)) };
		int one = 1, fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

		if (fd < 0)
			die("socket: %s", strerror(errno));
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
			die("bind port %u: %s", port + i, strerror(errno));
		pfd[i].fd = fd;
		pfd[i].events = POLLIN;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f)
			die("%s: %s", ready, strerror(errno));
		fclose(f);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t_start = mono_ns();
	while (!stop && (!count || total < count)) {
		uint64_t now = mono_ns();
		int64_t wait = 100; /* ms; re-check the limits at least this often */

		if (duration >= 0 && now >= t_start + (uint64_t)duration)
			break;
		if (idle >= 0 && t_last && now >= t_last + (uint64_t)idle)
			break;
		if (poll(pfd, nports, (int)wait) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		drain(pfd, nports, 0);
	}
	/* Whatever arrived before the stop is still counted. */
	if (!count || total < count)
		drain(pfd, nports, 1);
	for (unsigned i = 0; i < nports; i++)
		rxdrops += ovfl[i];

	/* Compact and sort the table for a stable report. */
	size_t m = 0;
	for (size_t j = 0; j < tab_size; j++)
		if (tab[j].key)
			tab[m++] = tab[j];
	qsort(tab, m, sizeof(*tab), cmp_flow);
	if (!quiet) {
		for (size_t j = 0; j < m; j++) {
			struct flow *f = &tab[j];
			struct in_addr a = { htonl((uint32_t)(f->key >> 32)) };
			uint64_t rate = 0;
			double den = (double)f->ln * f->sxx - f->sx * f->sx, lsq = 0;

			if (f->pkts > warm + 1 && f->last > f->warm_t)
				rate = (uint64_t)((unsigned __int128)f->warm_bytes * 8000000000ull /
						  (f->last - f->warm_t));
			if (f->ln > 2 && den > 0)
				lsq = 8 * ((double)f->ln * f->sxy - f->sx * f->sy) / den;
			printf("flow %s:%u dport %u pkts %llu bytes %llu first_ns %llu last_ns %llu rate_bps %llu "
			       "lsq_bps %.0f ooo %llu\n",
			       inet_ntoa(a), (unsigned)(f->key >> 16 & 0xffff), (unsigned)(f->key & 0xffff),
			       (unsigned long long)f->pkts, (unsigned long long)f->bytes,
			       (unsigned long long)f->first, (unsigned long long)f->last,
			       (unsigned long long)rate, lsq, (unsigned long long)f->ooo);
		}
	}
	printf("total pkts %llu bytes %llu flows %zu rxdrops %llu first_ns %llu last_ns %llu\n",
	       (unsigned long long)total, (unsigned long long)total_bytes, m, (unsigned long long)rxdrops,
	       (unsigned long long)t_first, (unsigned long long)t_last);
	return 0;
}
