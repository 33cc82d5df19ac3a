/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of a kind: its struct_ops registration and the maps that
 * hold its instances. A registration lives in bpffs, under
 * /sys/fs/bpf/qdiscctl/KIND/, as a pinned struct_ops link plus the maps
 * qdiscctl reads and writes, so it outlives the process that made it.
 */
#ifndef QDISCCTL_REGISTRY_H
#define QDISCCTL_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "kinds/kind.h"

#define QD_PIN_ROOT "/sys/fs/bpf/qdiscctl"

struct qd_reg {
	const struct qd_kind *kind;
	int insts_fd;
	int cfgs_fd;
	int pending_fd;
	uint32_t inst_size; /* value size of insts: header plus kind state */
	bool created;	    /* registered by this process */
};

/* Does the running kernel let BPF implement Qdisc_ops? 1, 0, or -errno. */
int qd_kernel_supported(void);

/* Serialise qdiscctl processes: an exclusive lock on QD_PIN_ROOT. */
int qd_lock(void);
void qd_unlock(int fd);

/*
 * Open k's registration; with create, register it when absent (loading the
 * embedded program). -ENOENT when absent and !create. Prints its errors.
 */
int qd_reg_open(const struct qd_kind *k, struct qd_reg *r, bool create);
void qd_reg_close(struct qd_reg *r);
/* Unregister: unpin everything; the kernel drops the kind at once. */
int qd_reg_remove(const struct qd_kind *k);

/* Slots in use: fills ids (QD_MAX_INSTANCES entries) and returns the count. */
int qd_reg_instances(const struct qd_reg *r, uint32_t *ids, struct qd_inst_hdr *hdrs);
/* The slot of the instance at place with handle: 0 or -ENOENT. */
int qd_reg_find(const struct qd_reg *r, const struct qd_place *place, uint32_t handle,
		uint32_t *id);
/* The options of slot id: read, and rewrite in place (the queue stays). */
int qd_reg_cfg(const struct qd_reg *r, uint32_t id, void *cfg);
int qd_reg_set_cfg(const struct qd_reg *r, uint32_t id, const void *cfg);
/* The "insts" value of slot id, r->inst_size bytes: header, counters, state. */
int qd_reg_inst(const struct qd_reg *r, uint32_t id, void *buf);
/* Open one of the kind's own pinned maps (qd_kind.maps): an fd, or -errno. */
int qd_reg_map(const struct qd_reg *r, const char *name, uint32_t *value_size);

/* The options .init picks up for the instance about to be created at place. */
int qd_reg_set_pending(const struct qd_reg *r, const struct qd_place *place, const void *cfg);
void qd_reg_clear_pending(const struct qd_reg *r, const struct qd_place *place);

/*
 * Attach the kind's egress program (if it has one) to the device of a root
 * instance about to be created at p; qd_reg_sweep detaches it once no
 * instance sits there. 0 or -errno, said.
 */
int qd_reg_attach_egress(const struct qd_reg *r, const struct qd_place *p);

/* Remove every registration no instance uses any more (lock held). */
void qd_reg_sweep(void);
/* The same, taking the lock; does nothing where qdiscctl never registered. */
void qd_reg_tidy(void);

#endif
