// SPDX-License-Identifier: GPL-2.0
/*
 * udpflows: send UDP datagrams as many flows, for qdisc tests.
 *
 *   udpflows -d DST -p PORT [options]
 *
 *   -n N       datagrams to send in all (default 1; 0: until -t runs out)
 *   -t TIME    stop after TIME (e.g. 3s, 500ms); default no limit
 *   -k K       K sockets, used round robin (default 1); 0: a NEW socket per
 *              datagram, closed right after it (short-lived flows)
 *   -w W,W...  weights: in each round socket i sends Wi datagrams (-k K);
 *              the last weight repeats for the remaining sockets
 *   -r PPS     datagrams per second over all sockets (default: as fast as
 *              possible)
 *   -B N       the first N datagrams at once, then -r PPS from the time the
 *              burst ends (a queue that is long from the start)
 *   -l LEN     payload bytes (default 64)
 *   -s SPORT   bind source ports: socket i (or datagram i with -k 0) uses
 *              SPORT + i % SPAN; default: ephemeral ports
 *   -S SPAN    source ports used with -s (default: K, or 50000 with -k 0)
 *   -P NPORTS  destination ports PORT .. PORT+NPORTS-1: socket i (-k K) or
 *              datagram i (-k 0, and -U) goes to PORT + (i / SPAN) % NPORTS
 *              with -s, to PORT + i % NPORTS without (default 1)
 *   -U         unconnected sockets (sendto): fq treats them as orphans, keyed
 *              by the packet hash; default connected (keyed by socket)
 *   -b BYTES   SO_SNDBUFFORCE (a flood needs a big one to fill a queue)
 *   -q PRIO    SO_PRIORITY
 *   -e TOS     IP_TOS, ECN bits included (2: ECT(0), for CE-marking tests)
 *   -m BPS     SO_MAX_PACING_RATE in bytes/s
 *   -T DELAY   SO_TXTIME: stamp each datagram DELAY (ns, or 5ms, 2s ...)
 *              after the CLOCK_MONOTONIC time of its send
 *
 * Payload: u32 socket index, u32 0, u64 sequence number, zeros. At the end
 * (or on SIGINT/SIGTERM) one line on stdout:
 *   sent N bytes B errors E sockets S usecs T
 * where bytes counts payload, errors counts failed socket()/bind()/connect()/
 * send() calls (the first error is named on stderr), sockets counts sockets
 * opened and T is the time from the first to the last send. Exit status 0
 * when at least one datagram was sent, 1 otherwise.
 */
#include <fcntl.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif
#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct {
	struct in_addr dst;
	unsigned port, nports;
	uint64_t n;
	int64_t duration;
	unsigned k;
	unsigned *weights;
	unsigned nweights;
	uint64_t pps;
	uint64_t burst;
	unsigned len;
	unsigned sport, span;
	int unconnected;
	int sndbuf, prio, tos;
	int64_t txtime;
	int have_txtime;
	uint64_t pacing;
} o = { .port = 0, .nports = 1, .n = 1, .duration = -1, .k = 1, .len = 64, .sndbuf = -1, .prio = -1,
    .tos = -1 };

static uint64_t errors;
static int first_error_shown;

static void count_error(const char *what)
{
	errors++;
	if (!first_error_shown) {
		first_error_shown = 1;
		fprintf(stderr, "udpflows: first error: %s: %s\n", what, strerror(errno));
	}
}

static unsigned dst_port(uint64_t i)
{
	if (o.sport)
		return o.port + (unsigned)((i / o.span) % o.nports);
	return o.port + (unsigned)(i % o.nports);
}

/* Open socket number I (its index, or the datagram's with -k 0). -1 on error. */
static int open_socket(uint64_t i)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0) {
		count_error("socket");
		return -1;
	}
	if (o.sndbuf >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &o.sndbuf, sizeof(o.sndbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o.sndbuf, sizeof(o.sndbuf)))
		die("SO_SNDBUF: %s", strerror(errno));
	if (o.prio >= 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &o.prio, sizeof(o.prio)))
		die("SO_PRIORITY: %s", strerror(errno));
	if (o.tos >= 0 && setsockopt(fd, IPPROTO_IP, IP_TOS, &o.tos, sizeof(o.tos)))
		die("IP_TOS: %s", strerror(errno));
	if (o.pacing && setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &o.pacing, sizeof(o.pacing)))
		die("SO_MAX_PACING_RATE: %s", strerror(errno));
	if (o.have_txtime) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC, .flags = 0 };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			die("SO_TXTIME: %s", strerror(errno));
	}
	if (o.sport) {
		int one = 1;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_port = htons((uint16_t)(o.sport + i % o.span));
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			count_error("bind");
			close(fd);
			return -1;
		}
	}
	if (!o.unconnected) {
		sa.sin_addr = o.dst;
		sa.sin_port = htons((uint16_t)dst_port(i));
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			count_error("connect");
			close(fd);
			return -1;
		}
	}
	return fd;
}

static int send_one(int fd, uint64_t dst_index, char *buf)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = o.dst };
	char ctl[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = o.len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (o.unconnected) {
		sa.sin_port = htons((uint16_t)dst_port(dst_index));
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
	}
	if (o.have_txtime) {
		struct cmsghdr *cm;
		uint64_t t = mono_ns() + (uint64_t)o.txtime;

		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_TXTIME;
		cm->cmsg_len = CMSG_LEN(sizeof(t));
		memcpy(CMSG_DATA(cm), &t, sizeof(t));
	}
	if (sendmsg(fd, &mh, 0) < 0) {
		if (errno != EINTR || !stop)
			count_error("send");
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: udpflows -d DST -p PORT [-n N] [-t TIME] [-k K] [-w W,W...] [-r PPS]\n"
			"       [-l LEN] [-s SPORT] [-S SPAN] [-P NPORTS] [-U] [-b BYTES] [-q PRIO]\n"
			"       [-B N] [-e TOS] [-m BYTES_PER_S] [-T DELAY]\n");
	exit(255);
}

int main(int argc, char **argv)
{
	int c, have_dst = 0;
	char *buf;
	int *fds = NULL;
	uint64_t sent = 0, bytes = 0, sockets = 0, t_first = 0, t_last = 0, t_start, t_pace, deadline = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	prog_name = "udpflows";
	while ((c = getopt(argc, argv, "d:p:n:t:k:w:r:B:l:s:S:P:Ub:q:e:m:T:h")) != -1) {
		switch (c) {
		case 'd': parse_addr(optarg, &o.dst); have_dst = 1; break;
		case 'p': o.port = (unsigned)parse_u64("port", optarg); break;
		case 'n': o.n = parse_u64("count", optarg); break;
		case 't': o.duration = parse_time_ns("time", optarg); break;
		case 'k': o.k = (unsigned)parse_u64("sockets", optarg); break;
		case 'w': {
			char *s = strdup(optarg), *tok, *save = NULL;

			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				o.weights = realloc(o.weights, (o.nweights + 1) * sizeof(*o.weights));
				o.weights[o.nweights++] = (unsigned)parse_u64("weight", tok);
			}
			break;
		}
		case 'r': o.pps = parse_u64("rate", optarg); break;
		case 'B': o.burst = parse_u64("burst", optarg); break;
		case 'l': o.len = (unsigned)parse_u64("length", optarg); break;
		case 's': o.sport = (unsigned)parse_u64("source port", optarg); break;
		case 'S': o.span = (unsigned)parse_u64("span", optarg); break;
		case 'P': o.nports = (unsigned)parse_u64("ports", optarg); break;
		case 'U': o.unconnected = 1; break;
		case 'b': o.sndbuf = (int)parse_u64("sndbuf", optarg); break;
		case 'q': o.prio = (int)parse_u64("priority", optarg); break;
		case 'e': o.tos = (int)parse_u64("tos", optarg); break;
		case 'm': o.pacing = parse_u64("pacing rate", optarg); break;
		case 'T': o.txtime = parse_time_ns("txtime delay", optarg); o.have_txtime = 1; break;
		default: usage();
		}
	}
	if (!have_dst || !o.port || optind != argc || !o.nports || o.port + o.nports > 65536 ||
	    o.len > 65507 || (!o.n && o.duration < 0))
		usage();
	if (!o.span)
		o.span = o.k ? o.k : 50000;
	if (o.sport && o.sport + o.span > 65536)
		die("source ports %u + %u exceed 65535", o.sport, o.span);
	if (o.k) {
		struct rlimit rl = { o.k + 64, o.k + 64 };

		if (o.k > 1000 && setrlimit(RLIMIT_NOFILE, &rl))
			die("RLIMIT_NOFILE %u: %s", o.k + 64, strerror(errno));
		fds = calloc(o.k, sizeof(*fds));
		for (unsigned i = 0; i < o.k; i++) {
			fds[i] = open_socket(i);
			if (fds[i] < 0)
				die("cannot open socket %u", i);
			sockets++;
		}
	}
	buf = calloc(1, o.len < 16 ? 16 : o.len);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t_start = mono_ns();
	t_pace = t_start;
	if (o.duration >= 0)
		deadline = t_start + (uint64_t)o.duration;
	/* Round robin with weights: socket si sends w(si) datagrams, then the next. */
	unsigned si = 0, in_turn = 0;
	for (uint64_t i = 0; !stop && (!o.n || i < o.n); i++) {
		uint64_t now;
		int fd;

		if (o.burst && i == o.burst)
			t_pace = mono_ns();
		if (o.pps && i >= o.burst) {
			uint64_t due = t_pace + (uint64_t)((unsigned __int128)(i - o.burst) *
							   1000000000ull / o.pps);

			if (deadline && due >= deadline)
				break;
			sleep_until(due);
		}
		now = mono_ns();
		if (deadline && now >= deadline)
			break;
		if (o.k) {
			unsigned w = !o.nweights ? 1 : o.weights[si < o.nweights ? si : o.nweights - 1];

			while (in_turn >= w) {
				si = (si + 1) % o.k;
				in_turn = 0;
				w = !o.nweights ? 1 : o.weights[si < o.nweights ? si : o.nweights - 1];
			}
			in_turn++;
			fd = fds[si];
			((uint32_t *)buf)[0] = si;
		} else {
			fd = open_socket(i);
			if (fd < 0)
				continue;
			sockets++;
			((uint32_t *)buf)[0] = (uint32_t)i;
		}
		memcpy(buf + 8, &i, 8);
		if (send_one(fd, i, buf) == 0) {
			sent++;
			bytes += o.len;
			if (!t_first)
				t_first = now;
			t_last = mono_ns();
		}
		if (!o.k)
			close(fd);
	}
	printf("sent %llu bytes %llu errors %llu sockets %llu usecs %llu\n", (unsigned long long)sent,
	       (unsigned long long)bytes, (unsigned long long)errors, (unsigned long long)sockets,
	       (unsigned long long)(t_first ? (t_last - t_first) / 1000 : 0));
	return sent ? 0 : 1;
}
