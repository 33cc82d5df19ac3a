// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"

/*
 * 128-bit intermediates let every scale below be applied exactly: the
 * largest factor is 8 * 2^40 (TiBps) and integer parts are capped at
 * 2^68, so products stay under 2^112.
 */
typedef unsigned __int128 u128;

#define IPART_MAX   ((u128)1 << 68)
#define FRAC_DIGITS 19 /* 10^19 still fits in a uint64_t */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

struct decimal {
	u128 ipart;	 /* integer part, valid unless 'big' */
	uint64_t fpart;	 /* kept fraction digits, as an integer */
	uint64_t fscale; /* 10^(number of kept fraction digits) */
	bool big;	 /* integer part > IPART_MAX: surely overflows */
};

/* value = number * num / den, e.g. kbit as bytes: num 1000, den 8 */
struct unit {
	const char *name;
	uint64_t num;
	uint64_t den;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!s || !*s)
		return -EINVAL;
	/* Syntax first, so "99999999999999999999x" is garbage, not range. */
	for (p = s; *p; p++)
		if (!is_digit(*p))
			return -EINVAL;

	for (p = s; *p; p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int err;

	err = parse_u64(s, &v);
	if (err)
		return err;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u64_base0(const char *s, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	const char *p;

	if (!s || !*s)
		return -EINVAL;
	p = s;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && p[1]) {
		base = 8;
		p++;
	}
	if (!*p)
		return -EINVAL;
	/* Syntax first, as parse_u64: a bad digit is garbage, not range. */
	for (const char *q = p; *q; q++) {
		int d = hex_value(*q);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
	}
	for (; *p; p++) {
		unsigned int d = hex_value(*p);

		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static void decimal_add_int_digit(struct decimal *d, char c)
{
	if (d->big)
		return;
	d->ipart = d->ipart * 10 + (unsigned int)(c - '0');
	if (d->ipart > IPART_MAX)
		d->big = true;
}

static void decimal_add_frac_digit(struct decimal *d, char c, size_t pos)
{
	if (pos >= FRAC_DIGITS)
		return;
	d->fpart = d->fpart * 10 + (unsigned int)(c - '0');
	d->fscale *= 10;
}

/*
 * Parse "digits[.digits]" (either side may be empty, not both) from the
 * start of s.  *end is left at the first character after the number.
 */
static int parse_decimal(const char *s, struct decimal *d, const char **end)
{
	const char *p = s;
	size_t ndigits = 0;
	size_t pos = 0;

	memset(d, 0, sizeof(*d));
	d->fscale = 1;

	for (; is_digit(*p); p++, ndigits++)
		decimal_add_int_digit(d, *p);
	if (*p == '.') {
		for (p++; is_digit(*p); p++, ndigits++, pos++)
			decimal_add_frac_digit(d, *p, pos);
	}
	if (!ndigits)
		return -EINVAL;
	*end = p;
	return 0;
}

/* round(d * num / den), halves up, without floating point */
static int decimal_scale(const struct decimal *d, uint64_t num, uint64_t den, uint64_t *out)
{
	u128 frac, n, q, rem, lhs, rhs;

	if (d->big)
		return -ERANGE;

	/* n + rem/fscale is the exact numerator: d * num */
	frac = (u128)d->fpart * num;
	n = d->ipart * num + frac / d->fscale;
	rem = frac % d->fscale;

	q = n / den;
	/* compare the leftover (n % den + rem/fscale) / den against 1/2 */
	lhs = 2 * ((n % den) * d->fscale + rem);
	rhs = (u128)den * d->fscale;
	if (lhs >= rhs)
		q++;

	if (q > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)q;
	return 0;
}

static const struct unit *find_unit(const struct unit *tab, const char *sfx)
{
	for (; tab->name; tab++)
		if (strcasecmp(tab->name, sfx) == 0)
			return tab;
	return NULL;
}

static int parse_scaled(const char *s, const struct unit *tab, uint64_t *out)
{
	const struct unit *u;
	struct decimal d;
	const char *sfx;
	int err;

	if (!s)
		return -EINVAL;
	err = parse_decimal(s, &d, &sfx);
	if (err)
		return err;
	u = find_unit(tab, sfx);
	if (!u)
		return -EINVAL;
	return decimal_scale(&d, u->num, u->den, out);
}

#define KI 1024ULL
#define MI (KI * KI)
#define GI (MI * KI)
#define TI (GI * KI)

/* Everything is bits first, then /8 to bytes. */
static const struct unit rate_units[] = { { "", 1, 8 },
					  { "bit", 1, 8 },
					  { "kbit", 1000ULL, 8 },
					  { "mbit", 1000000ULL, 8 },
					  { "gbit", 1000000000ULL, 8 },
					  { "tbit", 1000000000000ULL, 8 },
					  { "kibit", KI, 8 },
					  { "mibit", MI, 8 },
					  { "gibit", GI, 8 },
					  { "tibit", TI, 8 },
					  { "bps", 8, 8 },
					  { "kbps", 8 * 1000ULL, 8 },
					  { "mbps", 8 * 1000000ULL, 8 },
					  { "gbps", 8 * 1000000000ULL, 8 },
					  { "tbps", 8 * 1000000000000ULL, 8 },
					  { "kibps", 8 * KI, 8 },
					  { "mibps", 8 * MI, 8 },
					  { "gibps", 8 * GI, 8 },
					  { "tibps", 8 * TI, 8 },
					  { .name = NULL } };

static const struct unit size_units[] = { { "", 1, 1 },	     { "b", 1, 1 },	{ "k", KI, 1 },
					  { "kb", KI, 1 },   { "m", MI, 1 },	{ "mb", MI, 1 },
					  { "g", GI, 1 },    { "gb", GI, 1 },	{ "kbit", KI, 8 },
					  { "mbit", MI, 8 }, { "gbit", GI, 8 }, { .name = NULL } };

static const struct unit time_units[] = { { "", NSEC_PER_USEC, 1 },
					  { "s", NSEC_PER_SEC, 1 },
					  { "sec", NSEC_PER_SEC, 1 },
					  { "secs", NSEC_PER_SEC, 1 },
					  { "ms", NSEC_PER_MSEC, 1 },
					  { "msec", NSEC_PER_MSEC, 1 },
					  { "msecs", NSEC_PER_MSEC, 1 },
					  { "us", NSEC_PER_USEC, 1 },
					  { "usec", NSEC_PER_USEC, 1 },
					  { "usecs", NSEC_PER_USEC, 1 },
					  { "ns", 1, 1 },
					  { "nsec", 1, 1 },
					  { "nsecs", 1, 1 },
					  { .name = NULL } };

int parse_rate(const char *s, uint64_t *bytes_per_sec)
{
	return parse_scaled(s, rate_units, bytes_per_sec);
}

int parse_size(const char *s, uint64_t *bytes)
{
	return parse_scaled(s, size_units, bytes);
}

int parse_time(const char *s, uint64_t *ns)
{
	return parse_scaled(s, time_units, ns);
}

int parse_time_bare(const char *s, uint64_t bare_ns, uint64_t *ns)
{
	struct decimal d;
	const char *sfx;

	if (s && !parse_decimal(s, &d, &sfx) && !*sfx)
		return decimal_scale(&d, bare_ns, 1, ns);
	return parse_time(s, ns);
}

/*
 * A 16-bit hex field of tc ids: [s, s+n).  Empty means 0 when allowed.
 * Leading zeros are fine; "0x" prefixes and signs are not.
 */
static int parse_hex16(const char *s, size_t n, bool empty_ok, uint32_t *out)
{
	uint32_t v = 0;
	bool big = false;
	size_t i;

	if (!n && !empty_ok)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int x = hex_value(s[i]);

		if (x < 0)
			return -EINVAL;
		/* keep scanning after overflow: garbage beats range */
		v = (v << 4) | (uint32_t)x;
		if (v > 0xffff) {
			big = true;
			v = 0xffff;
		}
	}
	if (big)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_handle(const char *s, uint32_t *out)
{
	const char *colon;
	uint32_t maj, min;
	size_t majlen;
	int err;

	if (!s)
		return -EINVAL;
	if (strcmp(s, "none") == 0) {
		*out = 0;
		return 0;
	}

	colon = strchr(s, ':');
	if (colon) {
		/* a qdisc handle has no minor: anything but 0 is garbage */
		err = parse_hex16(colon + 1, strlen(colon + 1), true, &min);
		if (err || min)
			return -EINVAL;
	}
	majlen = colon ? (size_t)(colon - s) : strlen(s);
	err = parse_hex16(s, majlen, false, &maj);
	if (err)
		return err;
	/* major 0 is "let the kernel pick": say "none" for that */
	if (!maj)
		return -EINVAL;
	*out = maj << 16;
	return 0;
}

int parse_classid(const char *s, uint32_t *out)
{
	static const struct {
		const char *name;
		uint32_t id;
	} names[] = {
		{ "root", UNITS_H_ROOT },
		{ "none", 0 },
		{ "ingress", UNITS_H_INGRESS },
	};
	const char *colon;
	uint32_t maj, min;
	size_t i, majlen, minlen;
	int err, err2;

	if (!s)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].id;
			return 0;
		}
	}

	colon = strchr(s, ':');
	if (!colon)
		return -EINVAL;
	majlen = colon - s;
	minlen = strlen(colon + 1);
	if (!majlen && !minlen)
		return -EINVAL;

	err = parse_hex16(s, majlen, true, &maj);
	err2 = parse_hex16(colon + 1, minlen, true, &min);
	/* report garbage in either half before a range error in the other */
	if (err == -EINVAL || err2 == -EINVAL)
		return -EINVAL;
	if (err || err2)
		return -ERANGE;
	*out = (maj << 16) | min;
	return 0;
}

char *sprint_u64(uint64_t v, const char *unit, char *buf, size_t len)
{
	char digits[20], *d = digits + sizeof(digits);
	size_t n = 0;

	if (!len)
		return buf;
	do
		*--d = '0' + v % 10;
	while (v /= 10);
	/* Cut short where snprintf would: len - 1 characters and the NUL. */
	while (d < digits + sizeof(digits) && n + 1 < len)
		buf[n++] = *d++;
	while (*unit && n + 1 < len)
		buf[n++] = *unit++;
	buf[n] = '\0';
	return buf;
}

/*
 * tc's print_rate(): work in bits, step up by 1000 while the value is at
 * least 1000 and either divides evenly or is >= 1000000; the division
 * truncates, so 1234567bit prints as "1234Kbit".  bits may exceed 64 bits
 * (bytes * 8), tc would wrap there.
 */
char *sprint_rate(uint64_t bytes_per_sec, char *buf, size_t len)
{
	static const char *const unit[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit" };
	u128 bits = (u128)bytes_per_sec * 8;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unit) - 1; i++) {
		if (bits < 1000)
			break;
		if (bits % 1000 && bits < 1000000)
			break;
		bits /= 1000;
	}
	/* at least one division happened if bits was >= 2^64 */
	return sprint_u64(bits, unit[i], buf, len);
}

/*
 * tc's sprint_size(): use a 1024-power unit when the size is at least one
 * unit and within 'slack' bytes of a whole number of units (so 1039 prints
 * as "1Kb" and 1040 as "1040b").  tc prints the count with %g, which turns
 * into exponent notation from 1000000 units on; we print the integer.
 */
char *sprint_size(uint64_t bytes, char *buf, size_t len)
{
	static const struct {
		uint64_t unit;
		uint64_t slack;
		const char *name;
	} steps[] = {
		{ GI, 1024, "Gb" },
		{ MI, 1024, "Mb" },
		{ KI, 16, "Kb" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		uint64_t u = steps[i].unit;
		uint64_t n = bytes / u + (bytes % u >= u / 2);
		u128 whole = (u128)n * u;
		u128 diff = whole > bytes ? whole - bytes : bytes - whole;

		/* ties (exactly half a unit off) never pass: slack < u/2 */
		if (bytes >= u && diff < steps[i].slack)
			return sprint_u64(n, steps[i].name, buf, len);
	}
	return sprint_u64(bytes, "b", buf, len);
}

/*
 * tc's sprint_time64(): the largest of s/ms/us that is <= the value, with
 * three significant digits ("%.3g").  Where %.3g would switch to exponent
 * form (tc really prints "1e+03ms" for 999.9ms) we move up a unit instead,
 * or for seconds print the rounded integer ("3600s").
 */
char *sprint_time(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t div;
		const char *name;
	} units[] = {
		{ NSEC_PER_USEC, "us" },
		{ NSEC_PER_MSEC, "ms" },
		{ NSEC_PER_SEC, "s" },
	};
	const size_t last = ARRAY_SIZE(units) - 1;
	char tmp[UNITS_BUF];
	size_t i;

	if (ns < NSEC_PER_USEC)
		return sprint_u64(ns, "ns", buf, len);
	for (i = last; ns < units[i].div; i--)
		;
	snprintf(tmp, sizeof(tmp), "%.3g", (double)ns / units[i].div);
	if (!strchr(tmp, 'e'))
		snprintf(buf, len, "%s%s", tmp, units[i].name);
	else if (i < last)
		/* [999.5, 1000) of this unit rounds to 1 of the next */
		snprintf(buf, len, "1%s", units[i + 1].name);
	else
		snprintf(buf, len, "%.0fs", (double)ns / NSEC_PER_SEC);
	return buf;
}

char *sprint_handle(uint32_t h, char *buf, size_t len)
{
	snprintf(buf, len, "%x:", h >> 16);
	return buf;
}

char *sprint_classid(uint32_t h, char *buf, size_t len)
{
	uint32_t maj = h >> 16, min = h & 0xffff;

	if (h == UNITS_H_ROOT)
		snprintf(buf, len, "root");
	else if (!h)
		snprintf(buf, len, "none");
	else if (!maj)
		snprintf(buf, len, ":%x", min);
	else if (!min)
		snprintf(buf, len, "%x:", maj);
	else
		snprintf(buf, len, "%x:%x", maj, min);
	return buf;
}
