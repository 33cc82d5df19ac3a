// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "netlink/monitor.h"
#include "netlink/rtnl.h"

struct mnl_socket *rtnl_monitor_open(void)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	/* Room for the bursts an mq of many queues makes when it is replaced. */
	int rcvbuf = 1 << 20;

	if (!nl)
		return NULL;
	mnl_socket_setsockopt(nl, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (mnl_socket_bind(nl, RTMGRP_LINK | RTMGRP_TC, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

struct monitor_cb {
	rtnl_event_fn cb;
	void *data;
};

static int one_event(const struct nlmsghdr *nlh, void *data)
{
	const struct monitor_cb *m = data;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(struct ifinfomsg)) {
			const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

			m->cb(nlh->nlmsg_type == RTM_NEWLINK ? RTNL_EV_LINK : RTNL_EV_UNLINK,
			      ifi->ifi_index, nlh, m->data);
		}
		break;
	case RTM_NEWQDISC:
	case RTM_DELQDISC:
		if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(struct tcmsg)) {
			const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);

			m->cb(RTNL_EV_QDISC, tcm->tcm_ifindex, nlh, m->data);
		}
		break;
	}
	return MNL_CB_OK;
}

int rtnl_monitor_read(struct mnl_socket *nl, rtnl_event_fn cb, void *data)
{
	struct monitor_cb m = { cb, data };
	char buf[RTNL_MSG_SIZE];

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof(buf));

		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		/* Events carry no sequence number or port to check. */
		if (mnl_cb_run(buf, n, 0, 0, one_event, &m) < 0 && errno != ENOENT)
			return -errno;
	}
}
