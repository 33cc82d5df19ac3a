/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.core.default_qdisc, the kind the kernel gives devices that come up
 * without a qdisc of their own and the children of an mq it creates: its
 * one owner. `default` and `sysctl set net.core.default_qdisc` both write
 * it through here, under qdiscctl's lock, so that the registration a
 * qdiscctl kind needs and the saved value `default restore` puts back
 * always match what the sysctl holds.
 *
 * The sysctl is host-wide (only the initial network namespace has it). The
 * registration stays while the sysctl names it: every sweep checks it.
 */
#ifndef QDISCCTL_CORE_DEFAULT_QDISC_H
#define QDISCCTL_CORE_DEFAULT_QDISC_H

#include <stddef.h>

#include "kinds/kind.h"

#define QD_DEFAULT_QDISC "net.core.default_qdisc"
#define QD_DEFAULT_DIR	 "/run/qdiscctl"
#define QD_DEFAULT_SAVED QD_DEFAULT_DIR "/default_qdisc.saved"

/* The value now: 0 or -errno. */
int qd_default_get(char *buf, size_t len);
/* The value `default restore` puts back: 0, -ENOENT, -EPERM (not qdiscctl's), -errno. */
int qd_default_saved(char *buf, size_t len);

/*
 * Make k, with the options cfg, the default: registered with room for the
 * children of the mqs the kernel makes, the old value saved unless a
 * first one is, then the sysctl written. 0 or -errno, said.
 */
int qd_default_set_kind(const struct qd_kind *k, const void *cfg);
/* Put the saved value back and forget it: 0, or -errno said (-ENOENT: nothing saved). */
int qd_default_restore(void);
/*
 * A value that is none of qdiscctl's kinds (fq_codel): written as it is,
 * then what a qdiscctl default left goes (the saved value, which would put
 * back something else than what is set now, and a registration nothing
 * uses). 0, the -errno of the write, unsaid (the kernel refuses a qdisc
 * it does not know with -ENOENT), or -ENOLCK when a lock could not be
 * taken, said.
 */
int qd_default_set_other(const char *value);

#endif
