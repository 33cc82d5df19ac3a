// SPDX-License-Identifier: GPL-2.0
#include "lib/json_print.h"
#include "lib/units.h"
#include "netlink/qdisc_print.h"

/* One typed call per field: a line of numbers through vfprintf costs several times more. */
static void print_stats(const struct qdisc_stats *st)
{
	print_uint(PRINT_ANY, "bytes", " Sent %llu bytes ", st->bytes);
	print_uint(PRINT_ANY, "packets", "%llu pkt ", st->packets);
	print_uint(PRINT_ANY, "drops", "(dropped %llu, ", st->drops);
	print_uint(PRINT_ANY, "overlimits", "overlimits %llu ", st->overlimits);
	print_uint(PRINT_ANY, "requeues", "requeues %llu) ", st->requeues);
	print_nl();
	print_size(PRINT_ANY, "backlog", " backlog %s ", st->backlog);
	print_uint(PRINT_ANY, "qlen", "%llup ", st->qlen);
	print_uint(PRINT_FP, NULL, "requeues %llu", st->requeues);
	print_nl();
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
		print_uint(PRINT_ANY, "refcnt", "refcnt %llu ", qi->refcnt);
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
