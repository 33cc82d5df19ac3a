// SPDX-License-Identifier: GPL-2.0
/*
 * show ... flows: the flow table of every matching instance whose kind
 * keeps one, read entry by entry from the registration's map. The table
 * changes while it is read; each entry is consistent only with itself.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cmd/show.h"
#include "kinds/flows.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/qdisc_print.h"

struct flows_ctx {
	struct show_ctx *show;
	const char *sort;
	int listed;
	int ret;
};

/*
 * Slot id's part of the map, per_inst values into vals: one batch, so that
 * the entries are close in time; entry by entry where batches fail.
 */
static int read_values(int fd, const struct qd_flows *f, uint32_t id, uint32_t vsize, char *vals)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t first = id * f->per_inst, in = first - 1, out, count = f->per_inst;
	uint32_t *keys = calloc(f->per_inst, sizeof(*keys));
	bool whole = false;

	/* A batch starts after in_batch; the map's first key needs none. */
	if (keys && (!bpf_map_lookup_batch(fd, id ? &in : NULL, &out, keys, vals, &count, &opts) ||
		     errno == ENOENT))
		whole = count == f->per_inst && keys[0] == first &&
			keys[count - 1] == first + count - 1;
	free(keys);
	if (whole)
		return 0;
	for (uint32_t i = 0; i < f->per_inst; i++) {
		uint32_t key = first + i;

		if (bpf_map_lookup_elem(fd, &key, vals + (size_t)i * vsize))
			return -errno;
	}
	return 0;
}

/* The entries in use of slot id: a count, or -errno (printed). */
static int read_table(const struct qd_reg *reg, uint32_t id, struct qd_flow_entry *e, char *vals)
{
	const struct qd_flows *f = reg->kind->flows;
	uint32_t vsize;
	int fd, err, n = 0;

	fd = qd_reg_map(reg, f->map, &vsize);
	if (fd < 0) {
		qd_err("show: cannot open the \"%s\" map of %s: %s", f->map, reg->kind->id,
		       strerror(-fd));
		return fd;
	}
	if (vsize != f->value_size) {
		qd_err("show: the \"%s\" map of %s holds %u-byte entries, this qdiscctl expects %u "
		       "(another build registered it)",
		       f->map, reg->kind->id, vsize, f->value_size);
		close(fd);
		return -EPROTO;
	}
	err = read_values(fd, f, id, vsize, vals);
	close(fd);
	if (err) {
		qd_err("show: cannot read the \"%s\" map of %s: %s", f->map, reg->kind->id,
		       strerror(-err));
		return err;
	}
	for (uint32_t i = 0; i < f->per_inst; i++) {
		char *val = vals + (size_t)i * vsize;

		if (qd_flow_used(f, val))
			e[n++] = (struct qd_flow_entry){ i, val };
	}
	return n;
}

static int list_one(const struct qdisc_info *qi, void *data)
{
	struct flows_ctx *ctx = data;
	const struct qd_flows *f;
	const struct qd_reg *reg;
	struct qd_flow_entry *e;
	char dev[IF_NAMESIZE], *vals;
	uint64_t now;
	uint32_t id;
	int n;

	if (ctx->ret || !show_wanted(ctx->show, qi) || !(reg = show_instance(ctx->show, qi, &id)) ||
	    !(f = reg->kind->flows))
		return 0;
	e = calloc(f->per_inst, sizeof(*e));
	vals = calloc(f->per_inst, f->value_size);
	if (!e || !vals) {
		qd_err("show: out of memory");
		ctx->ret = QD_EXIT_FAIL;
		goto out;
	}
	/* Before the read: deadlines are what was left when it began. */
	now = show_now();
	n = read_table(reg, id, e, vals);
	if (n < 0) {
		ctx->ret = QD_EXIT_FAIL;
		goto out;
	}
	if (ctx->sort && qd_flows_col(f, ctx->sort))
		qd_flows_sort(e, n, qd_flows_col(f, ctx->sort));
	open_json_object(NULL);
	qdisc_print_head(qi, show_dev(ctx->show, qi, dev));
	print_text("\n");
	qd_flows_print(f, e, n, now, qd_opts.stats);
	close_json_object();
	ctx->listed++;
out:
	free(e);
	free(vals);
	return 0;
}

/* Kinds with a flow table, and whether one of them has the sort column. */
static bool sort_known(const char *sort, char *kinds, size_t len)
{
	bool known = !sort;
	size_t n = 0;

	kinds[0] = '\0';
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		if (!(*k)->flows)
			continue;
		if (n < len)
			n += snprintf(kinds + n, len - n, "%s%s", n ? ", " : "", (*k)->name);
		if (sort && qd_flows_col((*k)->flows, sort))
			known = true;
	}
	return known;
}

static void sort_error(const char *sort)
{
	char cols[512];
	size_t n = 0;

	cols[0] = '\0';
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		for (const struct qd_col *c = (*k)->flows ? (*k)->flows->cols : NULL; c && c->name;
		     c++)
			if (n < sizeof(cols) && !strstr(cols, c->name))
				n += snprintf(cols + n, sizeof(cols) - n, " %s", c->name);
	qd_err("show: cannot sort flows by \"%s\" (columns:%s)", sort, cols);
}

int show_flows(struct rtnl *rt, struct show_ctx *ctx, const char *sort)
{
	struct flows_ctx fc = { .show = ctx, .sort = sort };
	char kinds[256];
	int err;

	if (!sort_known(sort, kinds, sizeof(kinds))) {
		sort_error(sort);
		return QD_EXIT_USAGE;
	}
	open_json_array(PRINT_JSON, NULL);
	err = qdisc_dump(rt, ctx->filter->ifindex, list_one, &fc);
	close_json_array(PRINT_JSON, NULL);
	if (err) {
		qd_err_kernel(err, rt->errmsg);
		return QD_EXIT_KERNEL;
	}
	if (!fc.ret && !fc.listed) {
		qd_err("show: no matching qdisc keeps a flow table (kinds that do: %s)",
		       kinds[0] ? kinds : "none");
		return QD_EXIT_FAIL;
	}
	return fc.ret;
}
