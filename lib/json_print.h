/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call site for both text and JSON output, in the spirit of iproute2's
 * json_print: each print_*() names the modes it is for (PRINT_FP text,
 * PRINT_JSON, or PRINT_ANY both) and is silently skipped in the other.
 *
 * Text mode: fmt is printed with the value, printf-style; fmt NULL prints
 * nothing.  fmt holds one conversion of the value's own type, or none:
 * "%llu" (or "%llx", "%5llu") for print_uint and the unit helpers' %s of
 * the value in tc's units, "%lld" for print_int, "%s" for the others.
 * Each print_*() is a macro that has the compiler check fmt against that
 * type (-Wformat), so formats are never adjusted at run time.
 *
 * JSON mode: output matches tc -j byte for byte: compact
 * {"a":1,"b":"x"}; with pretty it matches tc -p -j (4-space indent,
 * arrays kept on one line as "[ 1,2 ]", "},{" between array objects).
 * Keys are dropped inside arrays, where JSON has none.  The caller opens
 * the top-level array or object itself.  Nesting deeper than
 * OUT_MAX_DEPTH is dropped (up to its matching close) rather than
 * corrupting the document.
 *
 * There is one global output, like tc's: no locking, not reentrant.
 */
#ifndef QDISCCTL_JSON_PRINT_H
#define QDISCCTL_JSON_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OUT_MAX_DEPTH 16

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 3,
};

/*
 * The length of the UTF-8 character s starts with (1 to 4 bytes), or 0
 * when s does not start a valid one (a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, or cut short).
 */
size_t utf8_len(const char *s);

/* Begin a document on f (NULL = stdout); JSON emits nothing until data. */
void out_start(FILE *f, bool json, bool pretty);
/* Close anything left open, end JSON with a newline, flush, reset. */
void out_end(void);
bool out_is_json(void);
/* JSON written since out_start(). */
bool out_emitted(void);
/* JSON mode and the innermost open container is an object. */
bool out_in_object(void);

/* Text mode prints nothing on open and delim (if not NULL) on close. */
void open_json_array(enum output_type t, const char *key);
void close_json_array(enum output_type t, const char *delim);
/* JSON only. */
void open_json_object(const char *key);
void close_json_object(void);

/* val NULL is JSON null, and "" in text. */
void print_string(enum output_type t, const char *key, const char *fmt, const char *val);
void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t val);
void print_int(enum output_type t, const char *key, const char *fmt, int64_t val);
/*
 * As iproute2: JSON true/false; text prints fmt with "true" or "false" as
 * its %s argument.  fmt need not use it: print_bool(PRINT_ANY,
 * "horizon_drop", "horizon_drop ", true) prints just the word.
 */
void print_bool(enum output_type t, const char *key, const char *fmt, bool val);
/* JSON null; text prints fmt with text_value. */
void print_null(enum output_type t, const char *key, const char *fmt, const char *text_value);
/*
 * A number in tc's units: JSON the number, text fmt with the number as tc
 * writes it as its %s ("1500b", "10Mbit", "40ms").
 */
void print_size(enum output_type t, const char *key, const char *fmt, uint64_t bytes);
void print_rate(enum output_type t, const char *key, const char *fmt, uint64_t bytes_per_sec);
void print_time(enum output_type t, const char *key, const char *fmt, uint64_t ns);

/*
 * fmt checked as printf would check it with the one argument arg. A
 * format may leave its value out ("root "), and NULL is for JSON only:
 * neither is an extra argument here, so that warning is off for the check.
 */
static inline void __attribute__((format(printf, 1, 2))) print_fmt_check(const char *fmt, ...)
{
	(void)fmt;
}

#define PRINT_CHECKED(fn, arg, t, key, fmt, val)                                         \
	do {                                                                             \
		_Pragma("GCC diagnostic push")                                           \
			_Pragma("GCC diagnostic ignored \"-Wformat-extra-args\"") if (0) \
				print_fmt_check(fmt, arg);                               \
		_Pragma("GCC diagnostic pop")(fn)(t, key, fmt, val);                     \
	} while (0)

#define print_string(t, key, fmt, val) PRINT_CHECKED(print_string, "", t, key, fmt, val)
#define print_uint(t, key, fmt, val)   PRINT_CHECKED(print_uint, 0ULL, t, key, fmt, val)
#define print_int(t, key, fmt, val)    PRINT_CHECKED(print_int, 0LL, t, key, fmt, val)
#define print_bool(t, key, fmt, val)   PRINT_CHECKED(print_bool, "", t, key, fmt, val)
#define print_null(t, key, fmt, val)   PRINT_CHECKED(print_null, "", t, key, fmt, val)
#define print_size(t, key, fmt, val)   PRINT_CHECKED(print_size, "", t, key, fmt, val)
#define print_rate(t, key, fmt, val)   PRINT_CHECKED(print_rate, "", t, key, fmt, val)
#define print_time(t, key, fmt, val)   PRINT_CHECKED(print_time, "", t, key, fmt, val)

/* Newline, text mode only. */
void print_nl(void);
/* printf, text mode only. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* QDISCCTL_JSON_PRINT_H */
