// SPDX-License-Identifier: GPL-2.0
/*
 * exporter: one HTTP request on stdin, its answer on stdout, the way
 * systemd's socket activation with Accept=yes (qdiscctl-exporter.socket)
 * or inetd hand over a connection: GET /metrics gets what `metrics`
 * prints. systemd listens (localhost by default) and bounds the
 * connections (MaxConnections=); this process reads at most
 * EXPORTER_REQ_MAX bytes within EXPORTER_TIMEOUT_MS into a fixed buffer,
 * answers once and exits, so nothing a client sends sizes an allocation
 * or outlives its connection. libmicrohttpd would have served it too, but
 * bookworm's libmicrohttpd.a needs gnutls, and even built without HTTPS
 * its 137 KB of code would not fit the 2 MB the static binary may take.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/metrics.h"
#include "core/instance.h"
#include "lib/common.h"

#define EXPORTER_REQ_MAX    8192 /* request line and headers */
#define EXPORTER_TIMEOUT_MS 5000 /* for the whole request to arrive */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/* A status line and its headers, with body (len bytes) when not NULL. */
static int answer(const char *status, const char *extra, const char *type, const char *body,
		  size_t len)
{
	char head[512];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		     "Connection: close\r\n\r\n",
		     status, type, len, extra ? extra : "");
	if (write_all(STDOUT_FILENO, head, n) || (body && write_all(STDOUT_FILENO, body, len)))
		return QD_EXIT_FAIL;
	return QD_EXIT_OK;
}

static int error(const char *status, const char *extra)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%s\n", status);

	return answer(status, extra, "text/plain; charset=utf-8", body, n);
}

/*
 * Read until the blank line that ends the headers: its length, 0 when the
 * buffer filled first, -ETIMEDOUT, -EBADMSG for a NUL byte or an end
 * before the blank line, or -errno (the client went).
 */
static ssize_t read_request(char *buf, size_t size)
{
	uint64_t deadline = qd_inst_now() + EXPORTER_TIMEOUT_MS * 1000000ULL;
	size_t len = 0;

	while (len < size - 1) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		uint64_t now = qd_inst_now();
		ssize_t n;
		char *end;

		if (now >= deadline)
			return -ETIMEDOUT;
		n = poll(&p, 1, (deadline - now) / 1000000 + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ETIMEDOUT;
		n = read(STDIN_FILENO, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		/* A client that stops sending mid-request may still read the answer. */
		if (n <= 0)
			return n ? -errno : -EBADMSG;
		len += n;
		buf[len] = '\0';
		/* A NUL in a request is malformed: strstr would stop at it. */
		if (memchr(buf, '\0', len))
			return -EBADMSG;
		if ((end = strstr(buf, "\r\n\r\n")) || (end = strstr(buf, "\n\n")))
			return end - buf + 1;
	}
	return 0;
}

static int serve(const struct metrics_scope *sc)
{
	static char req[EXPORTER_REQ_MAX];
	char *method, *target, *version, *save, *body = NULL;
	size_t len = 0;
	ssize_t n = read_request(req, sizeof(req));
	FILE *f;
	int ret;

	if (n == 0)
		return error("431 Request Header Fields Too Large", NULL);
	if (n == -ETIMEDOUT)
		return error("408 Request Timeout", NULL);
	if (n == -EBADMSG)
		return error("400 Bad Request", NULL);
	if (n < 0)
		return QD_EXIT_FAIL;
	req[strcspn(req, "\r\n")] = '\0';
	method = strtok_r(req, " ", &save);
	target = strtok_r(NULL, " ", &save);
	version = strtok_r(NULL, " ", &save);
	if (!method || !target || !version || strtok_r(NULL, " ", &save) ||
	    strncmp(version, "HTTP/1.", 7))
		return error("400 Bad Request", NULL);
	if (strcmp(method, "GET"))
		return error("405 Method Not Allowed", "Allow: GET\r\n");
	if (strcmp(target, "/metrics") && strncmp(target, "/metrics?", 9))
		return error("404 Not Found", NULL);
	/* The body's size follows the qdiscs there are, not the request. */
	if (!(f = open_memstream(&body, &len)))
		return error("500 Internal Server Error", NULL);
	ret = metrics_write(f, sc);
	if (fclose(f))
		ret = -1;
	ret = ret ? error("500 Internal Server Error", NULL)
		  : answer("200 OK", NULL, "text/plain; version=0.0.4; charset=utf-8", body, len);
	free(body);
	return ret;
}

/*
 * Closing with unread bytes (a request beyond the buffer) would reset the
 * connection and could take the answer with it: say the end, then read
 * what is left, a bounded amount for a bounded time.
 */
static void linger(void)
{
	uint64_t deadline = qd_inst_now() + 1000000000ULL;
	size_t left = 16 * EXPORTER_REQ_MAX;
	char buf[4096];

	shutdown(STDOUT_FILENO, SHUT_WR);
	while (left) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		uint64_t now = qd_inst_now();
		ssize_t n;

		if (now >= deadline || poll(&p, 1, (deadline - now) / 1000000 + 1) <= 0)
			return;
		n = read(STDIN_FILENO, buf, sizeof(buf) < left ? sizeof(buf) : left);
		if (n <= 0)
			return;
		left -= n;
	}
}

static int run_exporter(int argc, char **argv)
{
	struct metrics_scope sc;
	socklen_t sl = sizeof(int);
	int type, r;

	if (metrics_args(argc, argv, &sc, NULL))
		return QD_EXIT_USAGE;
	if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_TYPE, &type, &sl) || type != SOCK_STREAM) {
		qd_err("exporter: stdin is no connection: it serves one, handed over by "
		       "qdiscctl-exporter.socket (systemd) or inetd");
		return QD_EXIT_USAGE;
	}
	r = serve(&sc);
	linger();
	return r;
}

static const struct qd_cmd exporter_cmd = {
	.name = "exporter",
	.args = "[netns NAME]... [--all-netns]",
	.summary = "answer one HTTP GET /metrics on stdin (systemd socket activation)",
	.help = "What metrics prints, for Prometheus: make install puts in\n"
		"qdiscctl-exporter.socket, which listens on 127.0.0.1:9978 (change it with\n"
		"systemctl edit) and starts one exporter a connection (Accept=yes), at most 16\n"
		"at once. A request must arrive within 5 s and fit 8 KB; only GET /metrics is\n"
		"answered.",
	.order = 47,
	.run = run_exporter,
};
QD_CMD_REGISTER(exporter_cmd);
