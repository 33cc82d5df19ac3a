/* SPDX-License-Identifier: GPL-2.0 */
/* An rtnetlink socket that reports the kernel's extended-ack text. */
#ifndef QDISCCTL_RTNL_H
#define QDISCCTL_RTNL_H

#include <stdint.h>
#include <linux/types.h>
#include <libmnl/libmnl.h>

#define RTNL_ERRMSG_LEN 256
/* A request qdiscctl builds: libmnl's MNL_SOCKET_BUFFER_SIZE on 4 KiB pages, as a constant. */
#define RTNL_MSG_SIZE 8192

struct rtnl {
	struct mnl_socket *nl;
	unsigned int portid;
	uint32_t seq;
	/* The kernel's extack text for the last failed request, or "". */
	char errmsg[RTNL_ERRMSG_LEN];
};

int rtnl_open(struct rtnl *r);
void rtnl_close(struct rtnl *r);

/* Send a request and wait for its ack: 0, or -errno with r->errmsg set. */
int rtnl_talk(struct rtnl *r, struct nlmsghdr *nlh);

/* Send a request for one object and call cb for the answer: 0 or -errno. */
int rtnl_get(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/* Send a dump request and call cb for every reply message: 0 or -errno. */
int rtnl_dump(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/* The cookie of the network namespace the socket lives in. */
int rtnl_netns_cookie(struct rtnl *r, __u64 *cookie);

/*
 * Walk the messages of one receive buffer: data messages go to cb, an
 * error or done message ends the walk. Returns 1 to keep reading, 0 when
 * done, -errno on error (errmsg filled from the extended ack). Exposed for
 * the unit tests, which feed it recorded replies.
 */
int rtnl_parse_reply(const void *buf, size_t len, uint32_t seq, mnl_cb_t cb, void *data,
		     char *errmsg, size_t errlen);

#endif
