// SPDX-License-Identifier: GPL-2.0
/*
 * httpbad: malformed HTTP requests, one a connection, for the exporter test.
 *
 *   httpbad -a ADDR -p PORT -n COUNT [-s]
 *
 * -s: first one connection that sends nothing and waits for the answer.
 * Cycles through requests a server must refuse (garbage, other methods,
 * no version, a NUL byte, headers beyond 8 KB, a request cut off by
 * closing, a binary blob) and reads each answer to its end. One line at
 * the end:
 *   sent N status S1=C1 S2=C2 ... closed C
 * where closed counts connections answered with nothing. Exit 1 when a
 * connection could not be made.
 */
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

static const char *const reqs[] = {
	"garbage\r\n\r\n",
	"POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
	"GET /metrics\r\n\r\n",
	"GET /metrics HTTP/1.1 extra\r\n\r\n",
	"GET /metrics SPDY/3\r\n\r\n",
	"GET /../../etc/passwd HTTP/1.1\r\n\r\n",
	"DELETE / HTTP/1.0\r\n\r\n",
	"\r\n\r\n",
	"GET /metrics HTTP/1.1\r\nHost: x", /* cut off: the client closes its side */
	NULL,				    /* a NUL byte in the request line */
	NULL,				    /* headers beyond 8 KB */
};

int main(int argc, char **argv)
{
	static char big[20000], buf[4096];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long count = 0, sent = 0, closed = 0, codes[1000] = { 0 };
	int opt, silent = 0;

	prog_name = "httpbad";
	while ((opt = getopt(argc, argv, "a:p:n:s")) != -1) {
		switch (opt) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &sa.sin_addr) != 1)
				die("bad address %s", optarg);
			break;
		case 'p':
			sa.sin_port = htons(atoi(optarg));
			break;
		case 'n':
			count = atol(optarg);
			break;
		case 's':
			silent = 1;
			break;
		default:
			die("usage: httpbad -a ADDR -p PORT -n COUNT");
		}
	}
	memcpy(big, "GET /metrics HTTP/1.1\r\n", 23);
	for (size_t i = 23; i < sizeof(big) - 1; i += 20)
		memcpy(big + i, "X-Pad: aaaaaaaaaaa\r\n", 20 < sizeof(big) - 1 - i ? 20 : sizeof(big) - 1 - i);
	for (long i = -silent; i < count; i++) {
		size_t k = i < 0 ? 0 : i % (sizeof(reqs) / sizeof(reqs[0]));
		const char *r = reqs[k];
		size_t len, got = 0;
		ssize_t n;
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die("connect %ld: %s", i, strerror(errno));
		if (i < 0) {
			r = "";
			len = 0;
		} else if (k == 9) {
			r = "GET /met\0rics HTTP/1.1\r\n\r\n";
			len = 26;
		} else if (k == 10) {
			r = big;
			len = sizeof(big) - 1;
		} else {
			len = strlen(r);
		}
		/* The server may answer and close before it has read it all. */
		if (len)
			(void)!write(fd, r, len);
		if (k == 8 && i >= 0)
			shutdown(fd, SHUT_WR);
		sent += i >= 0;
		while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0 && got < sizeof(buf) - 1)
			got += n;
		buf[got] = '\0';
		if (got >= 12 && !strncmp(buf, "HTTP/1.1 ", 9))
			codes[atoi(buf + 9) % 1000]++;
		else
			closed++;
		close(fd);
	}
	printf("sent %ld status", sent);
	for (int c = 0; c < 1000; c++)
		if (codes[c])
			printf(" %d=%ld", c, codes[c]);
	printf(" closed %ld\n", closed);
	return 0;
}
