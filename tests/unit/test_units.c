// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "tests/unit/test.h"

#define SENTINEL64 0x5a5a5a5a5a5a5a5aULL
#define SENTINEL32 0x5a5a5a5aU

typedef int (*parse64_fn)(const char *, uint64_t *);
typedef int (*parse32_fn)(const char *, uint32_t *);

static const char *err_name(int err)
{
	switch (err) {
	case 0:
		return "0";
	case -EINVAL:
		return "-EINVAL";
	case -ERANGE:
		return "-ERANGE";
	default:
		return "other";
	}
}

/* One check: the error code, and the value (or an untouched output). */
static void check64(parse64_fn fn, const char *fname, const char *s, int want_err, uint64_t want,
		    const char *file, int line)
{
	uint64_t v = SENTINEL64;
	int err = fn(s, &v);
	bool ok = err == want_err && v == (want_err ? SENTINEL64 : want);
	char expr[160];

	snprintf(expr, sizeof(expr), "%s(\"%s\")", fname, s);
	if (!test_record(ok, file, line, expr))
		fprintf(stderr, "     got %s %llu\n    want %s %llu\n", err_name(err),
			(unsigned long long)v, err_name(want_err), (unsigned long long)want);
}

static void check32(parse32_fn fn, const char *fname, const char *s, int want_err, uint32_t want,
		    const char *file, int line)
{
	uint32_t v = SENTINEL32;
	int err = fn(s, &v);
	bool ok = err == want_err && v == (want_err ? SENTINEL32 : want);
	char expr[160];

	snprintf(expr, sizeof(expr), "%s(\"%s\")", fname, s);
	if (!test_record(ok, file, line, expr))
		fprintf(stderr, "     got %s %#x\n    want %s %#x\n", err_name(err), v,
			err_name(want_err), want);
}

#define OK64(fn, s, want) check64(fn, #fn, s, 0, want, __FILE__, __LINE__)
#define BAD64(fn, s, err) check64(fn, #fn, s, err, 0, __FILE__, __LINE__)
#define OK32(fn, s, want) check32(fn, #fn, s, 0, want, __FILE__, __LINE__)
#define BAD32(fn, s, err) check32(fn, #fn, s, err, 0, __FILE__, __LINE__)

#define SPRINT(fn, v, want)                             \
	do {                                            \
		char _b[UNITS_BUF];                     \
		CHECK_STR(fn(v, _b, sizeof(_b)), want); \
	} while (0)

/* Garbage every numeric parser must refuse. */
static const char *const garbage[] = {
	"",	 " ",	 ".",	      "-",    "+",   "-1",  "+1",  " 1",       "1 ",
	"\t1",	 "1\n",	 "1.2.3",     "1..2", "..1", "1e3", "1E3", "1e+3",     "1e-3",
	"0x10",	 "0X10", "0x1p3",     "inf",  "INF", "nan", "NaN", "infinity", "1,5",
	"1_000", "１",	 "1\xc2\xa0", "--1",  "- 1", "1-",  "abc", "1 k",
};

static bool is_hex(const char *s)
{
	return *s && strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

static void test_garbage(void)
{
	size_t i;

	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		const char *s = garbage[i];

		BAD64(parse_rate, s, -EINVAL);
		BAD64(parse_size, s, -EINVAL);
		BAD64(parse_time, s, -EINVAL);
		BAD64(parse_u64, s, -EINVAL);
		/* "0x10" is hex to it, as to tc. */
		if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			BAD64(parse_u64_base0, s, -EINVAL);
		BAD32(parse_u32, s, -EINVAL);
		/* "abc", "1e3" are fine hex majors, e.g. handle abc: */
		if (!is_hex(s))
			BAD32(parse_handle, s, -EINVAL);
		BAD32(parse_classid, s, -EINVAL);
	}
}

static void test_null_input(void)
{
	uint64_t v64 = 7;
	uint32_t v32 = 7;

	CHECK(parse_u64(NULL, &v64) == -EINVAL && v64 == 7);
	CHECK(parse_u32(NULL, &v32) == -EINVAL && v32 == 7);
	CHECK(parse_rate(NULL, &v64) == -EINVAL && v64 == 7);
	CHECK(parse_size(NULL, &v64) == -EINVAL && v64 == 7);
	CHECK(parse_time(NULL, &v64) == -EINVAL && v64 == 7);
	CHECK(parse_handle(NULL, &v32) == -EINVAL && v32 == 7);
	CHECK(parse_classid(NULL, &v32) == -EINVAL && v32 == 7);
}

/* C's integer notation, as tc's get_unsigned(..., 0): hex, octal, decimal. */
static void test_u64_base0(void)
{
	OK64(parse_u64_base0, "0", 0);
	OK64(parse_u64_base0, "1023", 1023);
	OK64(parse_u64_base0, "0xff", 255);
	OK64(parse_u64_base0, "0XFF", 255);
	OK64(parse_u64_base0, "0x10000", 65536);
	OK64(parse_u64_base0, "010", 8);
	OK64(parse_u64_base0, "00", 0);
	OK64(parse_u64_base0, "0xffffffffffffffff", UINT64_MAX);
	OK64(parse_u64_base0, "01777777777777777777777", UINT64_MAX);
	BAD64(parse_u64_base0, "0x10000000000000000", -ERANGE);
	BAD64(parse_u64_base0, "18446744073709551616", -ERANGE);
	BAD64(parse_u64_base0, "0x", -EINVAL);
	BAD64(parse_u64_base0, "08", -EINVAL);
	BAD64(parse_u64_base0, "0xg", -EINVAL);
	BAD64(parse_u64_base0, "12a", -EINVAL);
	BAD64(parse_u64_base0, "-0x1", -EINVAL);
}

static void test_u64_u32(void)
{
	OK64(parse_u64, "0", 0);
	OK64(parse_u64, "1", 1);
	OK64(parse_u64, "007", 7);
	OK64(parse_u64, "0000000000000000000000000000000042", 42);
	OK64(parse_u64, "4294967296", 4294967296ULL);
	OK64(parse_u64, "18446744073709551614", UINT64_MAX - 1);
	OK64(parse_u64, "18446744073709551615", UINT64_MAX);
	BAD64(parse_u64, "18446744073709551616", -ERANGE);
	BAD64(parse_u64, "18446744073709551620", -ERANGE);
	BAD64(parse_u64, "99999999999999999999", -ERANGE);
	BAD64(parse_u64, "184467440737095516150", -ERANGE);
	BAD64(parse_u64, "99999999999999999999x", -EINVAL);
	BAD64(parse_u64, "1.0", -EINVAL);
	BAD64(parse_u64, "1k", -EINVAL);
	BAD64(parse_u64, "12a", -EINVAL);
	BAD64(parse_u64, "1b", -EINVAL);

	OK32(parse_u32, "0", 0);
	OK32(parse_u32, "10000", 10000);
	OK32(parse_u32, "00004294967295", UINT32_MAX);
	OK32(parse_u32, "4294967295", UINT32_MAX);
	BAD32(parse_u32, "4294967296", -ERANGE);
	BAD32(parse_u32, "18446744073709551615", -ERANGE);
	BAD32(parse_u32, "18446744073709551616", -ERANGE);
	BAD32(parse_u32, "ffff", -EINVAL);
	BAD32(parse_u32, "1.5", -EINVAL);
}

/* Every suffix in three spellings: lower, upper, and tc's mixed case. */
static const struct {
	const char *sfx[3];
	uint64_t bits; /* multiplier in bits per second */
} rate_sfx[] = {
	{ { "bit", "BIT", "Bit" }, 1 },
	{ { "kbit", "KBIT", "Kbit" }, 1000ULL },
	{ { "mbit", "MBIT", "Mbit" }, 1000000ULL },
	{ { "gbit", "GBIT", "Gbit" }, 1000000000ULL },
	{ { "tbit", "TBIT", "Tbit" }, 1000000000000ULL },
	{ { "kibit", "KIBIT", "Kibit" }, 1024ULL },
	{ { "mibit", "MIBIT", "Mibit" }, 1048576ULL },
	{ { "gibit", "GIBIT", "Gibit" }, 1073741824ULL },
	{ { "tibit", "TIBIT", "Tibit" }, 1099511627776ULL },
	{ { "bps", "BPS", "Bps" }, 8 },
	{ { "kbps", "KBPS", "KBps" }, 8000ULL },
	{ { "mbps", "MBPS", "MBps" }, 8000000ULL },
	{ { "gbps", "GBPS", "GBps" }, 8000000000ULL },
	{ { "tbps", "TBPS", "TBps" }, 8000000000000ULL },
	{ { "kibps", "KIBPS", "KiBps" }, 8192ULL },
	{ { "mibps", "MIBPS", "MiBps" }, 8388608ULL },
	{ { "gibps", "GIBPS", "GiBps" }, 8589934592ULL },
	{ { "tibps", "TIBPS", "TiBps" }, 8796093022208ULL },
};

static void test_rate_suffixes(void)
{
	char s[32];
	size_t i, j;

	for (i = 0; i < sizeof(rate_sfx) / sizeof(rate_sfx[0]); i++) {
		uint64_t b = rate_sfx[i].bits;

		for (j = 0; j < 3; j++) {
			/* 8 units: always a whole number of bytes */
			snprintf(s, sizeof(s), "8%s", rate_sfx[i].sfx[j]);
			OK64(parse_rate, s, b);
			snprintf(s, sizeof(s), "0%s", rate_sfx[i].sfx[j]);
			OK64(parse_rate, s, 0);
			/* a bare suffix has no number */
			BAD64(parse_rate, rate_sfx[i].sfx[j], -EINVAL);
		}
		snprintf(s, sizeof(s), "1.5%s", rate_sfx[i].sfx[0]);
		/* 1.5 * b / 8, rounded half up */
		OK64(parse_rate, s, (3 * b + 8) / 16);
		snprintf(s, sizeof(s), "1%s ", rate_sfx[i].sfx[0]);
		BAD64(parse_rate, s, -EINVAL);
		snprintf(s, sizeof(s), "1 %s", rate_sfx[i].sfx[0]);
		BAD64(parse_rate, s, -EINVAL);
		snprintf(s, sizeof(s), "1%ss", rate_sfx[i].sfx[0]);
		BAD64(parse_rate, s, -EINVAL);
	}
}

static void test_rate(void)
{
	OK64(parse_rate, "0", 0);
	OK64(parse_rate, "8", 1);
	OK64(parse_rate, "800", 100);
	OK64(parse_rate, "1gbit", 125000000);
	OK64(parse_rate, "1Gbit", 125000000);
	OK64(parse_rate, "550kbit", 68750);
	OK64(parse_rate, "10mbit", 1250000);
	OK64(parse_rate, "1.5mbit", 187500);
	OK64(parse_rate, ".5mbit", 62500);
	OK64(parse_rate, "0.5mbit", 62500);
	OK64(parse_rate, "5.mbit", 625000);
	OK64(parse_rate, "1.000000000000000000000000001mbit", 125000);
	OK64(parse_rate, "100gbit", 12500000000ULL);
	OK64(parse_rate, "2.5tbit", 312500000000ULL);

	/* the tc trap: bps is BYTES per second, case-insensitively */
	OK64(parse_rate, "1mbps", 1000000);
	OK64(parse_rate, "1MBps", 1000000);
	OK64(parse_rate, "1mbit", 125000);
	OK64(parse_rate, "1Mibps", 1048576);
	OK64(parse_rate, "1bps", 1);
	OK64(parse_rate, "1.5bps", 2);
	OK64(parse_rate, "1kbps", 1000);

	/* rounding to whole bytes, halves up (tc truncates) */
	OK64(parse_rate, "1", 0);
	OK64(parse_rate, "3", 0);
	OK64(parse_rate, "4", 1);
	OK64(parse_rate, "11", 1);
	OK64(parse_rate, "12", 2);
	OK64(parse_rate, "12345bit", 1543);
	OK64(parse_rate, "12348bit", 1544);
	OK64(parse_rate, "1kibit", 128);
	OK64(parse_rate, "0.001bit", 0);
	OK64(parse_rate, "0.004kbit", 1);
	OK64(parse_rate, "0.0039kbit", 0);

	/* limits: 2^64 - 1 bytes is 2^67 - 8 bits */
	OK64(parse_rate, "147573952589676412920", UINT64_MAX);
	OK64(parse_rate, "147573952589676412923", UINT64_MAX);
	BAD64(parse_rate, "147573952589676412924", -ERANGE);
	BAD64(parse_rate, "147573952589676412928", -ERANGE);
	OK64(parse_rate, "18446744073709551615bps", UINT64_MAX);
	BAD64(parse_rate, "18446744073709551616bps", -ERANGE);
	OK64(parse_rate, "18446744073709551614.5bps", UINT64_MAX);
	BAD64(parse_rate, "18446744073709551615.5bps", -ERANGE);
	OK64(parse_rate, "18446744.073709551615tbps", UINT64_MAX);
	BAD64(parse_rate, "18446744.073709551616tbps", -ERANGE);
	OK64(parse_rate, "8388608tibps", 1ULL << 63);
	/* 2^64 - 10.99, 2^64 - 1.0995 and 2^64 - 0.11 bytes */
	OK64(parse_rate, "16777215.99999999999tibps", UINT64_MAX - 10);
	OK64(parse_rate, "16777215.999999999999tibps", UINT64_MAX);
	BAD64(parse_rate, "16777215.9999999999999tibps", -ERANGE);
	BAD64(parse_rate, "16777216tibps", -ERANGE);
	BAD64(parse_rate, "99999999999999999999999999999999999999999bit", -ERANGE);
	BAD64(parse_rate, "9999999999999999999999999999999999999999999999999999999", -ERANGE);

	/* garbage wins over range: the suffix is checked first */
	BAD64(parse_rate, "99999999999999999999999999999xbit", -EINVAL);
	BAD64(parse_rate, "0x10", -EINVAL);
	BAD64(parse_rate, "0x10kbit", -EINVAL);
	BAD64(parse_rate, "1e3kbit", -EINVAL);
	BAD64(parse_rate, "kbit", -EINVAL);
	BAD64(parse_rate, "1x", -EINVAL);
	BAD64(parse_rate, "1b", -EINVAL);
	BAD64(parse_rate, "1k", -EINVAL);
	BAD64(parse_rate, "1kb", -EINVAL);
	BAD64(parse_rate, "1kbits", -EINVAL);
	BAD64(parse_rate, "1mbitt", -EINVAL);
	BAD64(parse_rate, "1mibits", -EINVAL);
	BAD64(parse_rate, "1bit/s", -EINVAL);
	BAD64(parse_rate, "1pbit", -EINVAL);
	BAD64(parse_rate, "1%", -EINVAL);
	BAD64(parse_rate, "50%", -EINVAL);
	BAD64(parse_rate, "1.2.3mbit", -EINVAL);
	BAD64(parse_rate, "-1mbit", -EINVAL);
	BAD64(parse_rate, " 5mbit", -EINVAL);
	BAD64(parse_rate, "5mbit ", -EINVAL);
	BAD64(parse_rate, "1mbit\n", -EINVAL);
	BAD64(parse_rate, ".mbit", -EINVAL);
	BAD64(parse_rate, "mbit1", -EINVAL);
}

static void test_size(void)
{
	static const struct {
		const char *sfx;
		uint64_t num, den;
	} sfx[] = {
		{ "", 1, 1 },		{ "b", 1, 1 },		{ "B", 1, 1 },
		{ "k", 1024, 1 },	{ "K", 1024, 1 },	{ "kb", 1024, 1 },
		{ "KB", 1024, 1 },	{ "Kb", 1024, 1 },	{ "kB", 1024, 1 },
		{ "m", 1 << 20, 1 },	{ "M", 1 << 20, 1 },	{ "mb", 1 << 20, 1 },
		{ "MB", 1 << 20, 1 },	{ "g", 1 << 30, 1 },	{ "G", 1 << 30, 1 },
		{ "gb", 1 << 30, 1 },	{ "GB", 1 << 30, 1 },	{ "kbit", 1024, 8 },
		{ "KBIT", 1024, 8 },	{ "Kbit", 1024, 8 },	{ "mbit", 1 << 20, 8 },
		{ "MBit", 1 << 20, 8 }, { "gbit", 1 << 30, 8 }, { "GBIT", 1 << 30, 8 },
	};
	char s[32];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(s, sizeof(s), "16%s", sfx[i].sfx);
		OK64(parse_size, s, 16 * sfx[i].num / sfx[i].den);
		snprintf(s, sizeof(s), "0%s", sfx[i].sfx);
		OK64(parse_size, s, 0);
		snprintf(s, sizeof(s), "2.5%s", sfx[i].sfx);
		OK64(parse_size, s, (5 * sfx[i].num + sfx[i].den) / (2 * sfx[i].den));
		if (*sfx[i].sfx)
			BAD64(parse_size, sfx[i].sfx, -EINVAL);
	}

	OK64(parse_size, "1514", 1514);
	OK64(parse_size, "1514b", 1514);
	OK64(parse_size, "64kb", 65536);
	OK64(parse_size, "1.5kb", 1536);
	OK64(parse_size, "1kbit", 128);
	OK64(parse_size, "1mbit", 131072);
	OK64(parse_size, "1gbit", 134217728);
	OK64(parse_size, "0.5", 1);
	OK64(parse_size, "0.49", 0);
	OK64(parse_size, "0.001k", 1);
	OK64(parse_size, "0.0001k", 0);

	OK64(parse_size, "18446744073709551615", UINT64_MAX);
	OK64(parse_size, "18446744073709551615b", UINT64_MAX);
	BAD64(parse_size, "18446744073709551616", -ERANGE);
	OK64(parse_size, "17179869183g", 18446744072635809792ULL);
	BAD64(parse_size, "17179869184g", -ERANGE);
	OK64(parse_size, "17179869183.999999999g", UINT64_MAX);
	OK64(parse_size, "137438953471gbit", 18446744073575333888ULL);
	BAD64(parse_size, "137438953472gbit", -ERANGE);
	BAD64(parse_size, "18014398509481984k", -ERANGE);
	OK64(parse_size, "18014398509481983k", UINT64_MAX - 1023);

	/* no rate or unknown suffixes, no t/tb (tc has none) */
	BAD64(parse_size, "1t", -EINVAL);
	BAD64(parse_size, "1tb", -EINVAL);
	BAD64(parse_size, "1bit", -EINVAL);
	BAD64(parse_size, "1kib", -EINVAL);
	BAD64(parse_size, "1bytes", -EINVAL);
	BAD64(parse_size, "1p", -EINVAL);
	BAD64(parse_size, "1bb", -EINVAL);
	BAD64(parse_size, "1kbps", -EINVAL);
	BAD64(parse_size, "1x", -EINVAL);
	BAD64(parse_size, "kb", -EINVAL);
	BAD64(parse_size, "b", -EINVAL);
	BAD64(parse_size, "0x10", -EINVAL);
	BAD64(parse_size, "1e3", -EINVAL);
	BAD64(parse_size, "1.2.3", -EINVAL);
	BAD64(parse_size, "-1", -EINVAL);
	BAD64(parse_size, "-1k", -EINVAL);
}

static void test_time(void)
{
	static const struct {
		const char *sfx;
		uint64_t ns;
	} sfx[] = {
		{ "", 1000 },
		{ "s", 1000000000 },
		{ "S", 1000000000 },
		{ "sec", 1000000000 },
		{ "SEC", 1000000000 },
		{ "secs", 1000000000 },
		{ "Secs", 1000000000 },
		{ "ms", 1000000 },
		{ "MS", 1000000 },
		{ "mS", 1000000 },
		{ "msec", 1000000 },
		{ "MSEC", 1000000 },
		{ "msecs", 1000000 },
		{ "mSecs", 1000000 },
		{ "us", 1000 },
		{ "US", 1000 },
		{ "usec", 1000 },
		{ "USec", 1000 },
		{ "usecs", 1000 },
		{ "USECS", 1000 },
		{ "ns", 1 },
		{ "NS", 1 },
		{ "nsec", 1 },
		{ "NSEC", 1 },
		{ "nsecs", 1 },
		{ "nSecs", 1 },
	};
	char s[32];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(s, sizeof(s), "10%s", sfx[i].sfx);
		OK64(parse_time, s, 10 * sfx[i].ns);
		snprintf(s, sizeof(s), "0%s", sfx[i].sfx);
		OK64(parse_time, s, 0);
		snprintf(s, sizeof(s), "1.5%s", sfx[i].sfx);
		OK64(parse_time, s, (3 * sfx[i].ns + 1) / 2);
		if (*sfx[i].sfx)
			BAD64(parse_time, sfx[i].sfx, -EINVAL);
	}

	/* bare is microseconds, as tc's get_time() */
	OK64(parse_time, "1", 1000);
	OK64(parse_time, "40000", 40000000);
	OK64(parse_time, "0.001", 1);
	OK64(parse_time, "0.0005", 1);
	OK64(parse_time, "0.0004", 0);
	OK64(parse_time, "40ms", 40000000);
	OK64(parse_time, "10us", 10000);
	OK64(parse_time, "10s", 10000000000ULL);
	OK64(parse_time, "500ns", 500);
	OK64(parse_time, "1.5s", 1500000000);
	OK64(parse_time, "0.1ms", 100000);
	OK64(parse_time, ".25s", 250000000);
	OK64(parse_time, "1.0000000001s", 1000000000);
	OK64(parse_time, "1.0000000005s", 1000000001);
	OK64(parse_time, "0.4ns", 0);
	OK64(parse_time, "0.5ns", 1);

	OK64(parse_time, "18446744073709551615ns", UINT64_MAX);
	BAD64(parse_time, "18446744073709551616ns", -ERANGE);
	OK64(parse_time, "18446744073.709551615s", UINT64_MAX);
	BAD64(parse_time, "18446744073.709551616s", -ERANGE);
	OK64(parse_time, "18446744073709551.615", UINT64_MAX);
	BAD64(parse_time, "18446744073709552", -ERANGE);
	BAD64(parse_time, "18446744074s", -ERANGE);

	BAD64(parse_time, "1m", -EINVAL);
	BAD64(parse_time, "1min", -EINVAL);
	BAD64(parse_time, "1h", -EINVAL);
	BAD64(parse_time, "1µs", -EINVAL);
	BAD64(parse_time, "1sec ", -EINVAL);
	BAD64(parse_time, "1seconds", -EINVAL);
	BAD64(parse_time, "1mss", -EINVAL);
	BAD64(parse_time, "1e3", -EINVAL);
	BAD64(parse_time, "1e3ms", -EINVAL);
	BAD64(parse_time, "-1ms", -EINVAL);
	BAD64(parse_time, "ms", -EINVAL);
	BAD64(parse_time, "1.2.3ms", -EINVAL);
	BAD64(parse_time, "0x10", -EINVAL);
}

static void test_handle(void)
{
	OK32(parse_handle, "1:", 0x10000);
	OK32(parse_handle, "1", 0x10000);
	OK32(parse_handle, "1:0", 0x10000);
	OK32(parse_handle, "1:00", 0x10000);
	OK32(parse_handle, "10:", 0x100000);
	OK32(parse_handle, "8001:", 0x80010000);
	OK32(parse_handle, "abcd:", 0xabcd0000);
	OK32(parse_handle, "ABCD:", 0xabcd0000);
	OK32(parse_handle, "aBcD", 0xabcd0000);
	OK32(parse_handle, "ffff:", 0xffff0000);
	OK32(parse_handle, "FFFF", 0xffff0000);
	OK32(parse_handle, "0001:", 0x10000);
	OK32(parse_handle, "00000000ffff:", 0xffff0000);
	OK32(parse_handle, "none", 0);

	BAD32(parse_handle, "10000:", -ERANGE);
	BAD32(parse_handle, "10000", -ERANGE);
	BAD32(parse_handle, "fffff:", -ERANGE);
	BAD32(parse_handle, "ffffffffffffffffffff:", -ERANGE);
	BAD32(parse_handle, "0:", -EINVAL);
	BAD32(parse_handle, "0", -EINVAL);
	BAD32(parse_handle, "0000:", -EINVAL);
	BAD32(parse_handle, "1:1", -EINVAL);
	BAD32(parse_handle, "1:ffff", -EINVAL);
	BAD32(parse_handle, "1:10000", -EINVAL);
	BAD32(parse_handle, "1:0:", -EINVAL);
	BAD32(parse_handle, "1::", -EINVAL);
	BAD32(parse_handle, "1:g", -EINVAL);
	BAD32(parse_handle, "10000:g", -EINVAL);
	BAD32(parse_handle, "10000:1", -EINVAL);
	BAD32(parse_handle, "0:1", -EINVAL);
	BAD32(parse_handle, ":", -EINVAL);
	BAD32(parse_handle, ":1", -EINVAL);
	BAD32(parse_handle, ":0", -EINVAL);
	OK32(parse_handle, "abc:", 0xabc0000);
	BAD32(parse_handle, "xyz:", -EINVAL);
	BAD32(parse_handle, "g:", -EINVAL);
	BAD32(parse_handle, "0x1:", -EINVAL);
	BAD32(parse_handle, "-1:", -EINVAL);
	BAD32(parse_handle, "+1:", -EINVAL);
	BAD32(parse_handle, " 1:", -EINVAL);
	BAD32(parse_handle, "1: ", -EINVAL);
	BAD32(parse_handle, "1 :", -EINVAL);
	BAD32(parse_handle, "root", -EINVAL);
	BAD32(parse_handle, "ingress", -EINVAL);
	BAD32(parse_handle, "None", -EINVAL);
	BAD32(parse_handle, "NONE", -EINVAL);
	BAD32(parse_handle, "none:", -EINVAL);
	BAD32(parse_handle, "1.5:", -EINVAL);
}

static void test_classid(void)
{
	OK32(parse_classid, "root", 0xffffffff);
	OK32(parse_classid, "none", 0);
	OK32(parse_classid, "ingress", 0xfffffff1);
	OK32(parse_classid, "1:", 0x10000);
	OK32(parse_classid, "1:0", 0x10000);
	OK32(parse_classid, "1:1", 0x10001);
	OK32(parse_classid, "1:10", 0x10010);
	OK32(parse_classid, "10:1", 0x100001);
	OK32(parse_classid, "8001:2", 0x80010002);
	OK32(parse_classid, "ffff:ffff", 0xffffffff);
	OK32(parse_classid, "ffff:fff1", 0xfffffff1);
	OK32(parse_classid, "FFFF:FFF1", 0xfffffff1);
	OK32(parse_classid, "ffff:", 0xffff0000);
	OK32(parse_classid, ":1", 1);
	OK32(parse_classid, ":ffff", 0xffff);
	OK32(parse_classid, "0:1", 1);
	OK32(parse_classid, "0:0", 0);
	OK32(parse_classid, "0:", 0);
	OK32(parse_classid, ":0", 0);
	OK32(parse_classid, "0001:0002", 0x10002);
	OK32(parse_classid, "00000001:00000002", 0x10002);

	BAD32(parse_classid, "10000:", -ERANGE);
	BAD32(parse_classid, "1:10000", -ERANGE);
	BAD32(parse_classid, "10000:10000", -ERANGE);
	BAD32(parse_classid, ":10000", -ERANGE);
	BAD32(parse_classid, "fffffffffffffffffffff:1", -ERANGE);
	BAD32(parse_classid, ":", -EINVAL);
	BAD32(parse_classid, "1", -EINVAL);
	BAD32(parse_classid, "ffff", -EINVAL);
	BAD32(parse_classid, "10", -EINVAL);
	BAD32(parse_classid, "1:1:", -EINVAL);
	BAD32(parse_classid, "1::1", -EINVAL);
	BAD32(parse_classid, "1:g", -EINVAL);
	BAD32(parse_classid, "g:1", -EINVAL);
	BAD32(parse_classid, "10000:g", -EINVAL);
	BAD32(parse_classid, "0x1:1", -EINVAL);
	BAD32(parse_classid, "1:0x1", -EINVAL);
	BAD32(parse_classid, "-1:1", -EINVAL);
	BAD32(parse_classid, "1:-1", -EINVAL);
	BAD32(parse_classid, " 1:1", -EINVAL);
	BAD32(parse_classid, "1:1 ", -EINVAL);
	BAD32(parse_classid, "Root", -EINVAL);
	BAD32(parse_classid, "ROOT", -EINVAL);
	BAD32(parse_classid, "root:", -EINVAL);
	BAD32(parse_classid, "Ingress", -EINVAL);
	BAD32(parse_classid, "egress", -EINVAL);
	BAD32(parse_classid, "abc:xyz", -EINVAL);
}

static void test_sprint_rate(void)
{
	/* tc 6.1 "tc class show" output for htb rates; bytes as tc stores */
	SPRINT(sprint_rate, 68750, "550Kbit");	  /* 550kbit */
	SPRINT(sprint_rate, 125000000, "1Gbit");  /* 1gbit */
	SPRINT(sprint_rate, 1543, "12344bit");	  /* 12345bit */
	SPRINT(sprint_rate, 131072, "1048Kbit");  /* 1mibit */
	SPRINT(sprint_rate, 187500, "1500Kbit");  /* 1.5mbit */
	SPRINT(sprint_rate, 124999, "999992bit"); /* 999999bit */
	SPRINT(sprint_rate, 125000, "1Mbit");	  /* 1000001bit */
	SPRINT(sprint_rate, 1, "8bit");		  /* 8bit */
	SPRINT(sprint_rate, 1000, "8Kbit");	  /* 1kbps */
	SPRINT(sprint_rate, 1000000, "8Mbit");	  /* 1mbps */
	SPRINT(sprint_rate, 625000000, "5Gbit");  /* 5gbit */
	SPRINT(sprint_rate, 12500000000ULL, "100Gbit");
	SPRINT(sprint_rate, 1250000000000ULL, "10Tbit");
	SPRINT(sprint_rate, 137438953472ULL, "1099Gbit"); /* 1tibit */
	SPRINT(sprint_rate, 154320986265ULL, "1234Gbit");

	SPRINT(sprint_rate, 0, "0bit");
	SPRINT(sprint_rate, 124, "992bit");
	SPRINT(sprint_rate, 125, "1Kbit");
	SPRINT(sprint_rate, 126, "1008bit");
	SPRINT(sprint_rate, 124875, "999Kbit");
	/* 1000008bit: /1000 truncates to 1000, which divides again */
	SPRINT(sprint_rate, 125001, "1Mbit");
	SPRINT(sprint_rate, 1250000, "10Mbit");
	SPRINT(sprint_rate, 1250001, "10Mbit");
	SPRINT(sprint_rate, 125125, "1001Kbit");
	SPRINT(sprint_rate, 1000000000, "8Gbit");
	SPRINT(sprint_rate, 125000000000000ULL, "1000Tbit");
	SPRINT(sprint_rate, 1250000000000000ULL, "10000Tbit");
	SPRINT(sprint_rate, 2305843009213693951ULL, "18446744Tbit");
	/* past tc's 64-bit bit count: tc would wrap, we do not */
	SPRINT(sprint_rate, 2305843009213693952ULL, "18446744Tbit");
	SPRINT(sprint_rate, UINT64_MAX, "147573952Tbit");
}

/* What snprintf "%llu%s" writes, cut short at the buffer's end as snprintf cuts. */
static void test_sprint_u64(void)
{
	char b[UNITS_BUF], small[4];

	CHECK_STR(sprint_u64(0, "", b, sizeof(b)), "0");
	CHECK_STR(sprint_u64(7, "p", b, sizeof(b)), "7p");
	CHECK_STR(sprint_u64(1000000, "bit", b, sizeof(b)), "1000000bit");
	CHECK_STR(sprint_u64(UINT64_MAX, "Kb", b, sizeof(b)), "18446744073709551615Kb");
	CHECK_STR(sprint_u64(12345, "", small, sizeof(small)), "123");
	CHECK_STR(sprint_u64(12, "bit", small, sizeof(small)), "12b");
	CHECK_STR(sprint_u64(12, "x", small, 1), "");
	memcpy(small, "abc", 4);
	sprint_u64(5, "", small, 0);
	CHECK_STR(small, "abc");
}

static void test_sprint_size(void)
{
	/* tc 6.1 "tc qdisc show" of bfifo limits */
	SPRINT(sprint_size, 0, "0b");
	SPRINT(sprint_size, 1, "1b");
	SPRINT(sprint_size, 10, "10b");
	SPRINT(sprint_size, 1008, "1008b");
	SPRINT(sprint_size, 1009, "1009b");
	SPRINT(sprint_size, 1023, "1023b");
	SPRINT(sprint_size, 1024, "1Kb");
	SPRINT(sprint_size, 1039, "1Kb");
	SPRINT(sprint_size, 1040, "1040b");
	SPRINT(sprint_size, 1514, "1514b");
	SPRINT(sprint_size, 1536, "1536b");
	SPRINT(sprint_size, 3028, "3028b");
	SPRINT(sprint_size, 15140, "15140b");
	SPRINT(sprint_size, 65536, "64Kb");
	SPRINT(sprint_size, 131072, "128Kb");
	SPRINT(sprint_size, 1047552, "1023Kb");
	SPRINT(sprint_size, 1047553, "1023Kb");
	SPRINT(sprint_size, 1048575, "1024Kb");
	SPRINT(sprint_size, 1048576, "1Mb");
	SPRINT(sprint_size, 1049599, "1Mb");
	SPRINT(sprint_size, 1049600, "1025Kb");
	SPRINT(sprint_size, 1572864, "1536Kb");
	SPRINT(sprint_size, 134217728, "128Mb");
	SPRINT(sprint_size, 4294967295ULL, "4Gb"); /* tc 6.1: 4096Mb */

	/* the Gb step is upstream's (2025); older tc says "1024Mb" */
	SPRINT(sprint_size, 1073741824ULL, "1Gb");
	SPRINT(sprint_size, 1073742847ULL, "1Gb");
	/* 1GiB + 1KiB: 1024 off both G and M, so Kb (tc: 1.04858e+06Kb) */
	SPRINT(sprint_size, 1073742848ULL, "1048577Kb");
	/* below 1GiB is never Gb, but can round up to 1024Mb */
	SPRINT(sprint_size, 1073741823ULL, "1024Mb");
	SPRINT(sprint_size, 1073740801ULL, "1024Mb");
	SPRINT(sprint_size, 1073740800ULL, "1048575Kb");
	SPRINT(sprint_size, 1073740799ULL, "1048575Kb");
	SPRINT(sprint_size, 1073739776ULL, "1048574Kb");
	SPRINT(sprint_size, 1073741824ULL * 3 + 1023, "3Gb");
	SPRINT(sprint_size, 1073741824ULL * 3 - 1023, "3Gb");
	SPRINT(sprint_size, 1099511627776ULL, "1024Gb");
	/* %g in tc would print 1.67772e+07Gb here */
	SPRINT(sprint_size, 1ULL << 54, "16777216Gb");
	SPRINT(sprint_size, UINT64_MAX, "17179869184Gb");
	SPRINT(sprint_size, UINT64_MAX - 1022, "17179869184Gb");
	SPRINT(sprint_size, UINT64_MAX - 1023, "18014398509481983Kb");
	SPRINT(sprint_size, UINT64_MAX - 1024, "18014398509481983Kb");
	SPRINT(sprint_size, (1ULL << 40) + 512 * 1024, "1073742336Kb");
	SPRINT(sprint_size, (1ULL << 40) + 512 * 1024 + 100, "1099512152164b");
}

static void test_sprint_time(void)
{
	/* sch_fq defaults as printed by tc */
	SPRINT(sprint_time, 40000000, "40ms");
	SPRINT(sprint_time, 10000, "10us");
	SPRINT(sprint_time, 10000000000ULL, "10s");

	SPRINT(sprint_time, 0, "0ns");
	SPRINT(sprint_time, 1, "1ns");
	SPRINT(sprint_time, 500, "500ns");
	SPRINT(sprint_time, 999, "999ns");
	SPRINT(sprint_time, 1000, "1us");
	SPRINT(sprint_time, 1001, "1us");
	SPRINT(sprint_time, 1005, "1us"); /* %.3g: 1.005 is 1.00499.. */
	SPRINT(sprint_time, 1006, "1.01us");
	SPRINT(sprint_time, 1500, "1.5us");
	SPRINT(sprint_time, 12345, "12.3us");
	SPRINT(sprint_time, 123456, "123us");
	SPRINT(sprint_time, 999499, "999us");
	SPRINT(sprint_time, 1000000, "1ms");
	SPRINT(sprint_time, 5000000, "5ms");
	SPRINT(sprint_time, 100000000, "100ms");
	SPRINT(sprint_time, 1500000000, "1.5s");
	SPRINT(sprint_time, 1234567890, "1.23s");
	SPRINT(sprint_time, 999000000000ULL, "999s");

	/* where tc prints "1e+03us" / "1e+03ms" / "1e+03s" */
	SPRINT(sprint_time, 999500, "1ms");
	SPRINT(sprint_time, 999999, "1ms");
	SPRINT(sprint_time, 999900000, "1s");
	SPRINT(sprint_time, 999999999, "1s");
	SPRINT(sprint_time, 999500000000ULL, "1000s");
	SPRINT(sprint_time, 1000000000000ULL, "1000s");
	SPRINT(sprint_time, 3600000000000ULL, "3600s");
	SPRINT(sprint_time, 86400000000000ULL, "86400s");
	SPRINT(sprint_time, UINT64_MAX, "18446744074s");
}

static void test_sprint_ids(void)
{
	SPRINT(sprint_handle, 0x10000, "1:");
	SPRINT(sprint_handle, 0x80010000, "8001:");
	SPRINT(sprint_handle, 0xffff0000, "ffff:");
	SPRINT(sprint_handle, 0, "0:");
	SPRINT(sprint_handle, 0x10005, "1:");

	SPRINT(sprint_classid, 0xffffffff, "root");
	SPRINT(sprint_classid, 0, "none");
	SPRINT(sprint_classid, 0xfffffff1, "ffff:fff1");
	SPRINT(sprint_classid, 0xfffffff2, "ffff:fff2");
	SPRINT(sprint_classid, 0x10000, "1:");
	SPRINT(sprint_classid, 0x10001, "1:1");
	SPRINT(sprint_classid, 0x10010, "1:10");
	SPRINT(sprint_classid, 0xabcd00ef, "abcd:ef");
	SPRINT(sprint_classid, 0x5, ":5");
	SPRINT(sprint_classid, 0xffff, ":ffff");
	SPRINT(sprint_classid, 0xffff0000, "ffff:");
}

static void test_sprint_short_buffers(void)
{
	char b[8];

	memset(b, 'x', sizeof(b));
	CHECK_STR(sprint_rate(125000000000ULL, b, 5), "1Tbi");
	CHECK(b[5] == 'x');
	memset(b, 'x', sizeof(b));
	CHECK_STR(sprint_size(1514, b, 1), "");
	CHECK(b[1] == 'x');
	b[0] = 'y';
	CHECK(sprint_time(40000000, b, 0) == b && b[0] == 'y');
	CHECK_STR(sprint_classid(0x80010002, b, 4), "800");
	CHECK_STR(sprint_handle(0x80010000, b, 3), "80");
}

/* Each sweep is one check: the first mismatch is reported. */
static void sweep_report(bool ok, const char *what, uint64_t v, const char *got, const char *want)
{
	if (!test_record(ok, __FILE__, __LINE__, what))
		fprintf(stderr, "     at %llu: got \"%s\" want \"%s\"\n", (unsigned long long)v,
			got, want);
}

/* Round trips: anything printed exactly parses back to the same value. */
static void test_round_trips(void)
{
	char buf[UNITS_BUF];
	uint64_t n, k, p, v, back;
	uint32_t h, hb;
	bool ok;

	ok = true;
	for (k = 0, p = 1; k < 5 && ok; k++, p *= 1000) {
		for (n = 1; n < 1000 && ok; n++) {
			/* n * 1000^k * 8 bits: whole bytes, prints as nK.. */
			v = n * p;
			sprint_rate(v, buf, sizeof(buf));
			ok = !parse_rate(buf, &back) && back == v;
		}
	}
	sweep_report(ok, "rate round trip", v, buf, "");

	ok = true;
	for (k = 0, p = 1; k < 4 && ok; k++, p *= 1024) {
		for (n = 1; n < 1024 && ok; n++) {
			v = n * p;
			sprint_size(v, buf, sizeof(buf));
			ok = !parse_size(buf, &back) && back == v;
		}
	}
	sweep_report(ok, "size round trip", v, buf, "");

	ok = true;
	for (k = 0, p = 1; k < 13 && ok; k++, p *= 10) {
		for (n = 1; n < 1000 && ok; n++) {
			v = n * p;
			sprint_time(v, buf, sizeof(buf));
			ok = !parse_time(buf, &back) && back == v;
		}
	}
	sweep_report(ok, "time round trip", v, buf, "");

	ok = true;
	for (h = 0x10000; h && ok; h += 0x10000) {
		sprint_handle(h, buf, sizeof(buf));
		ok = !parse_handle(buf, &hb) && hb == h;
	}
	sweep_report(ok, "handle round trip", h, buf, "");

	ok = true;
	for (v = 0; v <= 0xffffffff && ok; v += 0xfff1) {
		h = v;
		if (h == UNITS_H_ROOT || h == UNITS_H_INGRESS)
			continue;
		sprint_classid(h, buf, sizeof(buf));
		ok = !parse_classid(buf, &hb) && hb == h;
	}
	sweep_report(ok, "classid round trip", v, buf, "");
}

/*
 * Oracles: tc's own formulas, in floating point, as tc computes them.
 * Our integer versions must agree wherever tc's %g stays out of exponent
 * form (which we deliberately do not reproduce).
 */
static void tc_size(uint64_t sz, char *buf, size_t len)
{
	double kilo = 1024, mega = kilo * kilo, giga = mega * kilo;
	double tmp = sz;

	if (sz >= giga && fabs(giga * rint(tmp / giga) - sz) < 1024)
		snprintf(buf, len, "%gGb", rint(tmp / giga));
	else if (sz >= mega && fabs(mega * rint(tmp / mega) - sz) < 1024)
		snprintf(buf, len, "%gMb", rint(tmp / mega));
	else if (sz >= kilo && fabs(kilo * rint(tmp / kilo) - sz) < 16)
		snprintf(buf, len, "%gKb", rint(tmp / kilo));
	else
		snprintf(buf, len, "%llub", (unsigned long long)sz);
}

static void tc_rate(uint64_t rate, char *buf, size_t len)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	unsigned long kilo = 1000;
	size_t i;

	rate <<= 3;
	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (rate < kilo)
			break;
		if (((rate % kilo) != 0) && rate < 1000 * kilo)
			break;
		rate /= kilo;
	}
	snprintf(buf, len, "%.0f%sbit", (double)rate, units[i]);
}

static void tc_time64(int64_t time, char *buf, size_t len)
{
	double nsec = time;

	if (time >= 1000000000)
		snprintf(buf, len, "%.3gs", nsec / 1000000000);
	else if (time >= 1000000)
		snprintf(buf, len, "%.3gms", nsec / 1000000);
	else if (time >= 1000)
		snprintf(buf, len, "%.3gus", nsec / 1000);
	else
		snprintf(buf, len, "%lldns", (long long)time);
}

static uint64_t lcg(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state;
}

/* A value with a random magnitude, so small and large both get hit. */
static uint64_t random_value(uint64_t *state, unsigned int maxbits)
{
	unsigned int bits = lcg(state) % (maxbits + 1);
	uint64_t v = lcg(state);

	return bits >= 64 ? v : v & ((1ULL << bits) - 1);
}

typedef char *(*sprint_fn)(uint64_t, char *, size_t);
typedef void (*oracle_fn)(uint64_t, char *, size_t);

static bool agree(sprint_fn ours, oracle_fn tc, uint64_t v, char *got, char *want)
{
	ours(v, got, UNITS_BUF);
	tc(v, want, UNITS_BUF);
	/* tc's %g exponent form is the one documented difference */
	return strchr(want, 'e') || strcmp(got, want) == 0;
}

static void tc_time64_u(uint64_t v, char *buf, size_t len)
{
	tc_time64((int64_t)v, buf, len);
}

static void sweep(const char *what, sprint_fn ours, oracle_fn tc, uint64_t dense,
		  unsigned int maxbits)
{
	char got[UNITS_BUF], want[UNITS_BUF];
	uint64_t state = 42, v = 0;
	bool ok = true;
	int i;

	for (v = 0; v < dense && ok; v++)
		ok = agree(ours, tc, v, got, want);
	for (i = 0; i < 300000 && ok; i++) {
		v = random_value(&state, maxbits);
		ok = agree(ours, tc, v, got, want);
	}
	sweep_report(ok, what, v, got, want);
}

static void test_against_tc_formulas(void)
{
	/* doubles are exact below 2^53, and so is tc's arithmetic */
	sweep("sprint_size vs tc", sprint_size, tc_size, (2 << 20) + 4096, 53);
	/* tc's << 3 wraps past 2^61 bytes; compare below that */
	sweep("sprint_rate vs tc", sprint_rate, tc_rate, 1100000, 60);
	sweep("sprint_time vs tc", sprint_time, tc_time64_u, 1100000, 62);
}

int main(void)
{
	test_garbage();
	test_null_input();
	test_u64_u32();
	test_u64_base0();
	test_rate_suffixes();
	test_rate();
	test_size();
	test_time();
	test_handle();
	test_classid();
	test_sprint_rate();
	test_sprint_u64();
	test_sprint_size();
	test_sprint_time();
	test_sprint_ids();
	test_sprint_short_buffers();
	test_round_trips();
	test_against_tc_formulas();
	return test_summary("test_units");
}
