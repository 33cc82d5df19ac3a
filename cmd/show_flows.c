// SPDX-License-Identifier: GPL-2.0
/*
 * show ... flows: the flow table of every matching instance whose kind
 * keeps one: the entries of the registration's map the instance owns. The
 * table changes while it is read; each entry is consistent only with
 * itself.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cmd/show_flows.h"
#include "core/instance.h"
#include "kinds/flows.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "netlink/qdisc_print.h"

struct flows_ctx {
	struct qd_lookup *lk;
	const char *sort;
	int listed;
	int ret;
};

#define FLOWS_BATCH 4096

/*
 * Keep the entries of batch vals (n values of vsize bytes, keys from first)
 * that slot id owns and uses: append them to *vals_out, growing it.
 */
static int keep_owned(const struct qd_flows *f, uint32_t id, uint32_t first, const char *vals,
		      uint32_t n, uint32_t vsize, struct qd_flow_entry **e, char **kept,
		      size_t *nkept, size_t *cap)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *val = vals + (size_t)i * vsize;
		uint32_t owner;

		memcpy(&owner, val + f->owner_off, sizeof(owner));
		if (owner != id + 1 || !qd_flow_used(f, val))
			continue;
		if (*nkept == *cap) {
			size_t ncap = *cap ? 2 * *cap : 256;
			struct qd_flow_entry *ne = realloc(*e, ncap * sizeof(**e));
			char *nv;

			if (!ne)
				return -ENOMEM;
			*e = ne;
			nv = realloc(*kept, ncap * vsize);
			if (!nv)
				return -ENOMEM;
			*kept = nv;
			*cap = ncap;
		}
		memcpy(*kept + *nkept * vsize, val, vsize);
		(*e)[*nkept].index = first + i;
		(*nkept)++;
	}
	return 0;
}

/*
 * The entries slot id owns, read in batches of FLOWS_BATCH so that the
 * entries of a batch are close in time (entry by entry where batches
 * fail), into *e and *kept: a count, or -errno.
 */
static int read_owned(int fd, const struct qd_flows *f, uint32_t id, uint32_t vsize,
		      uint32_t entries, struct qd_flow_entry **e, char **kept)
{
	uint32_t *keys = calloc(FLOWS_BATCH, sizeof(*keys));
	char *vals = calloc(FLOWS_BATCH, vsize);
	size_t nkept = 0, cap = 0;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t first = 0; first < entries && !err;) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		uint32_t in = first - 1, out, count = FLOWS_BATCH;
		bool whole = false;

		if (count > entries - first)
			count = entries - first;
		/* A batch starts after in_batch; the map's first key needs none. */
		if (!bpf_map_lookup_batch(fd, first ? &in : NULL, &out, keys, vals, &count,
					  &opts) ||
		    errno == ENOENT)
			whole = count && keys[0] == first && keys[count - 1] == first + count - 1;
		if (!whole) {
			count = entries - first < FLOWS_BATCH ? entries - first : FLOWS_BATCH;
			for (uint32_t i = 0; i < count; i++) {
				uint32_t key = first + i;

				if (bpf_map_lookup_elem(fd, &key, vals + (size_t)i * vsize)) {
					err = -errno;
					break;
				}
			}
		}
		if (!err)
			err = keep_owned(f, id, first, vals, count, vsize, e, kept, &nkept, &cap);
		first += count;
	}
	/* The values moved while growing: point the entries at them last. */
	for (size_t i = 0; !err && i < nkept; i++)
		(*e)[i].val = *kept + i * vsize;
out:
	free(keys);
	free(vals);
	return err ? err : (int)nkept;
}

/*
 * How many of the table's entries may be in use: up to the first never
 * used, where the kind keeps it, else all (also when it cannot be read).
 */
static uint32_t used_entries(const struct qd_reg *reg, const struct qd_flows *f, uint32_t entries)
{
	uint32_t vsize, key = 0;
	uint64_t used;
	char *val;
	int fd;

	if (!f->used_map)
		return entries;
	fd = qd_reg_map(reg, f->used_map, &vsize);
	if (fd < 0)
		return entries;
	val = vsize >= f->used_off + sizeof(used) ? calloc(1, vsize) : NULL;
	if (val && !bpf_map_lookup_elem(fd, &key, val)) {
		memcpy(&used, val + f->used_off, sizeof(used));
		if (used < entries)
			entries = used;
	}
	free(val);
	close(fd);
	return entries;
}

int show_flows_read(const struct qd_reg *reg, uint32_t id, struct qd_flow_entry **e, char **vals)
{
	const struct qd_flows *f = reg->kind->flows;
	struct bpf_map_info info = {};
	uint32_t vsize, len = sizeof(info);
	int fd, n;

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
	n = bpf_map_get_info_by_fd(fd, &info, &len)
		    ? -errno
		    : read_owned(fd, f, id, vsize, used_entries(reg, f, info.max_entries), e, vals);
	close(fd);
	if (n < 0)
		qd_err("show: cannot read the \"%s\" map of %s: %s", f->map, reg->kind->id,
		       strerror(-n));
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

	if (ctx->ret || !qd_lookup_wanted(ctx->lk, qi) ||
	    !(reg = qd_lookup_instance(ctx->lk, qi, &id)) || !(f = reg->kind->flows))
		return 0;
	e = NULL;
	vals = NULL;
	/* Before the read: deadlines are what was left when it began. */
	now = qd_inst_now();
	n = show_flows_read(reg, id, &e, &vals);
	if (n < 0) {
		ctx->ret = QD_EXIT_FAIL;
		goto out;
	}
	if (ctx->sort && qd_flows_col(f, ctx->sort))
		qd_flows_sort(e, n, qd_flows_col(f, ctx->sort));
	open_json_object(NULL);
	qdisc_print_head(qi, qd_lookup_dev(ctx->lk, qi, dev));
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
	qd_err("show: cannot sort flows by \"%s\" (columns:%s)", qd_tok(sort), cols);
}

int show_flows(struct rtnl *rt, struct qd_lookup *lk, const char *sort)
{
	struct flows_ctx fc = { .lk = lk, .sort = sort };
	char kinds[256];
	int err;

	if (!sort_known(sort, kinds, sizeof(kinds))) {
		sort_error(sort);
		return QD_EXIT_USAGE;
	}
	open_json_array(PRINT_JSON, NULL);
	err = qdisc_dump(rt, lk->filter->ifindex, list_one, &fc);
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
