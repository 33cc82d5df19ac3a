/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call site for both text and JSON output, in the spirit of iproute2's
 * json_print: each print_*() names the modes it is for (PRINT_FP text,
 * PRINT_JSON, or PRINT_ANY both) and is silently skipped in the other.
 *
 * Text mode: fmt is printed with the value, printf-style; fmt NULL prints
 * nothing.  fmt should hold at most one conversion.  print_uint() and
 * print_int() fix up the length modifier of an integer conversion, so
 * "%u", "%x", "%lu" or "%llu" all print the full 64-bit value.
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
/* Newline, text mode only. */
void print_nl(void);
/* printf, text mode only. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* QDISCCTL_JSON_PRINT_H */
