/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit test harness: each CHECK counts one pass or one failure and
 * a failure prints "FAIL file:line expr" (plus the values for the typed
 * variants) to stderr.  A test program ends with
 *
 *	return test_summary("test_foo");
 *
 * which prints "test_foo: N passed, M failed" on stdout (tests/unit/Makefile
 * adds these up) and returns the exit status.
 */
#ifndef QDISCCTL_TEST_H
#define QDISCCTL_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned int test_passed, test_failed;

static inline bool test_record(bool ok, const char *file, int line, const char *expr)
{
	if (ok) {
		test_passed++;
	} else {
		test_failed++;
		fprintf(stderr, "FAIL %s:%d %s\n", file, line, expr);
	}
	return ok;
}

#define CHECK(expr) test_record(!!(expr), __FILE__, __LINE__, #expr)

/* Strings compared with strcmp; both shown on failure. */
#define CHECK_STR(got, want)                                                                      \
	do {                                                                                      \
		const char *_g = (got), *_w = (want);                                             \
		if (!test_record(_g && _w && strcmp(_g, _w) == 0, __FILE__, __LINE__,             \
				 #got " == " #want))                                              \
			fprintf(stderr, "     got \"%s\"\n    want \"%s\"\n", _g ? _g : "(null)", \
				_w ? _w : "(null)");                                              \
	} while (0)

#define CHECK_U64(got, want)                                                       \
	do {                                                                       \
		unsigned long long _g = (got), _w = (want);                        \
		if (!test_record(_g == _w, __FILE__, __LINE__, #got " == " #want)) \
			fprintf(stderr, "     got %llu\n    want %llu\n", _g, _w); \
	} while (0)

#define CHECK_INT(got, want)                                                       \
	do {                                                                       \
		long long _g = (got), _w = (want);                                 \
		if (!test_record(_g == _w, __FILE__, __LINE__, #got " == " #want)) \
			fprintf(stderr, "     got %lld\n    want %lld\n", _g, _w); \
	} while (0)

static inline int test_summary(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, test_passed, test_failed);
	return test_failed ? 1 : 0;
}

#endif /* QDISCCTL_TEST_H */
