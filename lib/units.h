/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing and printing of tc-style numbers: rates, sizes, times, handles.
 *
 * Parsers return 0 on success, -EINVAL for malformed input and -ERANGE when
 * a well-formed value does not fit.  They never touch *out on failure.
 *
 * Numbers are plain decimal: "12", "1.5", ".5" and "5." are accepted;
 * signs, spaces, exponents ("1e3"), hex ("0x10", hex floats), "inf" and
 * "nan" are rejected, although tc's strtod() would take most of them: a
 * typo should not silently become a different value.  Fractions are exact
 * (no floating point) and results are rounded to the nearest integer,
 * halves up; tc truncates instead.  Digits past the 19th after the point
 * are checked but ignored.  Suffixes are matched case-insensitively and
 * must follow the number directly.
 *
 * Formatters write at most len bytes (always NUL-terminated when len > 0)
 * and return buf.  UNITS_BUF is always enough.
 */
#ifndef QDISCCTL_UNITS_H
#define QDISCCTL_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_BUF 64

#define UNITS_H_ROOT	0xFFFFFFFFU /* TC_H_ROOT */
#define UNITS_H_INGRESS 0xFFFFFFF1U /* TC_H_INGRESS, also clsact's parent */

/* Decimal digits only. */
int parse_u32(const char *s, uint32_t *out);
int parse_u64(const char *s, uint64_t *out);
/*
 * An integer in C's notation, as tc's get_unsigned(..., 0) reads it:
 * "0x" then hex digits, "0" then octal digits, or decimal. No sign, no
 * space.
 */
int parse_u64_base0(const char *s, uint64_t *out);

/*
 * Bare number = bit/s.  bit kbit mbit gbit tbit (x1000),
 * kibit mibit gibit tibit (x1024), and BYTES per second: bps kbps mbps
 * gbps tbps (x1000), kibps mibps gibps tibps (x1024).  As in tc the match
 * ignores case, so "mbps" means megabytes, not megabits.  0 is accepted;
 * so is anything that rounds to 0 ("1bit" is 1/8 byte/s -> 0).
 */
int parse_rate(const char *s, uint64_t *bytes_per_sec);

/* Bare or "b" = bytes; k/kb m/mb g/gb = 1024^n bytes; kbit mbit gbit =
 * 1024^n bits, i.e. 1024^n / 8 bytes (tc's get_size()). */
int parse_size(const char *s, uint64_t *bytes);

/*
 * Bare number = microseconds, as tc's get_time().
 * s sec secs, ms msec msecs, us usec usecs, ns nsec nsecs.
 */
int parse_time(const char *s, uint64_t *ns);
/*
 * As parse_time, but a bare number counts bare_ns nanoseconds: 1 for what
 * tc reads with get_time64() (fq's timer_slack).
 */
int parse_time_bare(const char *s, uint64_t bare_ns, uint64_t *ns);

/* Qdisc handle: "1:", "1", "1:0" -> 0x10000; "none" -> 0.  Major is hex,
 * 1..ffff (0 -> -EINVAL, > ffff -> -ERANGE); a non-zero minor is -EINVAL. */
int parse_handle(const char *s, uint32_t *out);

/*
 * Parent/class id: "root", "none" (0), "ingress" (ffff:fff1), "X:Y",
 * "X:" (minor 0) or ":Y" (major 0), hex, each part <= ffff (else -ERANGE).
 * Unlike tc, a bare "X" without a colon is rejected rather than taken as a
 * raw 32-bit id, since "parent 1" almost always means "1:".
 */
int parse_classid(const char *s, uint32_t *out);

/*
 * v in decimal, then unit, as snprintf "%llu%s" writes it: show prints
 * thousands of numbers, and snprintf costs some thousand instructions each.
 */
char *sprint_u64(uint64_t v, const char *unit, char *buf, size_t len);
/* Rate in bits as tc: "1Gbit", "550Kbit", "12344bit" (SI steps, truncated). */
char *sprint_rate(uint64_t bytes_per_sec, char *buf, size_t len);
/* Size as tc: "1514b", "64Kb", "1Mb", "1Gb" (1024 steps, near-multiples). */
char *sprint_size(uint64_t bytes, char *buf, size_t len);
/* Time as tc's sprint_time64(): "500ns", "10us", "40ms", "1.5s". */
char *sprint_time(uint64_t ns, char *buf, size_t len);
/* "1:", "ffff:"; only the major is printed, 0 -> "0:". */
char *sprint_handle(uint32_t h, char *buf, size_t len);
/* "root", "none", "1:", ":5", "1:10"; ingress prints as tc: "ffff:fff1". */
char *sprint_classid(uint32_t h, char *buf, size_t len);

#endif /* QDISCCTL_UNITS_H */
