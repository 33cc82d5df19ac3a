/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the VM test tools (static, no libraries). */
#ifndef VMTOOLS_COMMON_H
#define VMTOOLS_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *prog_name = "tool";

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return now_ns(CLOCK_MONOTONIC);
}

/* Sleep until the CLOCK_MONOTONIC time T (ns). */
static inline void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* An unsigned number with an optional k/m/g (x1000) suffix; dies on junk. */
static inline uint64_t parse_u64(const char *what, const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	if (*s == '-')
		die("bad %s: %s", what, s);
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad %s: %s", what, s);
	switch (*end) {
	case 'k': case 'K': mul = 1000; end++; break;
	case 'm': case 'M': mul = 1000000; end++; break;
	case 'g': case 'G': mul = 1000000000; end++; break;
	}
	if (*end)
		die("bad %s: %s", what, s);
	if (v > UINT64_MAX / mul)
		die("%s out of range: %s", what, s);
	return v * mul;
}

/* A time: N[ns|us|ms|s], default unit ns. Negative values are allowed. */
static inline int64_t parse_time_ns(const char *what, const char *s)
{
	char *end;
	long long v;
	int64_t mul = 1;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s)
		die("bad %s: %s", what, s);
	if (!strcmp(end, "s"))
		mul = 1000000000;
	else if (!strcmp(end, "ms"))
		mul = 1000000;
	else if (!strcmp(end, "us"))
		mul = 1000;
	else if (*end && strcmp(end, "ns"))
		die("bad %s: %s", what, s);
	if (v > INT64_MAX / mul || v < INT64_MIN / mul)
		die("%s out of range: %s", what, s);
	return v * mul;
}

static inline void parse_addr(const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1)
		die("bad IPv4 address: %s", s);
}

#endif
