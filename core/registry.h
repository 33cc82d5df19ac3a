/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of a kind: its struct_ops registrations and the maps that
 * hold their instances, opened and read here (core/register.h makes them,
 * core/sweep.h removes them). A registration lives in bpffs, under
 * /sys/fs/bpf/qdiscctl/KIND/, as a pinned struct_ops link plus the maps
 * qdiscctl reads and writes, so it outlives the process that made it.
 *
 * A registration runs one version of the kind's program: the "elf" symlink
 * in its directory holds the fingerprint of the embedded object it loaded.
 * A qdiscctl whose object differs registers its own alongside, as
 * KIND-N/ with the Qdisc_ops id ID.N (N = 1..9), and uses it for new
 * instances; the old one goes with its last instance.
 */
#ifndef QDISCCTL_CORE_REGISTRY_H
#define QDISCCTL_CORE_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "core/regname.h"
#include "kinds/kind.h"

struct qd_reg {
	const struct qd_kind *kind;
	char dir[QD_DIR_LEN]; /* under QD_PIN_ROOT: KIND or KIND-N */
	char id[QD_ID_LEN];   /* the Qdisc_ops id the kernel and tc show */
	char fp[QD_FP_LEN];   /* the program's fingerprint; "" when not recorded */
	int slots_fd;
	int insts_fd;
	int cfgs_fd;
	int pending_fd;
	/* "slots" mapped read-only: who holds each slot, as the programs write it. */
	const volatile struct qd_inst_hdr *holders;
	size_t holders_len; /* bytes mapped */
	uint32_t inst_size; /* value size of insts: the kind's state */
	/* Bytes of an instance as qd_reg_inst reads it: insts', then rows kept apart. */
	uint32_t inst_len;
	uint32_t slots;	   /* instance slots: the entries of slots, insts and cfgs */
	uint32_t cfg_size; /* value size of cfgs (and pending) */
	/*
	 * Capacities (QD_CAP_INSTANCES, then the kind's): what a new
	 * registration is made with; read back by qd_reg_caps.
	 */
	uint32_t cap[QD_CAPS_MAX];
	bool created; /* registered by this process */
};

/*
 * Open a registration of k that runs this qdiscctl's program and has room
 * for need more instances, with at least the capacities --capacity names
 * and the options in cfg need (cfg may be NULL; need 0: any
 * registration): 0, or -ENOENT when there is none.
 */
int qd_reg_open(const struct qd_kind *k, struct qd_reg *r, uint32_t need, const void *cfg);
/* The capacities r was registered with, into r->cap: 0 or -errno. */
int qd_reg_caps(struct qd_reg *r);
/* The map memory of r (bytes_memlock of every map it pins) and how many maps. */
int qd_reg_memory(const struct qd_reg *r, uint64_t *bytes, unsigned int *maps);

/* The kind whose registration, of any version, has Qdisc_ops id id; or NULL. */
const struct qd_kind *qd_reg_kind(const char *id);
/* Open the registration whose Qdisc_ops id is id (a kind the kernel reports). */
int qd_reg_open_id(const char *id, struct qd_reg *r);
void qd_reg_close(struct qd_reg *r);

/* The instances of a registration: their slots and headers. */
struct qd_insts {
	int n;
	uint32_t *ids;
	struct qd_inst_hdr *hdrs;
};

/* The slots in use: 0 or -errno; free with qd_insts_free. */
int qd_reg_list(const struct qd_reg *r, struct qd_insts *l);
void qd_insts_free(struct qd_insts *l);
/* The slot of the instance at place with handle: 0 or -ENOENT. */
int qd_reg_find(const struct qd_reg *r, const struct qd_place *place, uint32_t handle,
		uint32_t *id);
/* The options of slot id: read, and rewrite in place (the queue stays). */
int qd_reg_cfg(const struct qd_reg *r, uint32_t id, void *cfg);
/* Refuses (-ERANGE, said) options beyond the registration's capacities. */
int qd_reg_set_cfg(struct qd_reg *r, uint32_t id, const void *cfg);
/*
 * The "insts" value of slot id (header, counters, state), then the rows
 * of the entries in its options cfg (as qd_reg_cfg reads them) that the
 * kind keeps apart, into buf (r->inst_len bytes): rows past the entries
 * there are (qd_kind_entries_read) are left as they were.
 */
int qd_reg_inst(const struct qd_reg *r, uint32_t id, const void *cfg, void *buf);
/* Open one of the kind's own pinned maps (qd_kind.maps): an fd, or -errno. */
int qd_reg_map(const struct qd_reg *r, const char *name, uint32_t *value_size);

/* The options .init picks up for the instance about to be created at place. */
int qd_reg_set_pending(const struct qd_reg *r, const struct qd_place *place, const void *cfg);
void qd_reg_clear_pending(const struct qd_reg *r, const struct qd_place *place);

/* Rewrite the options instances made by others (tc, default_qdisc, mq) get. */
int qd_reg_set_defaults(const struct qd_reg *r, const void *cfg);
/* Read them: 0, or -errno (-ENOENT: none written). */
int qd_reg_defaults(const struct qd_reg *r, void *cfg);

/* --- for core/ only ----------------------------------------------------- */

/* r empty, for kind k (which may be NULL: a directory of a kind this qdiscctl lacks). */
void qd_reg_init(struct qd_reg *r, const struct qd_kind *k);
/* r->dir and r->id for version v of r's kind k: 0, or -ENAMETOOLONG. */
int qd_reg_version(const struct qd_kind *k, int v, struct qd_reg *r);
/* Open the version r->dir names: 0, -ENOENT when it has no link, else -errno. */
int qd_reg_open_version(struct qd_reg *r);
/* Open the maps pinned in r->dir and check their shapes: 0 or -errno. */
int qd_reg_open_pinned(struct qd_reg *r);
/*
 * Offsets of k's capacities (qd_cap_NAME) in a .rodata laid out by btf:
 * off[i] is -1 for a capacity the program does not read.
 */
struct btf;
void qd_reg_cap_offsets(const struct qd_kind *k, const struct btf *btf, long *off);

#endif
