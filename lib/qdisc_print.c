// SPDX-License-Identifier: GPL-2.0
#include "lib/json_print.h"
#include "lib/qdisc_print.h"
#include "lib/units.h"

static void print_stats(const struct qdisc_stats *st)
{
	char b[UNITS_BUF];

	print_text(" Sent %llu bytes %llu pkt (dropped %u, overlimits %u requeues %u) \n",
		   (unsigned long long)st->bytes, (unsigned long long)st->packets, st->drops,
		   st->overlimits, st->requeues);
	print_uint(PRINT_JSON, "bytes", NULL, st->bytes);
	print_uint(PRINT_JSON, "packets", NULL, st->packets);
	print_uint(PRINT_JSON, "drops", NULL, st->drops);
	print_uint(PRINT_JSON, "overlimits", NULL, st->overlimits);
	print_uint(PRINT_JSON, "requeues", NULL, st->requeues);
	print_uint(PRINT_JSON, "backlog", NULL, st->backlog);
	print_uint(PRINT_JSON, "qlen", NULL, st->qlen);
	print_text(" backlog %s %up requeues %u\n", sprint_size(st->backlog, b, sizeof(b)),
		   st->qlen, st->requeues);
}

void qdisc_print_head(const struct qdisc_info *qi, const char *dev)
{
	char b[UNITS_BUF];

	print_string(PRINT_ANY, "kind", "qdisc %s ", qi->kind);
	print_string(PRINT_ANY, "handle", "%s ", sprint_handle(qi->handle, b, sizeof(b)));
	if (dev)
		print_string(PRINT_ANY, "dev", "dev %s ", dev);
	if (qi->parent == UNITS_H_ROOT)
		print_bool(PRINT_ANY, "root", "root ", true);
	else if (qi->parent)
		print_string(PRINT_ANY, "parent", "parent %s ",
			     sprint_classid(qi->parent, b, sizeof(b)));
	if (qi->refcnt != 1)
		print_uint(PRINT_ANY, "refcnt", "refcnt %u ", qi->refcnt);
	if (qi->offloaded)
		print_bool(PRINT_ANY, "offloaded", "offloaded ", true);
}

void qdisc_print(const struct qdisc_info *qi, const char *dev, bool stats, qdisc_print_fn options,
		 qdisc_print_fn xstats, void *data)
{
	open_json_object(NULL);
	qdisc_print_head(qi, dev);
	open_json_object("options");
	if (options)
		options(qi, data);
	close_json_object();
	print_text("\n");
	if (stats && qi->has_stats) {
		print_stats(&qi->stats);
		if (xstats)
			xstats(qi, data);
	}
	close_json_object();
}
