// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/lock.h"
#include "core/registry.h"
#include "lib/common.h"

static const char *const base_maps[] = { "slots", "insts", "cfgs", "pending" };

/* Bytes of k's options that cfgs and pending hold; entries (qd_kind.entries) follow. */
static size_t cfg_map_size(const struct qd_kind *k)
{
	return k->cfg_map_size ?: k->cfg_size;
}

/* The largest "insts" value qdiscctl reads: every kind's is far smaller. */
#define QD_INST_MAX 65536

/* The pin of the object's read-only data: the capacities it was loaded with. */
#define RODATA_PIN "rodata"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf narrates harmless probes; -v shows it, -vv the verifier too. */
	if (qd_opts.verbose < 1 || (level == LIBBPF_DEBUG && qd_opts.verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

const struct qd_kind *qd_reg_kind(const char *id)
{
	int v;

	return qd_reg_parse(id, true, &v);
}

int qd_reg_version(const struct qd_kind *k, int v, struct qd_reg *r)
{
	return qd_reg_names(k, v, r->dir, r->id);
}

static void read_fp(struct qd_reg *r)
{
	char path[PATH_MAX];
	ssize_t n;

	qd_pin_path(path, r->dir, "elf");
	n = readlink(path, r->fp, QD_FP_LEN - 1);
	r->fp[n == QD_FP_LEN - 1 ? n : 0] = '\0';
}

/* The value size and entries of the map fd, as its info says: 0 or -errno. */
static int map_shape(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_map_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

int qd_reg_open_pinned(struct qd_reg *r)
{
	int *fds[] = { &r->slots_fd, &r->insts_fd, &r->cfgs_fd, &r->pending_fd };
	struct bpf_map_info info;
	char path[PATH_MAX];
	void *p;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		qd_pin_path(path, r->dir, base_maps[i]);
		*fds[i] = bpf_obj_get(path);
		if (*fds[i] < 0)
			return -errno;
	}
	/*
	 * What is pinned here decides what qdiscctl maps and allocates to
	 * read it: maps that are not the arrays qdiscctl makes are not a
	 * registration.
	 */
	err = map_shape(r->slots_fd, &info);
	if (err)
		return err;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != sizeof(__u32) ||
	    info.value_size != sizeof(struct qd_inst_hdr) || !(info.map_flags & BPF_F_MMAPABLE) ||
	    !info.max_entries || info.max_entries > QD_SLOTS_MAX)
		return -EINVAL;
	r->slots = info.max_entries;
	err = map_shape(r->insts_fd, &info);
	if (err)
		return err;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != sizeof(__u32) || !info.value_size ||
	    info.value_size > QD_INST_MAX || info.max_entries != r->slots)
		return -EINVAL;
	r->inst_size = info.value_size;
	err = map_shape(r->cfgs_fd, &info);
	if (err)
		return err;
	r->cfg_size = info.value_size;
	r->inst_len = r->inst_size;
	if (r->kind && r->kind->rows && r->kind->rows->index_map) {
		const struct qd_stat_rows *rows = r->kind->rows;
		const struct qd_opt *o = qd_kind_named(r->kind, rows->opt);

		r->inst_len = (rows->off > r->inst_size ? rows->off : r->inst_size) +
			      (o ? o->count : 0) * rows->stride;
	}
	/* The kernel lays an mmapable array's values out one after another from offset 0. */
	r->holders_len = (size_t)r->slots * sizeof(struct qd_inst_hdr);
	p = mmap(NULL, r->holders_len, PROT_READ, MAP_SHARED, r->slots_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->holders = p;
	read_fp(r);
	return 0;
}

/*
 * Options travel in buffers of the descriptor's cfg_size: a registration
 * whose cfgs hold another size (another version's layout, or a map someone
 * else pinned) is never read or written through them.
 */
int qd_reg_cfg_fits(const struct qd_reg *r)
{
	return r->kind && r->cfg_size == cfg_map_size(r->kind) ? 0 : -EINVAL;
}

/*
 * Offsets of k's capacities (qd_cap_NAME) in a .rodata laid out by btf:
 * off[i] is -1 for a capacity the program does not read.
 */
void qd_reg_cap_offsets(const struct qd_kind *k, const struct btf *btf, long *off)
{
	int sec = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	const struct btf_type *t = sec > 0 ? btf__type_by_id(btf, sec) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (int i = 0; i < QD_CAPS_MAX; i++)
		off[i] = -1;
	for (int j = 0; t && j < btf_vlen(t); j++, v++) {
		const char *name =
			btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off);
		int i;

		if (strncmp(name, "qd_cap_", 7) || v->size != sizeof(uint32_t))
			continue;
		i = qd_kind_cap_index(k, name + 7, strlen(name + 7));
		if (i >= 0)
			off[i] = v->offset;
	}
}

int qd_reg_caps(struct qd_reg *r)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	char path[PATH_MAX], *val = NULL;
	long off[QD_CAPS_MAX];
	struct btf *btf = NULL;
	int fd, err;

	qd_pin_path(path, r->dir, RODATA_PIN);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = bpf_map_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	/* Another program could have been pinned here: bound what is read. */
	if (!err && (info.value_size > 4096 || !info.btf_id))
		err = -EINVAL;
	if (!err) {
		btf = btf__load_from_kernel_by_id(info.btf_id);
		val = calloc(1, info.value_size);
		err = !btf ? -errno : !val ? -ENOMEM : 0;
	}
	if (!err && bpf_map_lookup_elem(fd, &zero, val))
		err = -errno;
	if (!err) {
		qd_reg_cap_offsets(r->kind, btf, off);
		for (int i = 0; i < QD_CAPS_MAX; i++)
			if (off[i] >= 0 && (size_t)off[i] + sizeof(uint32_t) <= info.value_size)
				memcpy(&r->cap[i], val + off[i], sizeof(uint32_t));
	}
	free(val);
	btf__free(btf);
	close(fd);
	return err;
}

int qd_reg_memory(const struct qd_reg *r, uint64_t *bytes, unsigned int *maps)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	*bytes = 0;
	*maps = 0;
	qd_pin_path(path, r->dir, NULL);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		unsigned long long mem = 0;
		bool map = false;
		char line[128];
		FILE *f;
		int fd;

		if (e->d_name[0] == '.' || qd_pin_is_symlink(r->dir, e->d_name))
			continue;
		qd_pin_path(path, r->dir, e->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		/*
		 * Links and programs are pinned here too, and GET_INFO_BY_FD
		 * answers for any of them: only fdinfo's map_type says a map.
		 */
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			map |= !strncmp(line, "map_type:", 9);
			sscanf(line, "memlock: %llu", &mem);
		}
		if (f)
			fclose(f);
		if (map) {
			*bytes += mem;
			(*maps)++;
		}
		close(fd);
	}
	closedir(d);
	return 0;
}

void qd_reg_init(struct qd_reg *r, const struct qd_kind *k)
{
	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->slots_fd = r->insts_fd = r->cfgs_fd = r->pending_fd = -1;
	libbpf_set_print(libbpf_print);
}

/* Open the version r->dir names: 0, -ENOENT when it has no link, else -errno. */
int qd_reg_open_version(struct qd_reg *r)
{
	char path[PATH_MAX];
	int err = qd_pin_use_root();

	if (err)
		return err;
	if (!qd_pin_own_dir(r->dir))
		return -ENOENT;
	qd_pin_path(path, r->dir, "link");
	if (access(path, F_OK))
		return -ENOENT;
	return qd_reg_open_pinned(r);
}

/* Has r room for need more instances, and the capacities --capacity asks for? */
static bool has_room(struct qd_reg *r, uint32_t need, const uint32_t *want, const bool *named)
{
	struct qd_insts l;
	bool ok;

	if (qd_reg_list(r, &l))
		return false;
	ok = r->slots - l.n >= need && (!named[QD_CAP_INSTANCES] || r->slots >= want[0]);
	qd_insts_free(&l);
	for (int i = 1; i < QD_CAPS_MAX && ok; i++)
		if (named[i])
			ok = !qd_reg_caps(r) && r->cap[i] >= want[i];
	return ok;
}

int qd_reg_open(const struct qd_kind *k, struct qd_reg *r, uint32_t need, const void *cfg)
{
	uint32_t want[QD_CAPS_MAX] = {};
	bool named[QD_CAPS_MAX] = {};
	char fp[QD_FP_LEN];

	qd_reg_init(r, k);
	if (need && qd_kind_caps_parse(k, qd_opts.capacity, want, named))
		return -EINVAL;
	if (need && cfg)
		qd_kind_caps_for(k, cfg, want, named);
	qd_kind_fingerprint(k, fp);
	for (int v = 0; v < QD_REG_VERSIONS; v++) {
		if (qd_reg_version(k, v, r) || qd_reg_open_version(r))
			continue;
		if (!strcmp(r->fp, fp) && (!need || has_room(r, need, want, named)))
			return 0;
		qd_reg_close(r);
	}
	return -ENOENT;
}

int qd_reg_open_id(const char *id, struct qd_reg *r)
{
	int v, err;
	const struct qd_kind *k = qd_reg_parse(id, true, &v);

	qd_reg_init(r, k);
	snprintf(r->id, sizeof(r->id), "%s", id);
	if (!k || qd_reg_version(k, v, r))
		return -ENOENT;
	err = qd_reg_open_version(r);
	if (err)
		qd_reg_close(r);
	return err;
}

void qd_reg_close(struct qd_reg *r)
{
	int *fds[] = { &r->slots_fd, &r->insts_fd, &r->cfgs_fd, &r->pending_fd };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (r->holders)
		munmap((void *)r->holders, r->holders_len);
	r->holders = NULL;
}

void qd_insts_free(struct qd_insts *l)
{
	free(l->ids);
	free(l->hdrs);
	memset(l, 0, sizeof(*l));
}

/* Who holds slot i of r, as a copy: programs write the mapped entries under us. */
static struct qd_inst_hdr holder(const struct qd_reg *r, uint32_t i)
{
	const volatile struct qd_inst_hdr *v = &r->holders[i];

	return (struct qd_inst_hdr){
		.in_use = v->in_use,
		.handle = v->handle,
		.place = { .netns = v->place.netns,
			   .ifindex = v->place.ifindex,
			   .parent = v->place.parent },
	};
}

int qd_reg_list(const struct qd_reg *r, struct qd_insts *l)
{
	memset(l, 0, sizeof(*l));
	if (!r->holders)
		return -EINVAL;
	l->ids = calloc(r->slots, sizeof(*l->ids));
	l->hdrs = calloc(r->slots, sizeof(*l->hdrs));
	if (!l->ids || !l->hdrs) {
		qd_insts_free(l);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < r->slots; i++) {
		struct qd_inst_hdr h = holder(r, i);

		if (!h.in_use)
			continue;
		l->ids[l->n] = i;
		l->hdrs[l->n++] = h;
	}
	return 0;
}

int qd_reg_find(const struct qd_reg *r, const struct qd_place *place, uint32_t handle, uint32_t *id)
{
	if (!r->holders)
		return -EINVAL;
	for (uint32_t i = 0; i < r->slots; i++) {
		struct qd_inst_hdr h = holder(r, i);

		if (h.in_use && h.handle == handle && h.place.netns == place->netns &&
		    h.place.ifindex == place->ifindex && h.place.parent == place->parent) {
			*id = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* --- entries kept in maps of their own (qd_kind.entries) ------------------ */

/* The entries' option and its two maps, opened: fds -1 when the kind has none. */
struct ents {
	const struct qd_entries *e;
	const struct qd_opt *o;
	int map_fd, list_fd;
};

static uint32_t cfg_u32(const void *cfg, unsigned int off)
{
	uint32_t v;

	memcpy(&v, (const char *)cfg + off, sizeof(v));
	return v;
}

static void cfg_set_u32(void *cfg, unsigned int off, uint32_t v)
{
	memcpy((char *)cfg + off, &v, sizeof(v));
}

static void ents_close(struct ents *x)
{
	if (x->map_fd >= 0)
		close(x->map_fd);
	if (x->list_fd >= 0)
		close(x->list_fd);
	x->map_fd = x->list_fd = -1;
}

/*
 * Open r's entry maps: 0 (x->o NULL when the kind keeps none apart), or
 * -errno; maps whose values are not the option's entries are not used.
 */
static int ents_open(const struct qd_reg *r, struct ents *x)
{
	uint32_t vs1 = 0, vs2 = 0;

	memset(x, 0, sizeof(*x));
	x->map_fd = x->list_fd = -1;
	x->e = r->kind ? r->kind->entries : NULL;
	if (!x->e)
		return 0;
	x->o = qd_kind_named(r->kind, x->e->opt);
	if (!x->o)
		return -EINVAL;
	x->map_fd = qd_reg_map(r, x->e->map, &vs1);
	x->list_fd = qd_reg_map(r, x->e->list_map, &vs2);
	if (x->map_fd < 0 || x->list_fd < 0 || vs1 != x->o->width || vs2 != x->o->width) {
		int err = x->map_fd < 0 ? x->map_fd : x->list_fd < 0 ? x->list_fd : -EINVAL;

		ents_close(x);
		return err;
	}
	return 0;
}

/* Entry i of the option in cfg. */
static char *ent_at(const struct ents *x, const void *cfg, unsigned int i)
{
	return (char *)cfg + x->o->off + (size_t)i * x->o->width;
}

static uint64_t ent_id(const struct ents *x, const void *cfg, unsigned int i)
{
	uint64_t id;

	memcpy(&id, ent_at(x, cfg, i), sizeof(id));
	return id;
}

/* cfg's entries from the set its map part names, after that part. */
static int ents_load(const struct qd_reg *r, void *cfg)
{
	size_t ms = cfg_map_size(r->kind);
	uint32_t set, n;
	struct ents x;
	int err;

	memset((char *)cfg + ms, 0, r->kind->cfg_size - ms);
	/* Most instances have none: no maps to open for them (show reads every instance). */
	if (!r->kind->entries)
		return 0;
	set = cfg_u32(cfg, r->kind->entries->set_off);
	n = cfg_u32(cfg, r->kind->entries->count_off);
	if (!set || !n)
		return 0;
	err = ents_open(r, &x);
	if (err || !x.o)
		return err;
	/* Read back from a map: no more than the buffer holds. */
	if (n > x.o->count)
		n = x.o->count;
	for (uint32_t i = 0; i < n; i++) {
		struct qd_entry_pos pos = { .set = set, .i = i };

		if (bpf_map_lookup_elem(x.list_fd, &pos, ent_at(&x, cfg, i))) {
			err = -errno;
			break;
		}
	}
	ents_close(&x);
	return err;
}

/* Delete what set has in both maps, from its first n entries (ids of cfg's). */
static void ents_drop(const struct ents *x, const void *cfg, uint32_t set, unsigned int n)
{
	for (unsigned int i = 0, k = 0; i < x->o->count && k < n; i++) {
		struct qd_entry_key key = { .set = set, .id = ent_id(x, cfg, i) };
		struct qd_entry_pos pos = { .set = set, .i = k };

		if (!key.id)
			continue;
		bpf_map_delete_elem(x->map_fd, &key);
		bpf_map_delete_elem(x->list_fd, &pos);
		k++;
	}
}

/* cfg's entries into both maps as set: 0, or -errno with nothing of the set left. */
static int ents_write(const struct ents *x, const void *cfg, uint32_t set)
{
	for (unsigned int i = 0, k = 0; i < x->o->count; i++) {
		struct qd_entry_key key = { .set = set, .id = ent_id(x, cfg, i) };
		struct qd_entry_pos pos = { .set = set, .i = k };

		if (!key.id)
			continue;
		if (bpf_map_update_elem(x->map_fd, &key, ent_at(x, cfg, i), BPF_NOEXIST) ||
		    bpf_map_update_elem(x->list_fd, &pos, ent_at(x, cfg, i), BPF_NOEXIST)) {
			int err = -errno;

			ents_drop(x, cfg, set, k + 1);
			return err;
		}
		k++;
	}
	return 0;
}

static void ents_gc(const struct qd_reg *r);

/*
 * Write cfg's entries to both maps as a new set and name it, with their
 * count, in cfg: 0, or -errno; -ERANGE, said, when the maps are full
 * (nothing of the set is left then).
 */
static int ents_store(const struct qd_reg *r, void *cfg)
{
	uint32_t set = 0, n = 0;
	struct ents x;
	int err = ents_open(r, &x);

	if (err || !x.o)
		return err;
	for (unsigned int i = 0; i < x.o->count; i++)
		n += !!ent_id(&x, cfg, i);
	while (n && !set) {
		struct qd_entry_pos pos = { .i = 0 };
		char v[QD_CGROUP_ENTRY_MAX];

		if (getrandom(&pos.set, sizeof(pos.set), 0) != sizeof(pos.set)) {
			err = -errno;
			goto out;
		}
		if (pos.set && bpf_map_lookup_elem(x.list_fd, &pos, v) && errno == ENOENT)
			set = pos.set;
	}
	err = ents_write(&x, cfg, set);
	/* Full: sets that instances the kernel removed left behind hold room until swept. */
	if (err == -E2BIG || err == -ENOMEM) {
		ents_gc(r);
		err = ents_write(&x, cfg, set);
	}
	if (err == -E2BIG || err == -ENOMEM) {
		qd_err("%s: %u %s entries are more than %s has room for (its capacity %s, shared "
		       "by its instances); -C %s=N makes a registration with more",
		       r->kind->name, n, x.o->name, r->id, x.e->cap, x.e->cap);
		err = -ERANGE;
	}
	if (!err) {
		cfg_set_u32(cfg, x.e->set_off, set);
		cfg_set_u32(cfg, x.e->count_off, n);
	}
out:
	ents_close(&x);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Delete every key of map fd (keys of key_size bytes, whose first __u32
 * is a set) whose set is not among the n sorted in used.
 */
static void ents_sweep(int fd, size_t key_size, const uint32_t *used, size_t n)
{
	char key[sizeof(struct qd_entry_key)], *dead = NULL;
	int ndead = 0, max = 0;
	const void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, key)) {
		uint32_t set;

		memcpy(&set, key, sizeof(set));
		prev = key;
		if (bsearch(&set, used, n, sizeof(*used), cmp_u32))
			continue;
		/* Deleting as it walks would send the walk back to the start. */
		if (qd_grow(&dead, &max, ndead, key_size, 64))
			break;
		memcpy(dead + (size_t)ndead++ * key_size, key, key_size);
	}
	for (int i = 0; i < ndead; i++)
		bpf_map_delete_elem(fd, dead + (size_t)i * key_size);
	free(dead);
}

/*
 * The sets of entries options of r name, pending ones and live instances',
 * sorted into *sets (malloc'd): how many, or -errno. Pending options are
 * read first: .init moves an instance's from there to its slot, never the
 * other way.
 */
static int ents_named_sets(const struct qd_reg *r, uint32_t **sets)
{
	const struct qd_entries *e = r->kind->entries;
	struct qd_place prev, key;
	int n = 0, max = 0, err;
	uint32_t *used = NULL;
	bool first = true;
	struct qd_insts l;
	char *cfg;

	*sets = NULL;
	cfg = malloc(cfg_map_size(r->kind));
	if (!cfg)
		return -ENOMEM;
	err = qd_reg_list(r, &l);
	if (err) {
		free(cfg);
		return err;
	}
	while (!err && !bpf_map_get_next_key(r->pending_fd, first ? NULL : &prev, &key)) {
		first = false;
		prev = key;
		if (bpf_map_lookup_elem(r->pending_fd, &key, cfg))
			continue;
		err = qd_grow(&used, &max, n, sizeof(*used), 64);
		if (!err)
			used[n++] = cfg_u32(cfg, e->set_off);
	}
	for (int i = 0; !err && i < l.n; i++) {
		if (bpf_map_lookup_elem(r->cfgs_fd, &l.ids[i], cfg))
			continue;
		err = qd_grow(&used, &max, n, sizeof(*used), 64);
		if (!err)
			used[n++] = cfg_u32(cfg, e->set_off);
	}
	qd_insts_free(&l);
	free(cfg);
	if (err) {
		free(used);
		return err;
	}
	qsort(used, n, sizeof(*used), cmp_u32);
	*sets = used;
	return n;
}

/* Delete the sets of entries no options name. */
static void ents_gc(const struct qd_reg *r)
{
	uint32_t *used;
	struct ents x;
	int n;

	if (ents_open(r, &x) || !x.o)
		return;
	n = ents_named_sets(r, &used);
	if (n >= 0) {
		ents_sweep(x.map_fd, sizeof(struct qd_entry_key), used, n);
		ents_sweep(x.list_fd, sizeof(struct qd_entry_pos), used, n);
	}
	free(used);
	ents_close(&x);
}

/*
 * The set of entries that the options at key of map fd (cfgs or pending)
 * name, and how many into *n: 0 when none.
 */
static uint32_t ents_set_at(const struct qd_reg *r, int fd, const void *key, uint32_t *n)
{
	const struct qd_entries *e = r->kind ? r->kind->entries : NULL;
	uint32_t set = 0;
	char *v;

	*n = 0;
	if (!e || !(v = malloc(cfg_map_size(r->kind))))
		return 0;
	if (!bpf_map_lookup_elem(fd, key, v)) {
		set = cfg_u32(v, e->set_off);
		*n = cfg_u32(v, e->count_off);
	}
	free(v);
	return set;
}

/* Do options of r name set: pending ones, or a live instance's? Yes when it cannot tell. */
static bool ents_named(const struct qd_reg *r, uint32_t set)
{
	uint32_t *used;
	int n = ents_named_sets(r, &used);
	bool named = n < 0 || (n && bsearch(&set, used, n, sizeof(*used), cmp_u32));

	free(used);
	return named;
}

/*
 * Delete set, of n entries, unless options still name it: by the entries'
 * positions, where a sweep of both maps (ents_gc) reads every entry of
 * every instance, 131,072 under mq on 128 queues with 1,024 each, for
 * every instance made.
 */
static void ents_release(const struct qd_reg *r, uint32_t set, uint32_t n)
{
	struct ents x;

	if (!set || ents_named(r, set) || ents_open(r, &x) || !x.o)
		return;
	/* Read back from a map: no more than a set holds. */
	if (n > x.o->count)
		n = x.o->count;
	for (uint32_t i = 0; i < n; i++) {
		struct qd_entry_pos pos = { .set = set, .i = i };
		struct qd_entry_key key = { .set = set };
		char v[QD_CGROUP_ENTRY_MAX];

		if (!bpf_map_lookup_elem(x.list_fd, &pos, v)) {
			memcpy(&key.id, v, sizeof(key.id));
			bpf_map_delete_elem(x.map_fd, &key);
		}
		bpf_map_delete_elem(x.list_fd, &pos);
	}
	ents_close(&x);
}

/* A copy of cfg, its entries written as a new set it names: malloc'd, or NULL (said). */
static void *cfg_with_set(const struct qd_reg *r, const void *cfg, int *err)
{
	void *c = malloc(r->kind->cfg_size);

	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(c, cfg, r->kind->cfg_size);
	*err = ents_store(r, c);
	if (*err) {
		free(c);
		return NULL;
	}
	return c;
}

/*
 * After options c (from cfg_with_set, freed here) replaced options that
 * named set old of n entries, or failed to (err): release the set no
 * longer named.
 */
static void cfg_release(const struct qd_reg *r, void *c, int err, uint32_t old, uint32_t n)
{
	const struct qd_entries *e = r->kind->entries;

	if (e && err)
		ents_release(r, cfg_u32(c, e->set_off), cfg_u32(c, e->count_off));
	else if (e)
		ents_release(r, old, n);
	free(c);
}

int qd_reg_cfg(const struct qd_reg *r, uint32_t id, void *cfg)
{
	return qd_reg_cfg_fits(r)
		       ?: bpf_map_lookup_elem(r->cfgs_fd, &id, cfg) ? -errno
								    : ents_load(r, cfg);
}

int qd_reg_set_cfg(struct qd_reg *r, uint32_t id, const void *cfg)
{
	const struct qd_opt *o;
	int err = qd_reg_cfg_fits(r) ?: qd_reg_caps(r);
	uint32_t old, n;
	void *c;

	if (err)
		return err;
	o = qd_kind_caps_exceeded(r->kind, cfg, r->cap);
	if (o) {
		int i = qd_kind_cap_index(r->kind, o->cap, strlen(o->cap));

		qd_err("%s: %s %llu is more than %s holds (%s %u); replace the qdisc to move it "
		       "to a registration that does",
		       r->kind->name, o->name, (unsigned long long)qd_opt_get(o, cfg), r->id,
		       o->cap, r->cap[i]);
		return -ERANGE;
	}
	old = ents_set_at(r, r->cfgs_fd, &id, &n);
	/* Entries first: the options that name them come after. */
	c = cfg_with_set(r, cfg, &err);
	if (!c)
		return err;
	/* The program reads its cfgs slot on every packet: no restart needed. */
	err = bpf_map_update_elem(r->cfgs_fd, &id, c, BPF_EXIST) ? -errno : 0;
	cfg_release(r, c, err, old, n);
	return err;
}

/* The rows of the entries in cfg that r's kind keeps apart, into buf from rows->off. */
static int inst_rows(const struct qd_reg *r, uint32_t id, const void *cfg, char *buf)
{
	const struct qd_stat_rows *rows = r->kind ? r->kind->rows : NULL;
	uint32_t vs1 = 0, vs2 = 0;
	const struct qd_opt *o;
	int ifd, tfd, err = 0;
	unsigned int i, n;

	if (!rows || !rows->index_map || !(o = qd_kind_named(r->kind, rows->opt)))
		return 0;
	/*
	 * Readers look at the rows of the entries there are (qd_kind_entries_read):
	 * an instance without entries has no maps to open and no rows to clear
	 * (show reads every instance).
	 */
	n = qd_kind_entries_read(r->kind, o, cfg);
	if (!n)
		return 0;
	memset(buf + rows->off, 0, (size_t)n * rows->stride);
	ifd = qd_reg_map(r, rows->index_map, &vs1);
	tfd = qd_reg_map(r, rows->table, &vs2);
	if (ifd < 0 || tfd < 0 || vs1 != sizeof(uint32_t) || vs2 != rows->stride) {
		err = ifd < 0 ? ifd : tfd < 0 ? tfd : -EINVAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct qd_entry_key key = { .set = id };
		char *row = buf + rows->off + (size_t)i * rows->stride;
		uint32_t idx, owner;

		memcpy(&key.id, (const char *)cfg + o->off + (size_t)i * o->width, sizeof(key.id));
		if (!key.id || bpf_map_lookup_elem(ifd, &key, &idx) ||
		    bpf_map_lookup_elem(tfd, &idx, row))
			continue;
		/* The class may have gone and come back as another's since: then it has not
		 * counted. */
		memcpy(&owner, row + rows->owner_off, sizeof(owner));
		if (owner != id + 1)
			memset(row, 0, rows->stride);
	}
out:
	if (ifd >= 0)
		close(ifd);
	if (tfd >= 0)
		close(tfd);
	return err;
}

int qd_reg_inst(const struct qd_reg *r, uint32_t id, const void *cfg, void *buf)
{
	return bpf_map_lookup_elem(r->insts_fd, &id, buf) ? -errno : inst_rows(r, id, cfg, buf);
}

int qd_reg_map(const struct qd_reg *r, const char *name, uint32_t *value_size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd, err;

	qd_pin_path(path, r->dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		close(fd);
		return err;
	}
	*value_size = info.value_size;
	return fd;
}

int qd_reg_set_pending(const struct qd_reg *r, const struct qd_place *place, const void *cfg)
{
	int err = qd_reg_cfg_fits(r);
	uint32_t old, n;
	void *c;

	if (err)
		return err;
	old = ents_set_at(r, r->pending_fd, place, &n);
	/* The entries' set first: the options that name it come after. */
	c = cfg_with_set(r, cfg, &err);
	if (!c)
		return err;
	/* pending holds what cfgs holds: .init copies one into the other. */
	err = bpf_map_update_elem(r->pending_fd, place, c, BPF_ANY) ? -errno : 0;
	cfg_release(r, c, err, old, n);
	return err;
}

void qd_reg_clear_pending(const struct qd_reg *r, const struct qd_place *place)
{
	uint32_t n, set = ents_set_at(r, r->pending_fd, place, &n);

	bpf_map_delete_elem(r->pending_fd, place);
	/* Named by the instance .init made from them, if it did. */
	ents_release(r, set, n);
}

int qd_reg_set_defaults(const struct qd_reg *r, const void *cfg)
{
	struct qd_place zero = {};

	return qd_reg_set_pending(r, &zero, cfg);
}

int qd_reg_defaults(const struct qd_reg *r, void *cfg)
{
	struct qd_place zero = {};

	return qd_reg_cfg_fits(r)
		       ?: bpf_map_lookup_elem(r->pending_fd, &zero, cfg) ? -errno
									 : ents_load(r, cfg);
}
