/* SPDX-License-Identifier: GPL-2.0 */
/* RTM_*QDISC messages: building requests and decoding replies. */
#ifndef QDISCCTL_NL_QDISC_H
#define QDISCCTL_NL_QDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

#define QDISC_KIND_LEN 32

struct qdisc_req {
	uint16_t type;	/* RTM_NEWQDISC, RTM_DELQDISC or RTM_GETQDISC */
	uint16_t flags; /* NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, NLM_F_DUMP */
	int ifindex;
	uint32_t parent;
	uint32_t handle;
	const char *kind; /* TCA_KIND, or NULL */
};

/* Lay out req in buf (at least RTNL_MSG_SIZE bytes). */
struct nlmsghdr *qdisc_msg_build(void *buf, const struct qdisc_req *req);

struct qdisc_stats {
	uint64_t bytes;
	uint64_t packets;
	uint32_t drops;
	uint32_t overlimits;
	uint32_t requeues;
	uint32_t backlog;
	uint32_t qlen;
};

struct qdisc_info {
	int ifindex;
	uint32_t handle;
	uint32_t parent;
	uint32_t refcnt;
	char kind[QDISC_KIND_LEN];
	bool offloaded;
	bool has_stats;
	struct qdisc_stats stats;
	const void *options; /* raw TCA_OPTIONS payload, into the message */
	size_t options_len;
};

/* Decode one RTM_NEWQDISC message: 0 or -EBADMSG. */
int qdisc_msg_parse(const struct nlmsghdr *nlh, struct qdisc_info *qi);

struct rtnl;
/*
 * The qdisc at parent on ifindex (kind, handle, stats; no options):
 * 0, -ENOENT, or another -errno.
 */
int qdisc_lookup(struct rtnl *r, int ifindex, uint32_t parent, struct qdisc_info *out);

/* Call cb for every qdisc (of ifindex, when not 0). */
int qdisc_dump(struct rtnl *r, int ifindex, int (*cb)(const struct qdisc_info *qi, void *data),
	       void *data);
/* Call cb for every qdisc of ifindex under a class of the qdisc with handle major:0 (mq's). */
int qdisc_dump_children(struct rtnl *r, int ifindex, uint32_t major,
			int (*cb)(const struct qdisc_info *qi, void *data), void *data);

#endif
