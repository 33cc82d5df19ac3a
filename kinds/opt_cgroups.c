// SPDX-License-Identifier: GPL-2.0
/*
 * QD_OPT_CGROUPS: repeatable "NAME PATH SUB VALUE [FIELD VALUE]...", a
 * value (of type .sub_type, in min..max) for a cgroup v2 directory and
 * optional .fields, in an array of .count entries of .width bytes at .off,
 * each starting with a struct qd_cgroup_val (id 0: unused); "UNSET PATH"
 * removes the entry. JSON "NAME":[{"path":...,"id":...,"SUB":...,
 * "FIELD":...}].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kinds/opt.h"
#include "lib/cgroup.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"

/* The operations of an entry's value. */
static const struct qd_opt_ops *sub_ops(const struct qd_opt *o)
{
	return qd_opt_type_ops(o->sub_type);
}

/* Check an entry's VALUE, named by both words: "cgroup rate". */
static int parse_checked(const struct qd_kind *k, const struct qd_opt *o, const char *s,
			 uint64_t *v)
{
	const struct qd_opt sub = { .type = o->sub_type };
	char name[64];

	snprintf(name, sizeof(name), "%s %s", o->name, o->sub);
	return qd_opt_check(k, o, sub_ops(o), name, qd_opt_metavar(&sub), s, v);
}

static const char *value_word(const struct qd_opt *o, enum qd_opt_type type, uint64_t v, char *buf,
			      size_t len)
{
	return qd_opt_value_word(o, qd_opt_type_ops(type), v, buf, len);
}

/* Entry i of o in cfg: entries are o->width bytes apart. */
static struct qd_cgroup_val *cgroup_at(const struct qd_opt *o, const void *cfg, unsigned int i)
{
	return (struct qd_cgroup_val *)((char *)cfg + o->off + (size_t)i * o->width);
}

/* The field of o named word, or NULL. */
static const struct qd_opt *cgroup_field(const struct qd_opt *o, const char *word)
{
	for (const struct qd_opt *f = o->fields; f && f->name; f++)
		if (!strcmp(f->name, word))
			return f;
	return NULL;
}

/* The cgroup a PATH word names; prints why not and returns -EINVAL. */
static int parse_cgroup(const struct qd_kind *k, const struct qd_opt *o, const char *path,
			uint64_t *id)
{
	int err = qd_cgroup_id(path, id);

	if (err == -ENOTDIR)
		qd_err("%s: %s \"%s\" is not a cgroup v2 directory", k->name, o->name,
		       qd_tok(path));
	else if (err)
		qd_err("%s: %s \"%s\": %s", k->name, o->name, qd_tok(path), strerror(-err));
	return err ? -EINVAL : 0;
}

/*
 * "NAME PATH SUB VALUE [FIELD VALUE]..." from argv[i] on: set the entry
 * of PATH's cgroup, or take a free one; a field not given takes its
 * default. Entries keep their places, so the program's per-entry state
 * and counters stay with their cgroup across changes.
 */
static int parse_cgroup_entry(const struct qd_kind *k, const struct qd_opt *o, int argc,
			      char **argv, int i, void *cfg)
{
	_Alignas(uint64_t) char entry[QD_CGROUP_ENTRY_MAX];
	struct qd_cgroup_val *slot = NULL, *e = (struct qd_cgroup_val *)entry;
	char **words = &argv[i + 1];
	const struct qd_opt *f;

	if (o->width < sizeof(*e) || o->width > sizeof(entry))
		return -EINVAL;
	memset(entry, 0, sizeof(entry));
	if (parse_cgroup(k, o, words[0], &e->id))
		return -EINVAL;
	if (strcmp(words[1], o->sub)) {
		qd_err("%s: expected \"%s\" after %s %s, not \"%s\"", k->name, o->sub, o->name,
		       qd_tok(words[0]), qd_tok(words[1]));
		return -EINVAL;
	}
	if (parse_checked(k, o, words[2], &e->val))
		return -EINVAL;
	for (f = o->fields; f && f->name; f++)
		qd_opt_set(f, entry, f->def);
	for (int n = i + 3; n + 1 < argc && (f = cgroup_field(o, argv[n + 1])); n += 2) {
		char name[64];
		uint64_t v;

		/* Errors name a field by both words: "cgroup ceil". */
		snprintf(name, sizeof(name), "%s %s", o->name, f->name);
		if (!qd_need_arg(argc, argv, n + 1) ||
		    qd_opt_check(k, f, qd_opt_ops(f), name, qd_opt_metavar(f), argv[n + 2], &v))
			return -EINVAL;
		qd_opt_set(f, entry, v);
	}
	for (unsigned int j = 0; j < o->count; j++) {
		struct qd_cgroup_val *c = cgroup_at(o, cfg, j);

		if (c->id == e->id) {
			slot = c;
			break;
		}
		if (!c->id && !slot)
			slot = c;
	}
	if (!slot) {
		qd_err("%s: %s \"%s\": already %u cgroups, the most an instance takes", k->name,
		       o->name, qd_tok(words[0]), o->count);
		return -EINVAL;
	}
	memcpy(slot, entry, o->width);
	return 0;
}

static int parse_cgroup_unset(const struct qd_kind *k, const struct qd_opt *o, const char *path,
			      void *cfg)
{
	uint64_t id;

	if (parse_cgroup(k, o, path, &id))
		return -EINVAL;
	for (unsigned int i = 0; i < o->count; i++) {
		if (cgroup_at(o, cfg, i)->id == id) {
			memset(cgroup_at(o, cfg, i), 0, o->width);
			return 0;
		}
	}
	qd_err("%s: %s \"%s\": no such cgroup here", k->name, o->unset, qd_tok(path));
	return -EINVAL;
}

/* Entries in use, in their order: text "NAME PATH SUB VALUE ...", a JSON array. */
static void print_cgroups(const struct qd_opt *o, const void *cfg)
{
	struct qd_opt sub = { .type = o->sub_type };
	char buf[UNITS_BUF], path[4096];

	open_json_array(PRINT_JSON, o->name);
	for (unsigned int i = 0; i < o->count; i++) {
		const struct qd_cgroup_val *e = cgroup_at(o, cfg, i);

		if (!e->id)
			continue;
		open_json_object(NULL);
		/* A removed cgroup can only be named by its id. */
		if (qd_cgroup_path(e->id, path, sizeof(path))) {
			print_string(PRINT_JSON, "path", NULL, path);
			print_text("%s %s ", o->name, path);
		} else {
			print_null(PRINT_JSON, "path", NULL, NULL);
			print_text("%s (removed, id %llu) ", o->name, (unsigned long long)e->id);
		}
		print_uint(PRINT_JSON, "id", NULL, e->id);
		print_uint(PRINT_JSON, o->sub, NULL, e->val);
		print_text("%s %s ", o->sub, qd_opt_text(&sub, e->val, buf, sizeof(buf)));
		/* Text leaves out the fields at their defaults, as show does options. */
		for (const struct qd_opt *f = o->fields; f && f->name; f++) {
			uint64_t v = qd_opt_get(f, e);

			print_uint(PRINT_JSON, f->name, NULL, v);
			if (v != f->def)
				print_text("%s %s ", f->name, qd_opt_text(f, v, buf, sizeof(buf)));
		}
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

/* Entry e's words after "SUB ": its value, then each field not at its default. */
static void entry_words(struct qd_words *b, const struct qd_opt *o, const struct qd_cgroup_val *e)
{
	char v[UNITS_BUF];

	qd_words_add(b, "%s", value_word(o, o->sub_type, e->val, v, sizeof(v)));
	for (const struct qd_opt *f = o->fields; f && f->name; f++) {
		uint64_t x = qd_opt_get(f, e);

		if (x != f->def)
			qd_words_add(b, " %s %s", f->name, value_word(f, f->type, x, v, sizeof(v)));
	}
}

/* "NAME PATH SUB VALUE [FIELD VALUE]..." for entry e of o: false when its cgroup is gone. */
static bool cgroup_words(struct qd_words *b, const struct qd_opt *o, const struct qd_cgroup_val *e)
{
	char path[4096];

	if (!qd_cgroup_path(e->id, path, sizeof(path)))
		return false;
	qd_words_add(b, "%s%s ", qd_words_sep(b, " "), o->name);
	qd_words_word(b, path);
	qd_words_add(b, " %s ", o->sub);
	entry_words(b, o, e);
	return true;
}

/* The entry of cgroup id in o's entries of cfg, or NULL. */
static const struct qd_cgroup_val *cgroup_entry(const struct qd_opt *o, const void *cfg,
						uint64_t id)
{
	for (unsigned int i = 0; id && i < o->count; i++)
		if (cgroup_at(o, cfg, i)->id == id)
			return cgroup_at(o, cfg, i);
	return NULL;
}

/*
 * Entries of o removed, added or changed between cur and want: how many,
 * or -ENOENT. Removals come first, so that change has room for what it adds.
 */
static int diff_cgroups(const struct qd_opt *o, const void *cur, const void *want,
			struct qd_words *d, struct qd_words *w)
{
	char path[4096];
	int n = 0;

	for (unsigned int i = 0; i < o->count; i++) {
		const struct qd_cgroup_val *ce = cgroup_at(o, cur, i);

		if (!ce->id || cgroup_entry(o, want, ce->id))
			continue;
		if (!qd_cgroup_path(ce->id, path, sizeof(path)))
			return -ENOENT;
		qd_words_add(d, "%s%s %s", qd_words_sep(d, ", "), o->unset, path);
		qd_words_add(w, "%s%s ", qd_words_sep(w, " "), o->unset);
		qd_words_word(w, path);
		n++;
	}
	for (unsigned int i = 0; i < o->count; i++) {
		const struct qd_cgroup_val *we = cgroup_at(o, want, i);
		const struct qd_cgroup_val *c = cgroup_entry(o, cur, we->id);

		if (!we->id || (c && !memcmp(c, we, o->width)))
			continue;
		if (!qd_cgroup_path(we->id, path, sizeof(path)))
			return -ENOENT;
		/* "cgroup PATH rate 4Mbit ceil 8Mbit -> 4Mbit ceil 16Mbit" */
		qd_words_add(d, "%s%s %s %s ", qd_words_sep(d, ", "), o->name, path, o->sub);
		if (c)
			entry_words(d, o, c);
		else
			qd_words_add(d, "none");
		qd_words_add(d, " -> ");
		entry_words(d, o, we);
		cgroup_words(w, o, we);
		n++;
	}
	return n;
}

/* PATH, or PATH SUB VALUE and the "FIELD VALUE" pairs after it. */
static unsigned int cgroup_nwords(const struct qd_opt *o, bool unset, int argc, char **argv, int i)
{
	unsigned int n = 3;

	if (unset)
		return 1;
	while (i + (int)n + 1 < argc && cgroup_field(o, argv[i + n + 1]))
		n += 2;
	return n;
}

static const char *cgroup_metavar(const struct qd_opt *o)
{
	(void)o;
	return "PATH";
}

static const char *cgroup_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	(void)o, (void)v, (void)buf, (void)len;
	return "none";
}

static int parse_entry(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv,
		       int i, void *cfg)
{
	if (!qd_need_arg(argc, argv, i) || !qd_need_arg(argc, argv, i + 1) ||
	    !qd_need_arg(argc, argv, i + 2))
		return -EINVAL;
	return parse_cgroup_entry(k, o, argc, argv, i, cfg);
}

static int parse_unset(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv,
		       int i, void *cfg)
{
	if (!qd_need_arg(argc, argv, i))
		return -EINVAL;
	return parse_cgroup_unset(k, o, argv[i + 1], cfg);
}

static int words_cgroups(const struct qd_opt *o, const void *cfg, struct qd_words *b)
{
	for (unsigned int i = 0; i < o->count; i++) {
		const struct qd_cgroup_val *e = cgroup_at(o, cfg, i);

		if (e->id && !cgroup_words(b, o, e))
			return -ENOENT;
	}
	return 0;
}

/* "cgroup PATH rate RATE [FIELD VALUE]...", "nocgroup PATH" */
static void complete_cgroups(const struct qd_opt *o, bool unset, unsigned int pos, FILE *f)
{
	if (unset || pos == 1) {
		qd_cgroup_list(f);
	} else if (pos == 2) {
		fprintf(f, "%s\n", o->sub);
	}
}

/* After an entry's words: its fields, besides the kind's options. */
static void follow_cgroups(const struct qd_opt *o, FILE *f)
{
	for (const struct qd_opt *field = o->fields; field && field->name; field++)
		fprintf(f, "%s\n", field->name);
}

static uint64_t cgroup_key(const struct qd_opt *o, const void *cfg, unsigned int i)
{
	return cgroup_at(o, cfg, i)->id;
}

/* "  cgroup PATH:" before the entry's counters; JSON "path" and "id". */
static void print_entry(const struct qd_opt *o, const void *cfg, unsigned int i)
{
	uint64_t id = cgroup_key(o, cfg, i);
	char path[4096];

	if (qd_cgroup_path(id, path, sizeof(path))) {
		print_text("  %s ", o->name);
		print_string(PRINT_ANY, "path", "%s:", path);
	} else {
		print_null(PRINT_JSON, "path", NULL, NULL);
		print_text("  %s (removed, id %llu):", o->name, (unsigned long long)id);
	}
	print_uint(PRINT_JSON, "id", NULL, id);
}

static void cgroup_label(const struct qd_opt *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s | %s PATH", o->name, qd_opt_metavar(o), o->unset);
}

static void describe_cgroups(const struct qd_opt *o)
{
	qd_opt_describe_number(o);
	print_uint(PRINT_JSON, "entries", NULL, o->count);
	print_string(PRINT_JSON, "value", NULL, o->sub);
	print_string(PRINT_JSON, "unset", NULL, o->unset);
	if (!o->fields)
		return;
	open_json_array(PRINT_JSON, "fields");
	for (const struct qd_opt *f = o->fields; f->name; f++) {
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, f->name);
		print_string(PRINT_JSON, "type", NULL,
			     qd_opt_ops(f)->type_name ?: qd_opt_metavar(f));
		qd_opt_ops(f)->describe(f);
		if (f->special)
			print_string(PRINT_JSON, "special", NULL, f->special);
		print_string(PRINT_JSON, "help", NULL, f->help);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static const struct qd_opt_ops cgroups_ops = {
	.type = QD_OPT_CGROUPS,
	.type_name = "cgroups",
	.metavar = cgroup_metavar,
	.repeat = true,
	.nwords = cgroup_nwords,
	.text = cgroup_text,
	.parse = parse_entry,
	.unset = parse_unset,
	.print = print_cgroups,
	.words = words_cgroups,
	.diff = diff_cgroups,
	.complete = complete_cgroups,
	.follow = follow_cgroups,
	.entry_key = cgroup_key,
	.print_entry = print_entry,
	.label = cgroup_label,
	.describe = describe_cgroups,
};
QD_OPT_TYPE_REGISTER(cgroups_ops);
