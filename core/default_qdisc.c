// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel itself holds the struct_ops map while it is the default
 * (bpf_try_module_get in qdisc_set_default), so unregistering it would not
 * free it, but tc could no longer name it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/default_qdisc.h"
#include "core/lock.h"
#include "core/register.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "lib/common.h"
#include "lib/savefile.h"
#include "lib/testkill.h"
#include "sysctl/proc.h"

/* Where messages say the value is. */
#define DEFAULT_QDISC "/proc/sys/net/core/default_qdisc"

int qd_default_get(char *buf, size_t len)
{
	return qd_sysctl_get(QD_DEFAULT_QDISC, buf, len);
}

int qd_default_saved(char *buf, size_t len)
{
	int err = qd_save_read(QD_DEFAULT_SAVED, buf, len);

	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

/* The options instances made by others get go back to the kind's own, if cur is one. */
static void reset_options(const char *cur)
{
	const struct qd_kind *k = qd_reg_kind(cur);
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	struct qd_reg r;

	if (!k || qd_reg_open_id(cur, &r))
		return;
	qd_kind_defaults(k, cfg);
	qd_reg_set_defaults(&r, cfg);
	qd_reg_close(&r);
}

/* Make k (with cfg for the options) the default; both locks are held. */
static int set_kind(const struct qd_kind *k, const void *cfg)
{
	char prev[64];
	bool saved_now = false;
	struct qd_reg r;
	int err;

	err = qd_default_get(prev, sizeof(prev));
	if (err) {
		qd_err("cannot read %s: %s", DEFAULT_QDISC, strerror(-err));
		return err;
	}
	qd_reg_sweep(NULL, NULL);
	/* The sysctl is host-wide, and sysfs shows the initial namespace's devices. */
	err = qd_reg_open(k, &r, QD_DEFAULT_SLOTS, cfg);
	if (err == -ENOENT)
		err = qd_reg_create(k, &r, QD_DEFAULT_SLOTS, 0, cfg);
	if (err)
		return err;
	err = qd_reg_set_defaults(&r, cfg);
	if (err) {
		qd_err("cannot write the options of %s: %s", r.id, strerror(-err));
		goto out;
	}
	/* A second default keeps the first one's original, as sysctl apply does. */
	err = qd_save_write(QD_DEFAULT_SAVED, prev, true);
	if (err && err != -EEXIST) {
		qd_err("cannot save the old default_qdisc in %s: %s", QD_DEFAULT_SAVED,
		       strerror(-err));
		goto out;
	}
	saved_now = !err;
	qd_test_kill(QD_KILL_DEFAULT);
	err = qd_sysctl_put(QD_DEFAULT_QDISC, r.id);
	if (err) {
		qd_err("cannot set %s to %s: %s", DEFAULT_QDISC, r.id, strerror(-err));
		if (saved_now)
			unlink(QD_DEFAULT_SAVED);
	}
out:
	qd_reg_close(&r);
	/* The kind that was the default may have no instance left; after a failure, this one. */
	qd_reg_sweep(NULL, NULL);
	return err;
}

int qd_default_set_kind(const struct qd_kind *k, const void *cfg)
{
	int lock = qd_lock(), dir, err;

	if (lock < 0)
		return lock;
	/* Where the old value is kept must be ours before anything changes. */
	dir = qd_save_lock(QD_DEFAULT_DIR);
	err = dir < 0 ? dir : set_kind(k, cfg);
	if (dir >= 0)
		close(dir);
	qd_unlock(lock);
	return err;
}

/*
 * Write value over what a qdiscctl default left: once it is written, that
 * kind's instances made by others get its own options again, the saved
 * value goes, and so does a registration nothing uses. 0, -ENOLCK (said)
 * or the write's -errno (unsaid).
 */
static int replace(const char *value)
{
	char cur[64] = "";
	int lock = qd_lock(), dir, err;

	if (lock < 0)
		return -ENOLCK;
	dir = qd_save_lock(QD_DEFAULT_DIR);
	if (dir < 0) {
		qd_unlock(lock);
		return -ENOLCK;
	}
	qd_default_get(cur, sizeof(cur));
	err = qd_sysctl_put(QD_DEFAULT_QDISC, value);
	if (!err) {
		reset_options(cur);
		unlink(QD_DEFAULT_SAVED);
	}
	close(dir);
	if (!err)
		qd_reg_sweep(NULL, NULL);
	qd_unlock(lock);
	return err;
}

int qd_default_restore(void)
{
	char saved[64];
	int err;

	/* Before the lock: a planted file is refused for what it is. */
	err = qd_default_saved(saved, sizeof(saved));
	if (err == -EPERM) {
		qd_err("default restore: %s is not qdiscctl's (a symlink, or another user's): not "
		       "used",
		       QD_DEFAULT_SAVED);
		return err;
	}
	if (err) {
		qd_err("default restore: nothing saved in %s ('qdiscctl default KIND' saves it)",
		       QD_DEFAULT_SAVED);
		return err;
	}
	err = replace(saved);
	if (err && err != -ENOLCK)
		qd_err("cannot set %s back to %s: %s", DEFAULT_QDISC, qd_tok(saved),
		       strerror(-err));
	return err;
}

int qd_default_set_other(const char *value)
{
	return replace(value);
}
