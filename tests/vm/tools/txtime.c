// SPDX-License-Identifier: GPL-2.0
/*
 * txtime: send UDP datagrams with an SO_TXTIME departure time, for the EDT
 * and horizon tests of fq-like qdiscs.
 *
 *   txtime -d DST -p PORT -D DELAY [options]
 *
 *   -D DELAY  each datagram's departure time is the clock's time at its send
 *             plus DELAY (ns, or 10ms, 5s ...; negative: in the past)
 *   -n N      datagrams (default 1), all from one connected socket
 *   -g GAP    pause GAP between datagrams (default none)
 *   -l LEN    payload bytes (default 64)
 *   -s SPORT  bind this source port (default ephemeral)
 *   -c CLOCK  mono (default), tai or real: the SO_TXTIME clock
 *   -b BYTES  SO_SNDBUFFORCE
 *
 * Payload: zeros, with the sequence number as u64 at offset 8 (when LEN is
 * at least 16), as udpflows sends it. One line on stdout at the end:
 *   sent N errors E first_send_ns S last_send_ns L
 * with CLOCK_MONOTONIC send times (compare them with udpsink's first_ns and
 * last_ns to see how long the qdisc held the datagrams). Exit status 0 when
 * every datagram was sent.
 */
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };
	unsigned port = 0, sport = 0, len = 64;
	uint64_t n = 1, sent = 0, errors = 0, t_first = 0, t_last = 0;
	int64_t delay = 0, gap = 0;
	int have_delay = 0, have_dst = 0, sndbuf = -1, c, fd;
	char *buf;

	prog_name = "txtime";
	while ((c = getopt(argc, argv, "d:p:D:n:g:l:s:c:b:")) != -1) {
		switch (c) {
		case 'd': parse_addr(optarg, &sa.sin_addr); have_dst = 1; break;
		case 'p': port = (unsigned)parse_u64("port", optarg); break;
		case 'D': delay = parse_time_ns("delay", optarg); have_delay = 1; break;
		case 'n': n = parse_u64("count", optarg); break;
		case 'g': gap = parse_time_ns("gap", optarg); break;
		case 'l': len = (unsigned)parse_u64("length", optarg); break;
		case 's': sport = (unsigned)parse_u64("source port", optarg); break;
		case 'b': sndbuf = (int)parse_u64("sndbuf", optarg); break;
		case 'c':
			if (!strcmp(optarg, "mono"))
				st.clockid = CLOCK_MONOTONIC;
			else if (!strcmp(optarg, "tai"))
				st.clockid = CLOCK_TAI;
			else if (!strcmp(optarg, "real"))
				st.clockid = CLOCK_REALTIME;
			else
				die("bad clock: %s", optarg);
			break;
		default:
			fprintf(stderr, "usage: txtime -d DST -p PORT -D DELAY [-n N] [-g GAP] [-l LEN] [-s SPORT]\n"
					"       [-c mono|tai|real] [-b BYTES]\n");
			return 255;
		}
	}
	if (!have_dst || !port || port > 65535 || !have_delay || optind != argc || len > 65507 || gap < 0)
		die("need -d DST -p PORT -D DELAY");

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (sndbuf >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		die("SO_SNDBUFFORCE: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
		die("SO_TXTIME: %s", strerror(errno));
	if (sport) {
		struct sockaddr_in b = { .sin_family = AF_INET, .sin_port = htons((uint16_t)sport) };

		if (bind(fd, (struct sockaddr *)&b, sizeof(b)))
			die("bind %u: %s", sport, strerror(errno));
	}
	sa.sin_port = htons((uint16_t)port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect: %s", strerror(errno));
	buf = calloc(1, len < 16 ? 16 : len);
	if (len < 16)
		len = 16;

	for (uint64_t i = 0; i < n; i++) {
		char ctl[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		uint64_t t0, stamp;

		if (i && gap)
			sleep_until(t_last + (uint64_t)gap);
		t0 = mono_ns();
		stamp = (uint64_t)((int64_t)now_ns(st.clockid) + delay);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_TXTIME;
		cm->cmsg_len = CMSG_LEN(sizeof(stamp));
		memcpy(CMSG_DATA(cm), &stamp, sizeof(stamp));
		memcpy(buf + 8, &i, sizeof(i));
		if (sendmsg(fd, &mh, 0) < 0) {
			if (!errors)
				fprintf(stderr, "txtime: send: %s\n", strerror(errno));
			errors++;
			continue;
		}
		sent++;
		if (!t_first)
			t_first = t0;
		t_last = t0;
	}
	printf("sent %llu errors %llu first_send_ns %llu last_send_ns %llu\n", (unsigned long long)sent,
	       (unsigned long long)errors, (unsigned long long)t_first, (unsigned long long)t_last);
	return errors ? 1 : 0;
}
