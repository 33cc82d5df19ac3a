// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/netlink.h>

#include "netlink/rtnl.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int rtnl_open(struct rtnl *r)
{
	int one = 1;

	memset(r, 0, sizeof(*r));
	r->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!r->nl)
		return -errno;
	/* Best effort: old kernels lack these and still answer. */
	mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(r->nl);
		r->nl = NULL;
		return err;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = time(NULL);
	return 0;
}

void rtnl_close(struct rtnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	r->nl = NULL;
}

static void extack_msg(const struct nlmsghdr *nlh, char *errmsg, size_t errlen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);
	struct nlattr *attr;
	void *tlvs;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* Unless capped, the request we sent is echoed before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (mnl_nlmsg_get_payload_len(nlh) < off)
		return;
	tlvs = (char *)e + off;
	mnl_attr_for_each_payload(tlvs, mnl_nlmsg_get_payload_len(nlh) - off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0) {
			snprintf(errmsg, errlen, "%s", mnl_attr_get_str(attr));
			/* The kernel's text sometimes ends in a newline. */
			errmsg[strcspn(errmsg, "\n")] = '\0';
		}
	}
}

/*
 * mnl_nlmsg_ok() compares the length as an int, so a nlmsg_len of
 * 0xffffffff passes and, aligned to 0, makes mnl_nlmsg_next() step in
 * place forever (found by tests/fuzz/fuzz_netlink). Attribute walks run
 * to the aligned end of a message, so that must lie in the buffer too
 * (the kernel pads every message; fuzz_netlink found one that was not).
 */
static bool nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)len &&
	       NLMSG_ALIGN(nlh->nlmsg_len) <= (unsigned int)len;
}

int rtnl_parse_reply(const void *buf, size_t len, uint32_t seq, mnl_cb_t cb, void *data,
		     char *errmsg, size_t errlen)
{
	const struct nlmsghdr *nlh = buf;
	int n = len;

	for (; nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
		if (nlh->nlmsg_seq != seq)
			continue;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
				return -EBADMSG;
			if (e->error)
				extack_msg(nlh, errmsg, errlen);
			return e->error;
		}
		if (nlh->nlmsg_type == NLMSG_DONE)
			return 0;
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		if (cb && cb(nlh, data) < MNL_CB_OK)
			return -EINVAL;
	}
	return 1;
}

static int rtnl_exchange(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_DUMP_SIZE];
	ssize_t n;
	int ret;

	r->errmsg[0] = '\0';
	nlh->nlmsg_seq = ++r->seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(r->nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = rtnl_parse_reply(buf, n, nlh->nlmsg_seq, cb, data, r->errmsg,
				       sizeof(r->errmsg));
	} while (ret == 1);
	return ret;
}

int rtnl_talk(struct rtnl *r, struct nlmsghdr *nlh)
{
	nlh->nlmsg_flags |= NLM_F_ACK;
	return rtnl_exchange(r, nlh, NULL, NULL);
}

int rtnl_get(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	nlh->nlmsg_flags |= NLM_F_ACK;
	return rtnl_exchange(r, nlh, cb, data);
}

int rtnl_dump(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	nlh->nlmsg_flags |= NLM_F_DUMP;
	return rtnl_exchange(r, nlh, cb, data);
}

int rtnl_netns_cookie(struct rtnl *r, __u64 *cookie)
{
	socklen_t len = sizeof(*cookie);

	if (getsockopt(mnl_socket_get_fd(r->nl), SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) < 0)
		return -errno;
	return 0;
}
