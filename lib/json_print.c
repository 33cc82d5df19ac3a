// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/json_print.h"
#include "lib/units.h"

struct out_frame {
	bool array;
	bool has_items; /* a comma is due before the next item */
};

static struct {
	FILE *f; /* NULL: whatever stdout is at each write */
	bool json;
	bool pretty;
	bool emitted;	       /* JSON written, so out_end() owes a newline */
	unsigned int depth;    /* open containers in stack[] */
	unsigned int dropped;  /* containers opened past OUT_MAX_DEPTH */
	struct out_frame root; /* top level: only has_items is used */
	struct out_frame stack[OUT_MAX_DEPTH];
} out;

static FILE *out_fp(void)
{
	return out.f ? out.f : stdout;
}

static bool want_json(enum output_type t)
{
	return out.json && (t & PRINT_JSON) && !out.dropped;
}

static bool want_text(enum output_type t)
{
	return !out.json && (t & PRINT_FP);
}

void out_start(FILE *f, bool json, bool pretty)
{
	memset(&out, 0, sizeof(out));
	out.f = f;
	out.json = json;
	out.pretty = pretty;
}

bool out_is_json(void)
{
	return out.json;
}

bool out_emitted(void)
{
	return out.emitted;
}

bool out_in_object(void)
{
	return out.json && out.depth && !out.stack[out.depth - 1].array;
}

/*
 * Output goes through stdio's unlocked calls: qdiscctl has one thread,
 * and show -s writes some hundred pieces per qdisc for thousands of qdiscs,
 * where a lock and a call per piece are most of the cost.
 */

/* v in decimal, without vfprintf's thousand instructions per number. */
static void put_u64(FILE *f, uint64_t v)
{
	char buf[UNITS_BUF];

	fputs_unlocked(sprint_u64(v, "", buf, sizeof(buf)), f);
}

static void put_i64(FILE *f, int64_t v)
{
	if (v < 0)
		putc_unlocked('-', f);
	put_u64(f, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* --- JSON ------------------------------------------------------------ */

static struct out_frame *json_cur(void)
{
	return out.depth ? &out.stack[out.depth - 1] : &out.root;
}

static void json_newline(FILE *f)
{
	unsigned int i;

	putc_unlocked('\n', f);
	for (i = 0; i < out.depth; i++)
		fputs_unlocked("    ", f);
}

size_t utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i;
	uint32_t cp;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) /* also the NUL of a string cut short */
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* JSON text must be UTF-8: a byte that is not part of a valid character becomes U+FFFD. */
static void json_puts(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (; *s; s++) {
		unsigned char c = *s;
		size_t n;

		if (c >= 0x80) {
			n = utf8_len(s);
			if (n)
				fwrite_unlocked(s, 1, n, f);
			else
				fputs_unlocked("\\ufffd", f);
			s += n ? n - 1 : 0;
			continue;
		}
		switch (c) {
		case '"':
			fputs_unlocked("\\\"", f);
			break;
		case '\\':
			fputs_unlocked("\\\\", f);
			break;
		case '\b':
			fputs_unlocked("\\b", f);
			break;
		case '\f':
			fputs_unlocked("\\f", f);
			break;
		case '\n':
			fputs_unlocked("\\n", f);
			break;
		case '\r':
			fputs_unlocked("\\r", f);
			break;
		case '\t':
			fputs_unlocked("\\t", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				putc_unlocked(c, f);
		}
	}
	putc_unlocked('"', f);
}

/*
 * Separator, then '"key": ' for object members.  Like tc, pretty mode puts
 * each object member on its own line but keeps array elements inline.
 */
static void json_item(const char *key)
{
	struct out_frame *fr = json_cur();
	FILE *f = out_fp();

	if (fr->has_items)
		putc_unlocked(',', f);
	fr->has_items = true;
	out.emitted = true;
	if (!key || fr->array)
		return;
	if (out.pretty)
		json_newline(f);
	json_puts(f, key);
	putc_unlocked(':', f);
	if (out.pretty)
		putc_unlocked(' ', f);
}

static void json_open(const char *key, bool array)
{
	FILE *f = out_fp();

	if (out.dropped || out.depth == OUT_MAX_DEPTH) {
		out.dropped++;
		return;
	}
	json_item(key);
	putc_unlocked(array ? '[' : '{', f);
	if (array && out.pretty)
		putc_unlocked(' ', f);
	out.stack[out.depth].array = array;
	out.stack[out.depth].has_items = false;
	out.depth++;
}

/* Closes whatever is innermost, so a mismatched call still yields JSON. */
static void json_close(void)
{
	struct out_frame fr;
	FILE *f = out_fp();

	if (out.dropped) {
		out.dropped--;
		return;
	}
	if (!out.depth)
		return;
	fr = out.stack[--out.depth];
	if (fr.array) {
		if (out.pretty && fr.has_items)
			putc_unlocked(' ', f);
		putc_unlocked(']', f);
	} else {
		if (out.pretty && fr.has_items)
			json_newline(f);
		putc_unlocked('}', f);
	}
}

void out_end(void)
{
	FILE *f = out_fp();

	if (out.json) {
		out.dropped = 0;
		while (out.depth)
			json_close();
		if (out.emitted)
			putc_unlocked('\n', f);
	}
	fflush(f);
	memset(&out, 0, sizeof(out));
}

void open_json_array(enum output_type t, const char *key)
{
	if (out.json && (t & PRINT_JSON))
		json_open(key, true);
}

void close_json_array(enum output_type t, const char *delim)
{
	if (out.json && (t & PRINT_JSON))
		json_close();
	else if (want_text(t) && delim)
		fputs_unlocked(delim, out_fp());
}

void open_json_object(const char *key)
{
	if (out.json)
		json_open(key, false);
}

void close_json_object(void)
{
	if (out.json)
		json_close();
}

/* --- text ------------------------------------------------------------ */

/*
 * fmt with text as its conversion's output, when fmt has none or exactly
 * plain ("%llu", "%s") between literal text: show -s writes some hundred
 * of those per qdisc, which vfprintf would cost several times more. False
 * for any other format (widths, "%%"), which the caller gives vfprintf.
 */
static bool text_plain(const char *fmt, const char *plain, const char *text)
{
	const char *p = strchr(fmt, '%');
	size_t n = strlen(plain);
	FILE *f = out_fp();

	if (p && (strncmp(p, plain, n) || strchr(p + n, '%')))
		return false;
	if (!p) {
		fputs_unlocked(fmt, f);
		return true;
	}
	fwrite_unlocked(fmt, 1, p - fmt, f);
	fputs_unlocked(text, f);
	fputs_unlocked(p + n, f);
	return true;
}

/* The compiler checked fmt's one conversion (or none) against the value's type. */
static void text_uint(const char *fmt, uint64_t v)
{
	char buf[UNITS_BUF];

	if (fmt && !text_plain(fmt, "%llu", sprint_u64(v, "", buf, sizeof(buf))))
		fprintf(out_fp(), fmt, (unsigned long long)v);
}

static void text_str(const char *fmt, const char *s)
{
	if (fmt && !text_plain(fmt, "%s", s))
		fprintf(out_fp(), fmt, s);
}

/* --- values ---------------------------------------------------------- */

void(print_string)(enum output_type t, const char *key, const char *fmt, const char *val)
{
	if (want_json(t)) {
		json_item(key);
		if (val)
			json_puts(out_fp(), val);
		else
			fputs_unlocked("null", out_fp());
	} else if (want_text(t)) {
		text_str(fmt, val ? val : "");
	}
}

void(print_uint)(enum output_type t, const char *key, const char *fmt, uint64_t val)
{
	if (want_json(t)) {
		json_item(key);
		put_u64(out_fp(), val);
	} else if (want_text(t)) {
		text_uint(fmt, val);
	}
}

void(print_int)(enum output_type t, const char *key, const char *fmt, int64_t val)
{
	if (want_json(t)) {
		json_item(key);
		put_i64(out_fp(), val);
	} else if (want_text(t) && fmt) {
		fprintf(out_fp(), fmt, (long long)val);
	}
}

void(print_bool)(enum output_type t, const char *key, const char *fmt, bool val)
{
	if (want_json(t)) {
		json_item(key);
		fputs_unlocked(val ? "true" : "false", out_fp());
	} else if (want_text(t)) {
		text_str(fmt, val ? "true" : "false");
	}
}

void(print_null)(enum output_type t, const char *key, const char *fmt, const char *text_value)
{
	if (want_json(t)) {
		json_item(key);
		fputs_unlocked("null", out_fp());
	} else if (want_text(t)) {
		text_str(fmt, text_value ? text_value : "");
	}
}

/* JSON v, text fmt with v as sprint writes it. */
static void print_units(enum output_type t, const char *key, const char *fmt, uint64_t v,
			char *(*sprint)(uint64_t v, char *buf, size_t len))
{
	char buf[UNITS_BUF];

	if (want_json(t)) {
		json_item(key);
		put_u64(out_fp(), v);
	} else if (want_text(t) && fmt) {
		text_str(fmt, sprint(v, buf, sizeof(buf)));
	}
}

void(print_size)(enum output_type t, const char *key, const char *fmt, uint64_t bytes)
{
	print_units(t, key, fmt, bytes, sprint_size);
}

void(print_rate)(enum output_type t, const char *key, const char *fmt, uint64_t bytes_per_sec)
{
	print_units(t, key, fmt, bytes_per_sec, sprint_rate);
}

void(print_time)(enum output_type t, const char *key, const char *fmt, uint64_t ns)
{
	print_units(t, key, fmt, ns, sprint_time);
}

void print_nl(void)
{
	if (!out.json)
		putc_unlocked('\n', out_fp());
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (out.json || !fmt)
		return;
	va_start(ap, fmt);
	vfprintf(out_fp(), fmt, ap);
	va_end(ap);
}
