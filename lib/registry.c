// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/common.h"
#include "lib/registry.h"

#define QD_BPFFS "/sys/fs/bpf"
/* Pins of egress program attachments: egress-NETNS-IFINDEX. */
#define EGRESS_PIN "egress-"
#define QD_ROOT_PARENT 0xFFFFFFFFU

static const char *const base_maps[] = { "insts", "cfgs", "pending" };

/* The i-th map the registration pins: the base ones, then the kind's own. */
static const char *pinned_map(const struct qd_kind *k, size_t i)
{
	if (i < ARRAY_SIZE(base_maps))
		return base_maps[i];
	i -= ARRAY_SIZE(base_maps);
	for (size_t j = 0; k->maps && k->maps[j]; j++)
		if (j == i)
			return k->maps[j];
	return NULL;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf narrates harmless probes; -v shows it, -vv the verifier too. */
	if (qd_opts.verbose < 1 || (level == LIBBPF_DEBUG && qd_opts.verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int qd_kernel_supported(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id;

	if (!btf)
		return errno == ENOENT ? 0 : -errno;
	id = btf__find_by_name_kind(btf, "bpf_struct_ops_Qdisc_ops", BTF_KIND_STRUCT);
	btf__free(btf);
	return id > 0;
}

static int ensure_bpffs(void)
{
	struct statfs st;

	if (statfs(QD_BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", QD_BPFFS, "bpf", 0, "mode=0700")) {
		qd_err("cannot mount bpffs on %s: %s", QD_BPFFS, strerror(errno));
		return -errno;
	}
	return 0;
}

int qd_lock(void)
{
	struct stat held, now;
	int fd, err = ensure_bpffs();

	if (err)
		return err;
	for (;;) {
		if (mkdir(QD_PIN_ROOT, 0700) && errno != EEXIST)
			break;
		fd = open(QD_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX)) {
			close(fd);
			break;
		}
		/* The holder before us may have removed the directory we waited on. */
		if (!fstat(fd, &held) && !stat(QD_PIN_ROOT, &now) && held.st_ino == now.st_ino)
			return fd;
		close(fd);
	}
	err = -errno;
	qd_err("cannot lock %s: %s", QD_PIN_ROOT, strerror(errno));
	return err;
}

void qd_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void pin_path(char *buf, const struct qd_kind *k, const char *name)
{
	snprintf(buf, PATH_MAX, QD_PIN_ROOT "/%s%s%s", k->name, name ? "/" : "", name ? name : "");
}

static int open_pinned(struct qd_reg *r)
{
	int *fds[] = { &r->insts_fd, &r->cfgs_fd, &r->pending_fd };
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		pin_path(path, r->kind, pinned_map(r->kind, i));
		*fds[i] = bpf_obj_get(path);
		if (*fds[i] < 0)
			return -errno;
	}
	if (bpf_map_get_info_by_fd(r->insts_fd, &info, &len))
		return -errno;
	r->inst_size = info.value_size;
	return 0;
}

/* Point the struct_ops map at the descriptor's id: the one place it is set. */
static int set_ops_id(struct bpf_object *obj, struct bpf_map *ops, const char *id)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	size_t size;
	char *data;
	int tid;

	tid = btf ? btf__find_by_name_kind(btf, "Qdisc_ops", BTF_KIND_STRUCT) : -ENOENT;
	data = bpf_map__initial_value(ops, &size);
	if (tid < 0 || !data)
		return -ENOENT;
	t = btf__type_by_id(btf, tid);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		size_t off = btf_member_bit_offset(t, i) / 8;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "id"))
			continue;
		if (off + strlen(id) + 1 > size)
			return -E2BIG;
		strcpy(data + off, id);
		return 0;
	}
	return -ENOENT;
}

static int write_defaults(const struct qd_reg *r)
{
	struct qd_place zero = {};
	char cfg[r->kind->cfg_size];

	qd_kind_defaults(r->kind, cfg);
	return qd_reg_set_pending(r, &zero, cfg);
}

/* Unpin a link, detaching it at once rather than whenever its last reference goes. */
static void unpin_link(const char *path)
{
	int fd = bpf_obj_get(path);

	unlink(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
}

static void unpin_all(const struct qd_kind *k)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	/* Maps, the egress program and its attachments: whatever is there. */
	pin_path(path, k, NULL);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "link"))
			continue;
		pin_path(path, k, e->d_name);
		if (!strncmp(e->d_name, EGRESS_PIN, strlen(EGRESS_PIN)))
			unpin_link(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	/*
	 * The registration's link last. Unpinning alone would unregister the
	 * kind from a workqueue, some time later, and a quick re-add would
	 * collide with it (EEXIST); detaching unregisters it now.
	 */
	pin_path(path, k, "link");
	unpin_link(path);
	pin_path(path, k, NULL);
	rmdir(path);
}

static int do_register(struct qd_reg *r)
{
	const struct qd_kind *k = r->kind;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = k->name,
		    .kernel_log_level = qd_opts.verbose >= 2 ? 1 | 2 | 4 : 0);
	struct bpf_link *link = NULL;
	struct bpf_object *obj;
	struct bpf_map *map, *ops = NULL;
	char path[PATH_MAX];
	const void *elf;
	size_t size;
	int err;

	elf = k->elf_bytes(&size);
	obj = bpf_object__open_mem(elf, size, &opts);
	if (!obj) {
		err = -errno;
		qd_err("%s: cannot open the embedded BPF object: %s", k->name, strerror(-err));
		return err;
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			ops = map;
	err = ops ? set_ops_id(obj, ops, k->id) : -ENOENT;
	if (err) {
		qd_err("%s: the embedded BPF object has no usable Qdisc_ops", k->name);
		goto out;
	}
	/* qdiscctl attaches and pins the link itself. */
	bpf_map__set_autoattach(ops, false);
	err = bpf_object__load(obj);
	if (err) {
		qd_err("%s: the kernel refused the BPF program: %s%s", k->name, strerror(-err),
		       qd_opts.verbose >= 2 ? "" : " (-vv shows the verifier log)");
		goto out;
	}
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		qd_err("%s: cannot register qdisc kind %s: %s", k->name, k->id, strerror(-err));
		goto out;
	}
	pin_path(path, k, NULL);
	if (mkdir(path, 0700) && errno != EEXIST) {
		err = -errno;
		qd_err("cannot create %s: %s", path, strerror(-err));
		goto out;
	}
	for (size_t i = 0; pinned_map(k, i) && !err; i++) {
		pin_path(path, k, pinned_map(k, i));
		map = bpf_object__find_map_by_name(obj, pinned_map(k, i));
		err = map ? bpf_map__pin(map, path) : -ENOENT;
	}
	if (!err && k->egress_prog) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, k->egress_prog);

		pin_path(path, k, k->egress_prog);
		err = prog ? bpf_program__pin(prog, path) : -ENOENT;
	}
	if (!err) {
		pin_path(path, k, "link");
		err = bpf_link__pin(link, path);
	}
	if (!err)
		err = open_pinned(r);
	if (!err)
		err = write_defaults(r);
	if (err) {
		qd_err("%s: cannot pin the registration under %s: %s", k->name, QD_PIN_ROOT,
		       strerror(-err));
		unpin_all(k);
	}
out:
	/* With the link pinned this only drops our reference. */
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return err;
}

int qd_reg_open(const struct qd_kind *k, struct qd_reg *r, bool create)
{
	char path[PATH_MAX];
	int err;

	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->insts_fd = r->cfgs_fd = r->pending_fd = -1;
	libbpf_set_print(libbpf_print);

	pin_path(path, k, "link");
	if (access(path, F_OK) == 0) {
		err = open_pinned(r);
		if (err)
			qd_err("%s: the registration under %s is incomplete: %s", k->name,
			       QD_PIN_ROOT, strerror(-err));
	} else if (!create) {
		err = -ENOENT;
	} else {
		err = do_register(r);
		r->created = !err;
	}
	if (err)
		qd_reg_close(r);
	return err;
}

void qd_reg_close(struct qd_reg *r)
{
	int *fds[] = { &r->insts_fd, &r->cfgs_fd, &r->pending_fd };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int qd_reg_remove(const struct qd_kind *k)
{
	unpin_all(k);
	return 0;
}

int qd_reg_instances(const struct qd_reg *r, uint32_t *ids, struct qd_inst_hdr *hdrs)
{
	char buf[r->inst_size];
	int n = 0;

	for (uint32_t i = 0; i < QD_MAX_INSTANCES; i++) {
		struct qd_inst_hdr h;

		/* A kind may have fewer slots than QD_MAX_INSTANCES. */
		if (bpf_map_lookup_elem(r->insts_fd, &i, buf))
			return errno == ENOENT ? n : -errno;
		memcpy(&h, buf, sizeof(h));
		if (!h.in_use)
			continue;
		if (ids)
			ids[n] = i;
		if (hdrs)
			hdrs[n] = h;
		n++;
	}
	return n;
}

int qd_reg_find(const struct qd_reg *r, const struct qd_place *place, uint32_t handle, uint32_t *id)
{
	struct qd_inst_hdr hdrs[QD_MAX_INSTANCES];
	uint32_t ids[QD_MAX_INSTANCES];
	int n = qd_reg_instances(r, ids, hdrs);

	for (int i = 0; i < n; i++) {
		if (hdrs[i].handle == handle && hdrs[i].place.netns == place->netns &&
		    hdrs[i].place.ifindex == place->ifindex &&
		    hdrs[i].place.parent == place->parent) {
			*id = ids[i];
			return 0;
		}
	}
	return n < 0 ? n : -ENOENT;
}

int qd_reg_cfg(const struct qd_reg *r, uint32_t id, void *cfg)
{
	return bpf_map_lookup_elem(r->cfgs_fd, &id, cfg) ? -errno : 0;
}

int qd_reg_set_cfg(const struct qd_reg *r, uint32_t id, const void *cfg)
{
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

	pin_path(path, r->kind, name);
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
	return bpf_map_update_elem(r->pending_fd, place, cfg, BPF_ANY) ? -errno : 0;
}

void qd_reg_clear_pending(const struct qd_reg *r, const struct qd_place *place)
{
	bpf_map_delete_elem(r->pending_fd, place);
}

static void egress_pin_name(char *buf, size_t len, const struct qd_place *p)
{
	snprintf(buf, len, EGRESS_PIN "%llu-%u", (unsigned long long)p->netns, p->ifindex);
}

int qd_reg_attach_egress(const struct qd_reg *r, const struct qd_place *p)
{
	const struct qd_kind *k = r->kind;
	char path[PATH_MAX], name[64];
	int prog, link, err = 0;

	if (!k->egress_prog || p->parent != QD_ROOT_PARENT)
		return 0;
	egress_pin_name(name, sizeof(name), p);
	pin_path(path, k, name);
	if (!access(path, F_OK))
		return 0;
	pin_path(path, k, k->egress_prog);
	prog = bpf_obj_get(path);
	if (prog < 0) {
		err = -errno;
		qd_err("%s: the registration has no %s program: %s", k->name, k->egress_prog,
		       strerror(-err));
		return err;
	}
	link = bpf_link_create(prog, p->ifindex, BPF_TCX_EGRESS, NULL);
	if (link < 0) {
		err = -errno;
		qd_err("%s: cannot attach %s before the qdisc (tcx egress): %s", k->name,
		       k->egress_prog, strerror(-err));
	} else {
		pin_path(path, k, name);
		if (bpf_obj_pin(link, path)) {
			err = -errno;
			qd_err("%s: cannot pin %s: %s", k->name, path, strerror(-err));
		}
		close(link);
	}
	close(prog);
	return err;
}

/* Detach the egress programs of instances that are gone. */
static void sweep_egress(const struct qd_reg *r)
{
	struct qd_inst_hdr hdrs[QD_MAX_INSTANCES];
	char path[PATH_MAX], name[64];
	int n = qd_reg_instances(r, NULL, hdrs);
	struct dirent *e;
	DIR *d;

	pin_path(path, r->kind, NULL);
	d = opendir(path);
	while (n >= 0 && d && (e = readdir(d))) {
		bool used = false;

		if (strncmp(e->d_name, EGRESS_PIN, strlen(EGRESS_PIN)))
			continue;
		for (int i = 0; i < n && !used; i++) {
			egress_pin_name(name, sizeof(name), &hdrs[i].place);
			used = hdrs[i].place.parent == QD_ROOT_PARENT && !strcmp(name, e->d_name);
		}
		if (used)
			continue;
		pin_path(path, r->kind, e->d_name);
		unpin_link(path);
	}
	if (d)
		closedir(d);
}

void qd_reg_sweep(void)
{
	if (access(QD_PIN_ROOT, F_OK))
		return;
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		struct qd_reg r = { .kind = *k, .insts_fd = -1, .cfgs_fd = -1, .pending_fd = -1 };
		char path[PATH_MAX];

		pin_path(path, *k, NULL);
		if (access(path, F_OK))
			continue;
		/* A registration some killed run left half-made goes too. */
		pin_path(path, *k, "link");
		if (access(path, F_OK) || open_pinned(&r) || qd_reg_instances(&r, NULL, NULL) == 0)
			unpin_all(*k);
		else if ((*k)->egress_prog)
			sweep_egress(&r);
		qd_reg_close(&r);
	}
	/* Fails, as it should, while any kind is still registered. */
	rmdir(QD_PIN_ROOT);
}

void qd_reg_tidy(void)
{
	int lock;

	if (access(QD_PIN_ROOT, F_OK))
		return;
	lock = qd_lock();
	if (lock < 0)
		return;
	qd_reg_sweep();
	qd_unlock(lock);
}
