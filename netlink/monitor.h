/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtnetlink's link and qdisc multicast groups, for watch and monitor:
 * which device changed, and the message that said so for a caller that
 * decodes more (monitor events prints the qdisc).
 */
#ifndef QDISCCTL_MONITOR_H
#define QDISCCTL_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

struct mnl_socket;
struct nlmsghdr;

enum rtnl_event {
	RTNL_EV_LINK,	/* a device appeared or changed (up, down, renamed) */
	RTNL_EV_UNLINK, /* a device went */
	RTNL_EV_QDISC,	/* a qdisc was added, replaced or deleted */
};

/*
 * A non-blocking socket in the caller's network namespace, subscribed to
 * RTMGRP_LINK and RTMGRP_TC: the socket, or NULL with errno set.
 */
struct mnl_socket *rtnl_monitor_open(void);

/*
 * Read what is queued and call cb for each event. 0 when all is read,
 * -ENOBUFS when the kernel dropped events (the caller must look at
 * everything again), another -errno on failure.
 */
typedef void (*rtnl_event_fn)(enum rtnl_event ev, int ifindex, const struct nlmsghdr *nlh,
			      void *data);
int rtnl_monitor_read(struct mnl_socket *nl, rtnl_event_fn cb, void *data);

#endif
