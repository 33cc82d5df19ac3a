// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/lock.h"
#include "core/register.h"
#include "core/registry.h"
#include "lib/common.h"
#include "lib/testkill.h"

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
	qd_reg_cap_offsets(k, bpf_object__btf(obj), off);
	/* Every kind reads qd_cap_instances: a program without it is not ours. */
	if (!data || off[QD_CAP_INSTANCES] < 0)
		return -ENOENT;
	for (int i = 0; i < QD_CAPS_MAX; i++)
		if (off[i] >= 0 && (size_t)off[i] + sizeof(uint32_t) <= size)
			memcpy(data + off[i], &r->cap[i], sizeof(uint32_t));
	return 0;
}

/*
 * What the kernel refused while libbpf loaded an object, from libbpf's
 * own warnings: it creates every map before it loads any program, and
 * names the map or program the kernel refused. The error alone cannot
 * tell a map too big from a program the verifier gave up on: both are
 * E2BIG. The formats are libbpf 1.5's; should a later one reword them,
 * E2BIG is reported as a plain refusal.
 */
static struct {
	libbpf_print_fn_t next;
	enum { REFUSED_NOTHING, REFUSED_MAP, REFUSED_PROG } what;
	char name[64];
} refused;

static int note_refusal(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char map_fmt[] = "libbpf: map '%s': failed to create:";
	static const char prog_fmt[] = "libbpf: prog '%s': BPF program load failed:";

	if (level == LIBBPF_WARN && refused.what == REFUSED_NOTHING) {
		if (!strncmp(fmt, map_fmt, sizeof(map_fmt) - 1))
			refused.what = REFUSED_MAP;
		else if (!strncmp(fmt, prog_fmt, sizeof(prog_fmt) - 1))
			refused.what = REFUSED_PROG;
		if (refused.what != REFUSED_NOTHING) {
			va_list names;

			va_copy(names, ap);
			snprintf(refused.name, sizeof(refused.name), "%s",
				 va_arg(names, const char *));
			va_end(names);
		}
	}
	return refused.next ? refused.next(level, fmt, ap) : 0;
}

static int load_object(struct bpf_object *obj)
{
	int err;

	refused.what = REFUSED_NOTHING;
	refused.next = libbpf_set_print(note_refusal);
	err = bpf_object__load(obj);
	libbpf_set_print(refused.next);
	return err;
}

static const char *kernel_release(void)
{
	static struct utsname u;

	return uname(&u) ? "?" : u.release;
}

static int write_defaults(const struct qd_reg *r)
{
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];

	qd_kind_defaults(r->kind, cfg);
	return qd_reg_set_defaults(r, cfg);
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
	err = load_object(obj);
	if (err == -ENOMEM) {
		qd_err("%s: no memory for a registration of %u instances (the capacity it would "
		       "have: 'qdiscctl -d kinds'; --capacity sets it)",
		       k->name, r->cap[QD_CAP_INSTANCES]);
		goto out;
	}
	if (err == -E2BIG && refused.what == REFUSED_MAP) {
		qd_err("%s: map %s of a registration of %u instances is too big for this kernel "
		       "(the capacity it would have: 'qdiscctl -d kinds'; --capacity sets it)",
		       k->name, refused.name, r->cap[QD_CAP_INSTANCES]);
		goto out;
	}
	/* The verifier's limits (a million instructions, 8,192 jumps) did it. */
	if (err == -E2BIG && refused.what == REFUSED_PROG) {
		qd_err("%s: the verifier of kernel %s gave up on program %s: too complex for "
		       "it%s",
		       k->name, kernel_release(), refused.name,
		       qd_opts.verbose >= 2 ? "" : " (-vv shows the verifier log)");
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
	qd_pin_path(path, r->dir, NULL);
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
		qd_pin_path(path, r->dir, name);
		err = bpf_map__pin(map, path);
	}
	if (!err && k->egress_prog) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, k->egress_prog);

		qd_pin_path(path, r->dir, k->egress_prog);
		err = prog ? bpf_program__pin(prog, path) : -ENOENT;
	}
	qd_test_kill(QD_KILL_PINNING);
	if (!err) {
		qd_pin_path(path, r->dir, "link");
		err = bpf_link__pin(link, path);
	}
	qd_test_kill(QD_KILL_PINNED);
	if (!err)
		err = qd_reg_open_pinned(r);
	if (!err)
		err = write_defaults(r);
	/* Last: a registration without its version record is a half-made one. */
	if (!err) {
		qd_kind_fingerprint(k, r->fp);
		qd_pin_path(path, r->dir, "elf");
		err = symlink(r->fp, path) ? -errno : 0;
	}
	if (err) {
		qd_err("%s: cannot pin the registration under %s: %s", k->name, QD_PIN_ROOT,
		       strerror(-err));
		qd_unpin_all(r->dir);
	}
out:
	/* With the link pinned this only drops our reference. */
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return err;
}

int qd_reg_create(const struct qd_kind *k, struct qd_reg *r, uint32_t need, uint64_t here,
		  const void *cfg)
{
	uint32_t cap[QD_CAPS_MAX] = {};
	char path[PATH_MAX];
	bool tried = false;
	int err = -ENOENT;

	qd_reg_init(r, k);
	if (plan_capacity(k, need, here, cfg, cap))
		return -EINVAL;
	/* The first free version whose id the kernel does not know any more. */
	for (int v = 0; v < QD_REG_VERSIONS; v++) {
		if (qd_reg_version(k, v, r))
			break;
		qd_pin_path(path, r->dir, NULL);
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
