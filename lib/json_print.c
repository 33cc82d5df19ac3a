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

static void json_puts(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

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
			/* bytes >= 0x80 are passed through: UTF-8 stays UTF-8 */
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

enum val_kind { VAL_STR, VAL_UINT, VAL_INT };

struct val {
	enum val_kind kind;
	const char *s;
	uint64_t u;
	int64_t i;
};

/* Copy [p, end) to f, reading "%%" as '%'. */
static void put_literal(FILE *f, const char *p, const char *end)
{
	for (; p < end; p++) {
		if (p[0] == '%' && p + 1 < end && p[1] == '%')
			p++;
		putc_unlocked(*p, f);
	}
}

struct conv {
	const char *start; /* the '%' */
	const char *end;   /* past the conversion letter */
	char spec[24];	   /* '%', flags, width, precision; no length */
	char letter;
};

/* Find the first conversion of fmt; false if there is none. */
static bool find_conv(const char *fmt, struct conv *c)
{
	const char *p = fmt, *q;
	size_t n;

	while ((p = strchr(p, '%')) && p[1] == '%')
		p += 2;
	if (!p)
		return false;

	for (q = p + 1; *q && strchr("-+ #0'123456789.", *q); q++)
		;
	n = q - p;
	/* leave room for "ll", the letter and NUL; else drop the modifiers */
	if (n > sizeof(c->spec) - 4)
		n = 1;
	memcpy(c->spec, p, n);
	c->spec[n] = '\0';

	while (*q && strchr("hlLqjzt", *q))
		q++;
	c->letter = *q;
	c->start = p;
	c->end = *q ? q + 1 : q;
	return true;
}

/* The spec with its modifiers (or just "%"), then mod and letter. */
static const char *conv_fmt(struct conv *c, bool keep, const char *mod, char letter)
{
	size_t n = keep ? strlen(c->spec) : 1;

	snprintf(c->spec + n, sizeof(c->spec) - n, "%s%c", mod, letter);
	return c->spec;
}

static bool is_int_letter(char c)
{
	return c && strchr("diouxX", c);
}

static bool is_signed_letter(char c)
{
	return c == 'd' || c == 'i';
}

/*
 * Whatever the caller wrote, the value is passed with the type the final
 * format says: "%u" with a 64-bit value, or "%d" next to a string, would
 * otherwise read an argument that is not there.
 */
static void put_conv(FILE *f, struct conv *c, const struct val *v)
{
	bool isint = is_int_letter(c->letter);
	/* No flags, width or precision: the common case, written directly. */
	bool plain = !c->spec[1];

	switch (v->kind) {
	case VAL_STR:
		if (plain || c->letter != 's')
			fputs_unlocked(v->s, f);
		else
			fprintf(f, conv_fmt(c, true, "", 's'), v->s);
		break;
	case VAL_UINT:
		/* a u64 is never shown negative, so %d becomes %u */
		if (!isint || is_signed_letter(c->letter))
			c->letter = 'u';
		if ((plain || !isint) && c->letter == 'u')
			put_u64(f, v->u);
		else
			fprintf(f, conv_fmt(c, isint, "ll", c->letter), (unsigned long long)v->u);
		break;
	case VAL_INT:
		if (!isint)
			c->letter = 'd';
		if ((plain || !isint) && is_signed_letter(c->letter)) {
			put_i64(f, v->i);
		} else if (is_signed_letter(c->letter)) {
			fprintf(f, conv_fmt(c, isint, "ll", c->letter), (long long)v->i);
		} else {
			fprintf(f, conv_fmt(c, isint, "ll", c->letter), (unsigned long long)v->i);
		}
		break;
	}
}

/* printf one value through fmt, which should have one conversion at most */
static void text_print(const char *fmt, const struct val *v)
{
	FILE *f = out_fp();
	struct conv c;

	if (!fmt)
		return;
	if (!find_conv(fmt, &c)) {
		put_literal(f, fmt, fmt + strlen(fmt));
		return;
	}
	put_literal(f, fmt, c.start);
	put_conv(f, &c, v);
	put_literal(f, c.end, c.end + strlen(c.end));
}

/* --- values ---------------------------------------------------------- */

void print_string(enum output_type t, const char *key, const char *fmt, const char *val)
{
	struct val v = { .kind = VAL_STR, .s = val ? val : "" };

	if (want_json(t)) {
		json_item(key);
		if (val)
			json_puts(out_fp(), val);
		else
			fputs_unlocked("null", out_fp());
	} else if (want_text(t)) {
		text_print(fmt, &v);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t val)
{
	struct val v = { .kind = VAL_UINT, .u = val };

	if (want_json(t)) {
		json_item(key);
		put_u64(out_fp(), val);
	} else if (want_text(t)) {
		text_print(fmt, &v);
	}
}

void print_int(enum output_type t, const char *key, const char *fmt, int64_t val)
{
	struct val v = { .kind = VAL_INT, .i = val };

	if (want_json(t)) {
		json_item(key);
		put_i64(out_fp(), val);
	} else if (want_text(t)) {
		text_print(fmt, &v);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt, bool val)
{
	struct val v = { .kind = VAL_STR, .s = val ? "true" : "false" };

	if (want_json(t)) {
		json_item(key);
		fputs_unlocked(v.s, out_fp());
	} else if (want_text(t)) {
		text_print(fmt, &v);
	}
}

void print_null(enum output_type t, const char *key, const char *fmt, const char *text_value)
{
	struct val v = { .kind = VAL_STR, .s = text_value ? text_value : "" };

	if (want_json(t)) {
		json_item(key);
		fputs_unlocked("null", out_fp());
	} else if (want_text(t)) {
		text_print(fmt, &v);
	}
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
