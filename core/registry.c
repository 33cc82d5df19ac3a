// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/lock.h"
#include "core/registry.h"
#include "lib/common.h"

static const char *const base_maps[] = { "slots", "insts", "cfgs", "pending" };

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
	return r->kind && r->cfg_size == r->kind->cfg_size ? 0 : -EINVAL;
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

int qd_reg_set_defaults(const struct qd_reg *r, const void *cfg)
{
	struct qd_place zero = {};

	return qd_reg_set_pending(r, &zero, cfg);
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

int qd_reg_cfg(const struct qd_reg *r, uint32_t id, void *cfg)
{
	return qd_reg_cfg_fits(r) ?: bpf_map_lookup_elem(r->cfgs_fd, &id, cfg) ? -errno : 0;
}

int qd_reg_set_cfg(struct qd_reg *r, uint32_t id, const void *cfg)
{
	const struct qd_opt *o;
	int err = qd_reg_cfg_fits(r) ?: qd_reg_caps(r);

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
	/* The program reads its cfgs slot on every packet: no restart needed. */
	return bpf_map_update_elem(r->cfgs_fd, &id, cfg, BPF_EXIST) ? -errno : 0;
}

int qd_reg_inst(const struct qd_reg *r, uint32_t id, void *buf)
{
	return bpf_map_lookup_elem(r->insts_fd, &id, buf) ? -errno : 0;
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
	/* pending holds what cfgs holds: .init copies one into the other. */
	return qd_reg_cfg_fits(r)
		       ?: bpf_map_update_elem(r->pending_fd, place, cfg, BPF_ANY) ? -errno
										  : 0;
}

void qd_reg_clear_pending(const struct qd_reg *r, const struct qd_place *place)
{
	bpf_map_delete_elem(r->pending_fd, place);
}
