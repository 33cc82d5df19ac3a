// SPDX-License-Identifier: GPL-2.0
/*
 * default: make one of qdiscctl's kinds net.core.default_qdisc, the kind
 * the kernel gives devices that come up without a qdisc of their own and
 * the children of an mq it creates, and put the previous value back.
 *
 * The sysctl is host-wide (only the initial network namespace has it), so
 * -n does not apply. The registration stays while the sysctl names it:
 * every sweep checks default_qdisc, so nothing has to remember that here.
 * The kernel itself holds the struct_ops map while it is the default
 * (bpf_try_module_get in qdisc_set_default), so unregistering it would not
 * free it, but tc could no longer name it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cmd/cmd.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/registry.h"
#include "lib/savefile.h"
#include "lib/testkill.h"

#define DEFAULT_QDISC "/proc/sys/net/core/default_qdisc"
#define SAVED_DIR     "/run/qdiscctl"
#define SAVED	      SAVED_DIR "/default_qdisc.saved"

/* The first line of path into buf: 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

/* The saved default_qdisc, as qd_save_read checks it: 0 or -errno. */
static int read_saved(char *buf, size_t len)
{
	int err = qd_save_read(SAVED, buf, len);

	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int show_default(void)
{
	char cur[64], saved[64] = "";
	const struct qd_kind *k;
	int err = read_line(DEFAULT_QDISC, cur, sizeof(cur));

	if (err) {
		qd_err("cannot read %s: %s", DEFAULT_QDISC, strerror(-err));
		return QD_EXIT_FAIL;
	}
	read_saved(saved, sizeof(saved));
	k = qd_reg_kind(cur);
	open_json_object(NULL);
	print_string(PRINT_ANY, "default_qdisc", "%s ", k ? k->id : cur);
	if (k) {
		struct qd_place zero = {};
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];
		struct qd_reg r;

		print_string(PRINT_JSON, "kind", NULL, k->name);
		if (qd_opts.details || strcmp(cur, k->id))
			print_string(PRINT_ANY, "version", "version %s ", cur);
		/* The options every instance the kernel makes of it starts with. */
		if (!qd_reg_open_id(cur, &r)) {
			if (!bpf_map_lookup_elem(r.pending_fd, &zero, cfg)) {
				open_json_object("options");
				qd_kind_print(k, cfg);
				close_json_object();
			}
			qd_reg_close(&r);
		}
	}
	if (saved[0])
		print_string(PRINT_ANY, "saved", "('default restore' puts back %s)", saved);
	close_json_object();
	print_string(PRINT_FP, NULL, "%s", "\n");
	return QD_EXIT_OK;
}

/* Make k (with cfg for the options) the default; the lock is held. */
static int set_default(const struct qd_kind *k, const void *cfg)
{
	char prev[64];
	bool saved_now = false;
	struct qd_reg r;
	int err, dir;

	err = read_line(DEFAULT_QDISC, prev, sizeof(prev));
	if (err) {
		qd_err("cannot read %s: %s", DEFAULT_QDISC, strerror(-err));
		return QD_EXIT_FAIL;
	}
	/* Where the old value is kept must be ours before anything changes. */
	dir = qd_own_dir(SAVED_DIR, true, true);
	if (dir < 0)
		return QD_EXIT_FAIL;
	close(dir);
	qd_reg_sweep(NULL, NULL);
	/* The sysctl is host-wide, and sysfs shows the initial namespace's devices. */
	err = qd_reg_open(k, &r, QD_DEFAULT_SLOTS, cfg);
	if (err == -ENOENT)
		err = qd_reg_create(k, &r, QD_DEFAULT_SLOTS, 0, cfg);
	if (err)
		return QD_EXIT_FAIL;
	err = qd_reg_set_defaults(&r, cfg);
	if (err) {
		qd_err("cannot write the options of %s: %s", r.id, strerror(-err));
		goto fail;
	}
	/* A second default keeps the first one's original, as sysctl apply does. */
	err = qd_save_write(SAVED, prev, true);
	if (err && err != -EEXIST) {
		qd_err("cannot save the old default_qdisc in %s: %s", SAVED, strerror(-err));
		goto fail;
	}
	saved_now = !err;
	qd_test_kill(QD_KILL_DEFAULT);
	err = write_str(DEFAULT_QDISC, r.id);
	if (err) {
		qd_err("cannot set %s to %s: %s", DEFAULT_QDISC, r.id, strerror(-err));
		if (saved_now)
			unlink(SAVED);
		goto fail;
	}
	qd_reg_close(&r);
	/* The kind that was the default may have no instance left. */
	qd_reg_sweep(NULL, NULL);
	return QD_EXIT_OK;
fail:
	qd_reg_close(&r);
	qd_reg_sweep(NULL, NULL);
	return QD_EXIT_FAIL;
}

static int restore_default(void)
{
	char cur[64], saved[64];
	const struct qd_kind *k;
	struct qd_reg r;
	int err;

	err = read_saved(saved, sizeof(saved));
	if (err == -EPERM) {
		qd_err("default restore: %s is not qdiscctl's (a symlink, or another user's): not "
		       "used",
		       SAVED);
		return QD_EXIT_FAIL;
	}
	if (err) {
		qd_err("default restore: nothing saved in %s ('qdiscctl default KIND' saves it)",
		       SAVED);
		return QD_EXIT_FAIL;
	}
	/* The options instances made by others get go back to the kind's own. */
	if (!read_line(DEFAULT_QDISC, cur, sizeof(cur)) && (k = qd_reg_kind(cur)) &&
	    !qd_reg_open_id(cur, &r)) {
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];

		qd_kind_defaults(k, cfg);
		qd_reg_set_defaults(&r, cfg);
		qd_reg_close(&r);
	}
	err = write_str(DEFAULT_QDISC, saved);
	if (err) {
		qd_err("cannot set %s back to %s: %s", DEFAULT_QDISC, saved, strerror(-err));
		return QD_EXIT_FAIL;
	}
	unlink(SAVED);
	qd_reg_sweep(NULL, NULL);
	return QD_EXIT_OK;
}

static int run_default(int argc, char **argv)
{
	const struct qd_kind *k = NULL;
	bool restore = argc == 2 && !strcmp(argv[1], "restore");
	int lock, ret;

	if (argc == 1)
		return show_default();
	if (!restore && !(k = qd_kind_find(argv[1]))) {
		qd_err("default: \"%s\" is not one of qdiscctl's kinds (see 'qdiscctl kinds') nor "
		       "\"restore\"",
		       argv[1]);
		return QD_EXIT_USAGE;
	}
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	if (k) {
		qd_kind_defaults(k, cfg);
		if (qd_kind_parse(k, argc - 2, argv + 2, cfg) ||
		    qd_kind_check_required(k, argc - 2, argv + 2) ||
		    qd_kind_caps_check(k, qd_opts.capacity))
			return QD_EXIT_USAGE;
		if ((ret = qd_check_kernel(k)))
			return ret;
	}
	if (geteuid() != 0) {
		qd_err("default needs root (it writes %s)", DEFAULT_QDISC);
		return QD_EXIT_FAIL;
	}
	lock = qd_lock();
	if (lock < 0)
		return QD_EXIT_FAIL;
	ret = k ? set_default(k, cfg) : restore_default();
	qd_unlock(lock);
	return ret;
}

static const struct qd_cmd default_cmd = {
	.name = "default",
	.args = "[KIND [OPTIONS] | restore]",
	.summary = "show or set net.core.default_qdisc to one of qdiscctl's kinds",
	.help = "With KIND, registers it if needed and makes it net.core.default_qdisc: devices\n"
		"that come up without a qdisc of their own (not veth or dummy, which get noqueue)\n"
		"and the children of every mq get it, with OPTIONS as their options. The first\n"
		"one saves the old value in\n" SAVED ";\n"
		"\"restore\" puts it back, and the registration goes once no instance uses it.\n"
		"Without arguments, shows the current default. The sysctl is host-wide: -n does\n"
		"not apply.",
	.order = 57,
	.run = run_default,
};
QD_CMD_REGISTER(default_cmd);
