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
#include <sys/mman.h>
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
#include "lib/savefile.h"
#include "lib/testkill.h"

#define QD_BPFFS "/sys/fs/bpf"
/* Pins of egress program attachments: egress-NETNS-IFINDEX. */
#define EGRESS_PIN     "egress-"
#define QD_ROOT_PARENT 0xFFFFFFFFU
/* Registration directories a sweep looks at: every version of every kind fits. */
#define QD_SWEEP_MAX 128

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

/*
 * QD_PIN_ROOT as this process holds it open: every path below it goes
 * through /proc/self/fd/ROOT_FD, so that a directory renamed or swapped
 * for a symlink after it was checked is never followed. -1: not open.
 */
static int root_fd = -1;

/*
 * Open QD_PIN_ROOT (making it first when create) and check that it is
 * qdiscctl's: a real directory on bpffs, owned by root, mode 0700. A bpffs
 * mounted without mode= lets any user make it first, fill it with
 * symlinks or hold its lock; such a directory is refused, untouched.
 * Returns the descriptor, -ENOENT when there is none and !create, else
 * -errno, with the reason said when create: readers (show, kinds) find no
 * registration there, the command that would change one says why.
 */
static int open_root(bool create)
{
	struct statfs sf;
	int fd, err;

	if (create && (err = ensure_bpffs()))
		return err;
	/* qdiscctl changes registrations as root only: "its user's" is root's. */
	fd = qd_own_dir(QD_PIN_ROOT, create, create);
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &sf) || sf.f_type != BPF_FS_MAGIC) {
		if (create)
			qd_err("%s is not on bpffs: remove it as root", QD_PIN_ROOT);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Is fd still what QD_PIN_ROOT names? The last holder of the lock removes it. */
static bool root_current(int fd)
{
	struct stat held, now;

	return !fstat(fd, &held) && !fstatat(AT_FDCWD, QD_PIN_ROOT, &now, AT_SYMLINK_NOFOLLOW) &&
	       held.st_ino == now.st_ino && held.st_dev == now.st_dev;
}

/* For readers: QD_PIN_ROOT checked and held, 0; -ENOENT when there is none. */
static int use_root(void)
{
	int fd;

	if (root_fd >= 0 && root_current(root_fd))
		return 0;
	fd = open_root(false);
	if (fd < 0)
		return fd;
	if (root_fd >= 0)
		close(root_fd);
	root_fd = fd;
	return 0;
}

int qd_lock(void)
{
	int fd;

	for (;;) {
		fd = open_root(true);
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX)) {
			int err = -errno;

			qd_err("cannot lock %s: %s", QD_PIN_ROOT, strerror(errno));
			close(fd);
			return err;
		}
		/* The holder before us may have removed the directory we waited on. */
		if (root_current(fd))
			break;
		close(fd);
	}
	if (root_fd >= 0)
		close(root_fd);
	root_fd = fd;
	qd_test_kill(QD_KILL_LOCK);
	return fd;
}

void qd_unlock(int fd)
{
	if (fd < 0)
		return;
	/*
	 * The last one out removes the directory (rmdir fails while anything
	 * is registered); a process waiting on it notices and makes a new one.
	 */
	rmdir(QD_PIN_ROOT);
	if (fd == root_fd)
		root_fd = -1;
	close(fd);
}

static void pin_path(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "/proc/self/fd/%d/%s%s%s", root_fd, dir, name ? "/" : "",
		 name ? name : "");
}

/* A registration's directory as qdiscctl makes it: a real one, root's. */
static bool own_dir(const char *dir)
{
	struct stat st;

	return root_fd >= 0 && !fstatat(root_fd, dir, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode) && st.st_uid == 0;
}

/* Is entry name of registration dir a symlink (or gone)? Then it is never followed. */
static bool is_symlink(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return root_fd < 0 || fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW) ||
	       S_ISLNK(st.st_mode);
}

const struct qd_kind *qd_reg_kind(const char *id)
{
	int v;

	return qd_reg_parse(id, true, &v);
}

static int version_names(const struct qd_kind *k, int v, struct qd_reg *r)
{
	return qd_reg_names(k, v, r->dir, r->id);
}

static void read_fp(struct qd_reg *r)
{
	char path[PATH_MAX];
	ssize_t n;

	pin_path(path, r->dir, "elf");
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

static int open_pinned(struct qd_reg *r)
{
	int *fds[] = { &r->slots_fd, &r->insts_fd, &r->cfgs_fd, &r->pending_fd };
	struct bpf_map_info info;
	char path[PATH_MAX];
	void *p;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		pin_path(path, r->dir, base_maps[i]);
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
static int cfg_fits(const struct qd_reg *r)
{
	return r->kind && r->cfg_size == r->kind->cfg_size ? 0 : -EINVAL;
}

/* Point the struct_ops map at the registration's id: the one place it is set. */
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

/* The tx queues of every device qdiscctl sees: what an mq on each would need. */
static uint32_t host_tx_queues(void)
{
	DIR *d = opendir("/sys/class/net");
	uint64_t n = 0;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct dirent *q;
		DIR *qd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues", e->d_name);
		qd = opendir(path);
		while (qd && (q = readdir(qd)))
			n += !strncmp(q->d_name, "tx-", 3);
		if (qd)
			closedir(qd);
	}
	if (d)
		closedir(d);
	return n > QD_SLOTS_MAX ? QD_SLOTS_MAX : n;
}

/*
 * The capacities of a new registration of k with room for need instances:
 * the kind's defaults, instance slots for every tx queue of the host's
 * devices (so that an mq on every one fits), rounded up to QD_SLOTS_MIN,
 * then --capacity. sysfs shows the initial namespace's devices, here is
 * the count of the namespace being worked in; one of them may be both.
 */
static int plan_capacity(const struct qd_kind *k, uint32_t need, uint64_t here, const void *cfg,
			 uint32_t *cap)
{
	uint32_t want[QD_CAPS_MAX] = {};
	bool asked[QD_CAPS_MAX] = {}, wanted[QD_CAPS_MAX] = {};
	uint64_t slots = host_tx_queues();

	if (slots < here)
		slots = here;
	if (++slots < need)
		slots = need;
	slots = (slots + QD_SLOTS_MIN - 1) / QD_SLOTS_MIN * QD_SLOTS_MIN;
	cap[QD_CAP_INSTANCES] = slots > QD_SLOTS_MAX ? QD_SLOTS_MAX : slots;
	for (int i = 1; i < qd_kind_ncaps(k); i++)
		cap[i] = qd_kind_cap(k, i)->def;
	if (qd_kind_caps_parse(k, qd_opts.capacity, cap, asked))
		return -EINVAL;
	/* Options beyond a capacity's default raise it, but not past -C. */
	if (cfg)
		qd_kind_caps_for(k, cfg, want, wanted);
	for (int i = 1; i < qd_kind_ncaps(k); i++) {
		const struct qd_opt *o = NULL;

		if (!wanted[i] || want[i] <= cap[i])
			continue;
		for (o = k->opts; o->name && (!o->cap || strcmp(o->cap, qd_kind_cap(k, i)->name));)
			o++;
		if (asked[i]) {
			qd_err("%s: %s needs %s %u, more than -C %s=%u", k->name, o->name,
			       qd_kind_cap(k, i)->name, want[i], qd_kind_cap(k, i)->name, cap[i]);
			return -EINVAL;
		}
		cap[i] = want[i];
	}
	if (cap[QD_CAP_INSTANCES] < need) {
		qd_err("%s: %u instances are needed but a registration holds at most %u "
		       "(--capacity instances=N)",
		       k->name, need, cap[QD_CAP_INSTANCES]);
		return -ENOSPC;
	}
	return 0;
}

/* The read-only data of obj: its map, and the BTF section that lays it out. */
static struct bpf_map *rodata_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		const char *dot = strchr(name, '.');

		if (bpf_map__is_internal(map) && dot && !strcmp(dot, ".rodata"))
			return map;
	}
	return NULL;
}

/*
 * Offsets of k's capacities (qd_cap_NAME) in a .rodata laid out by btf:
 * off[i] is -1 for a capacity the program does not read.
 */
static void cap_offsets(const struct qd_kind *k, const struct btf *btf, long *off)
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

/* Size obj for r->cap: every map, and the qd_cap_NAME the programs read. */
static int set_capacity(struct bpf_object *obj, const struct qd_reg *r)
{
	const struct qd_kind *k = r->kind;
	struct bpf_map *map, *ro = rodata_map(obj);
	long off[QD_CAPS_MAX];
	size_t size = 0;
	char *data = ro ? bpf_map__initial_value(ro, &size) : NULL;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		uint32_t n = 0;

		if (!strcmp(name, "slots") || !strcmp(name, "insts") || !strcmp(name, "cfgs"))
			n = r->cap[QD_CAP_INSTANCES];
		else if (!strcmp(name, "pending"))
			n = r->cap[QD_CAP_INSTANCES] + 1;
		else if (k->map_entries && !bpf_map__is_internal(map))
			n = k->map_entries(name, r->cap);
		if (n && bpf_map__set_max_entries(map, n))
			return -errno;
	}
	cap_offsets(k, bpf_object__btf(obj), off);
	/* Every kind reads qd_cap_instances: a program without it is not ours. */
	if (!data || off[QD_CAP_INSTANCES] < 0)
		return -ENOENT;
	for (int i = 0; i < QD_CAPS_MAX; i++)
		if (off[i] >= 0 && (size_t)off[i] + sizeof(uint32_t) <= size)
			memcpy(data + off[i], &r->cap[i], sizeof(uint32_t));
	return 0;
}

int qd_reg_caps(struct qd_reg *r)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	char path[PATH_MAX], *val = NULL;
	long off[QD_CAPS_MAX];
	struct btf *btf = NULL;
	int fd, err;

	pin_path(path, r->dir, RODATA_PIN);
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
		cap_offsets(r->kind, btf, off);
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
	pin_path(path, r->dir, NULL);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		unsigned long long mem = 0;
		bool map = false;
		char line[128];
		FILE *f;
		int fd;

		if (e->d_name[0] == '.' || is_symlink(r->dir, e->d_name))
			continue;
		pin_path(path, r->dir, e->d_name);
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

static int write_defaults(const struct qd_reg *r)
{
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];

	qd_kind_defaults(r->kind, cfg);
	return qd_reg_set_defaults(r, cfg);
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

static void unpin_all(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	/* Maps, the egress program and its attachments: whatever is there. */
	if (!own_dir(dir))
		return;
	pin_path(path, dir, NULL);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "link"))
			continue;
		pin_path(path, dir, e->d_name);
		/* A symlink is removed, never followed to what it names. */
		if (!strncmp(e->d_name, EGRESS_PIN, strlen(EGRESS_PIN)) &&
		    !is_symlink(dir, e->d_name))
			unpin_link(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	qd_test_kill(QD_KILL_UNPINNING);
	/*
	 * The registration's link last. Unpinning alone would unregister the
	 * kind from a workqueue, some time later, and a quick re-add would
	 * collide with it (EEXIST); detaching unregisters it now.
	 */
	pin_path(path, dir, "link");
	if (is_symlink(dir, "link"))
		unlink(path);
	else
		unpin_link(path);
	pin_path(path, dir, NULL);
	rmdir(path);
}

/* Register version r->dir/r->id of r->kind; -EEXIST, unsaid, when the id is taken. */
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
	err = ops ? set_ops_id(obj, ops, r->id) : -ENOENT;
	if (!err)
		err = set_capacity(obj, r);
	if (err) {
		qd_err("%s: the embedded BPF object has no usable Qdisc_ops", k->name);
		goto out;
	}
	/* qdiscctl attaches and pins the link itself. */
	bpf_map__set_autoattach(ops, false);
	err = bpf_object__load(obj);
	if (err == -ENOMEM || err == -E2BIG) {
		qd_err("%s: no memory for a registration of %u instances (the capacity it would "
		       "have: 'qdiscctl -d kinds'; --capacity sets it)",
		       k->name, r->cap[QD_CAP_INSTANCES]);
		goto out;
	}
	if (err) {
		qd_err("%s: the kernel refused the BPF program: %s%s", k->name, strerror(-err),
		       qd_opts.verbose >= 2 ? "" : " (-vv shows the verifier log)");
		goto out;
	}
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		if (err != -EEXIST)
			qd_err("%s: cannot register qdisc kind %s: %s", k->name, r->id,
			       strerror(-err));
		goto out;
	}
	qd_test_kill(QD_KILL_REGISTERING);
	pin_path(path, r->dir, NULL);
	if (mkdir(path, 0700) && errno != EEXIST) {
		err = -errno;
		qd_err("cannot create %s/%s: %s", QD_PIN_ROOT, r->dir, strerror(-err));
		goto out;
	}
	/* Every map, so that its memory can be counted and nothing is hidden. */
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		if (map == ops || err)
			continue;
		/* bpffs takes no dots: ".rodata" is pinned as "rodata". */
		if (bpf_map__is_internal(map) && strchr(name, '.'))
			name = strchr(name, '.') + 1;
		pin_path(path, r->dir, name);
		err = bpf_map__pin(map, path);
	}
	if (!err && k->egress_prog) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, k->egress_prog);

		pin_path(path, r->dir, k->egress_prog);
		err = prog ? bpf_program__pin(prog, path) : -ENOENT;
	}
	qd_test_kill(QD_KILL_PINNING);
	if (!err) {
		pin_path(path, r->dir, "link");
		err = bpf_link__pin(link, path);
	}
	qd_test_kill(QD_KILL_PINNED);
	if (!err)
		err = open_pinned(r);
	if (!err)
		err = write_defaults(r);
	/* Last: a registration without its version record is a half-made one. */
	if (!err) {
		qd_kind_fingerprint(k, r->fp);
		pin_path(path, r->dir, "elf");
		err = symlink(r->fp, path) ? -errno : 0;
	}
	if (err) {
		qd_err("%s: cannot pin the registration under %s: %s", k->name, QD_PIN_ROOT,
		       strerror(-err));
		unpin_all(r->dir);
	}
out:
	/* With the link pinned this only drops our reference. */
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return err;
}

static void reg_init(struct qd_reg *r, const struct qd_kind *k)
{
	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->slots_fd = r->insts_fd = r->cfgs_fd = r->pending_fd = -1;
	libbpf_set_print(libbpf_print);
}

/* Open the version r->dir names: 0, -ENOENT when it has no link, else -errno. */
static int open_version(struct qd_reg *r)
{
	char path[PATH_MAX];
	int err = use_root();

	if (err)
		return err;
	if (!own_dir(r->dir))
		return -ENOENT;
	pin_path(path, r->dir, "link");
	if (access(path, F_OK))
		return -ENOENT;
	return open_pinned(r);
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

	reg_init(r, k);
	if (need && qd_kind_caps_parse(k, qd_opts.capacity, want, named))
		return -EINVAL;
	if (need && cfg)
		qd_kind_caps_for(k, cfg, want, named);
	qd_kind_fingerprint(k, fp);
	for (int v = 0; v < QD_REG_VERSIONS; v++) {
		if (version_names(k, v, r) || open_version(r))
			continue;
		if (!strcmp(r->fp, fp) && (!need || has_room(r, need, want, named)))
			return 0;
		qd_reg_close(r);
	}
	return -ENOENT;
}

int qd_reg_create(const struct qd_kind *k, struct qd_reg *r, uint32_t need, uint64_t here,
		  const void *cfg)
{
	uint32_t cap[QD_CAPS_MAX] = {};
	char path[PATH_MAX];
	bool tried = false;
	int err = -ENOENT;

	reg_init(r, k);
	if (plan_capacity(k, need, here, cfg, cap))
		return -EINVAL;
	/* The first free version whose id the kernel does not know any more. */
	for (int v = 0; v < QD_REG_VERSIONS; v++) {
		if (version_names(k, v, r))
			break;
		pin_path(path, r->dir, NULL);
		if (!access(path, F_OK))
			continue;
		tried = true;
		memcpy(r->cap, cap, sizeof(r->cap));
		err = do_register(r);
		if (err != -EEXIST)
			break;
	}
	if (err == -EEXIST)
		qd_err("%s: every Qdisc_ops id for a new version is taken (%s.1 .. %s.%d)", k->name,
		       k->id, k->id, QD_REG_VERSIONS - 1);
	else if (!tried)
		qd_err("%s: no room for another registration under %s (versions and further "
		       "capacity share %d): 'qdiscctl gc' removes unused ones",
		       k->name, QD_PIN_ROOT, QD_REG_VERSIONS);
	r->created = !err;
	if (err)
		qd_reg_close(r);
	else
		qd_test_kill(QD_KILL_REGISTERED);
	return err;
}

int qd_reg_open_id(const char *id, struct qd_reg *r)
{
	int v, err;
	const struct qd_kind *k = qd_reg_parse(id, true, &v);

	reg_init(r, k);
	snprintf(r->id, sizeof(r->id), "%s", id);
	if (!k || version_names(k, v, r))
		return -ENOENT;
	err = open_version(r);
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
	return cfg_fits(r) ?: bpf_map_lookup_elem(r->cfgs_fd, &id, cfg) ? -errno : 0;
}

int qd_reg_set_cfg(struct qd_reg *r, uint32_t id, const void *cfg)
{
	const struct qd_opt *o;
	int err = cfg_fits(r) ?: qd_reg_caps(r);

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

	pin_path(path, r->dir, name);
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
	return cfg_fits(r) ?: bpf_map_update_elem(r->pending_fd, place, cfg, BPF_ANY) ? -errno : 0;
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
	pin_path(path, r->dir, name);
	if (!access(path, F_OK))
		return 0;
	pin_path(path, r->dir, k->egress_prog);
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
		pin_path(path, r->dir, name);
		if (bpf_obj_pin(link, path)) {
			err = -errno;
			qd_err("%s: cannot pin %s: %s", k->name, path, strerror(-err));
		}
		close(link);
	}
	close(prog);
	return err;
}

struct sweep {
	qd_sweep_report report;
	void *data;
	int removed;
};

static void removed(struct sweep *sw, const char *what, const char *reg, const char *detail)
{
	sw->removed++;
	if (sw->report)
		sw->report(what, reg, detail, sw->data);
}

/* Detach the egress programs of root instances that are gone. */
static void sweep_egress(struct sweep *sw, const struct qd_reg *r, const struct qd_inst_hdr *hdrs,
			 int n)
{
	char path[PATH_MAX], name[64];
	struct dirent *e;
	DIR *d;

	pin_path(path, r->dir, NULL);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		bool used = false;

		if (strncmp(e->d_name, EGRESS_PIN, strlen(EGRESS_PIN)))
			continue;
		for (int i = 0; i < n && !used; i++) {
			egress_pin_name(name, sizeof(name), &hdrs[i].place);
			used = hdrs[i].place.parent == QD_ROOT_PARENT && !strcmp(name, e->d_name);
		}
		if (used || is_symlink(r->dir, e->d_name))
			continue;
		pin_path(path, r->dir, e->d_name);
		unpin_link(path);
		removed(sw, "egress", r->dir, e->d_name);
	}
	if (d)
		closedir(d);
}

/*
 * Options written for an instance that was never made: with the lock held
 * no add is under way, and .init consumes the entry of the qdisc it makes.
 */
static void sweep_pending(struct sweep *sw, const struct qd_reg *r)
{
	struct qd_place key, next, *prev = NULL;
	char detail[96];

	while (!bpf_map_get_next_key(r->pending_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (key.ifindex == QD_DEFAULTS_IFINDEX)
			continue;
		if (bpf_map_delete_elem(r->pending_fd, &key))
			continue;
		/* The walk goes on from a deleted key: the hash map restarts it. */
		prev = NULL;
		snprintf(detail, sizeof(detail), "netns %llu ifindex %u parent %x:%x",
			 (unsigned long long)key.netns, key.ifindex, key.parent >> 16,
			 key.parent & 0xffff);
		removed(sw, "pending", r->dir, detail);
	}
}

/* The kind new devices and mq children get: "" when unreadable. */
static void default_qdisc(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/net/core/default_qdisc", "r");

	buf[0] = '\0';
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void sweep_one(struct sweep *sw, const char *dir, const char *dflt)
{
	struct qd_insts l = {};
	struct qd_reg r;
	const char *why = NULL;
	int v;
	const struct qd_kind *k = qd_reg_parse(dir, false, &v);

	reg_init(&r, k);
	/* Not a name qdiscctl gives: someone else's, left alone. */
	if (snprintf(r.dir, sizeof(r.dir), "%s", dir) >= (int)sizeof(r.dir))
		return;
	/* A directory of a kind this qdiscctl lacks is still judged by its maps. */
	if ((!k || version_names(k, v, &r)) &&
	    snprintf(r.id, sizeof(r.id), "qdiscctl_%s", dir) >= (int)sizeof(r.id))
		return;
	if (open_version(&r) || !r.fp[0])
		why = "incomplete";
	else if (qd_reg_list(&r, &l))
		why = "incomplete";
	else if (!l.n && strcmp(r.id, dflt))
		why = "no instance";
	if (why) {
		qd_insts_free(&l);
		qd_reg_close(&r);
		unpin_all(dir);
		removed(sw, "registration", dir, why);
		return;
	}
	sweep_pending(sw, &r);
	sweep_egress(sw, &r, l.hdrs, l.n);
	qd_insts_free(&l);
	qd_reg_close(&r);
}

int qd_reg_sweep(qd_sweep_report report, void *data)
{
	struct sweep sw = { report, data, 0 };
	/* Read the directory whole first: sweeping removes entries from it. */
	char dirs[QD_SWEEP_MAX][NAME_MAX + 1], dflt[QD_ID_LEN + 1];
	struct dirent *e;
	int n = 0;
	DIR *d;

	char root[PATH_MAX];

	if (use_root())
		return 0;
	pin_path(root, "", NULL);
	d = opendir(root);
	if (!d)
		return 0;
	/* Only directories root made: a symlink or a file is nobody's registration. */
	while ((e = readdir(d)) && n < QD_SWEEP_MAX)
		if (e->d_name[0] != '.' && own_dir(e->d_name))
			snprintf(dirs[n++], sizeof(dirs[0]), "%s", e->d_name);
	closedir(d);
	default_qdisc(dflt, sizeof(dflt));
	for (int i = 0; i < n; i++)
		sweep_one(&sw, dirs[i], dflt);
	return sw.removed;
}

void qd_reg_tidy(void)
{
	int lock;

	if (access(QD_PIN_ROOT, F_OK))
		return;
	lock = qd_lock();
	if (lock < 0)
		return;
	qd_reg_sweep(NULL, NULL);
	qd_unlock(lock);
}
