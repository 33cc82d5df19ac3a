// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netlink/link.h"
#include "netlink/rtnl.h"

static struct nlmsghdr *link_req(void *buf, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	/* Without statistics the answer is a fraction of the size. */
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nlh;
}

int link_msg_num_tx_queues(const struct nlmsghdr *nlh, int ifindex, uint32_t *n)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    ifi->ifi_index != ifindex)
		return -ENOENT;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi))
		if (mnl_attr_get_type(attr) == IFLA_NUM_TX_QUEUES &&
		    mnl_attr_get_payload_len(attr) >= sizeof(uint32_t)) {
			*n = mnl_attr_get_u32(attr);
			return 0;
		}
	return -ENOENT;
}

struct txq_ctx {
	int ifindex;
	uint32_t n;
};

static int txq_one(const struct nlmsghdr *nlh, void *data)
{
	struct txq_ctx *ctx = data;

	link_msg_num_tx_queues(nlh, ctx->ifindex, &ctx->n);
	return MNL_CB_OK;
}

int link_num_tx_queues(struct rtnl *r, int ifindex, uint32_t *n)
{
	char buf[RTNL_MSG_SIZE];
	struct txq_ctx ctx = { ifindex, 0 };
	int err = rtnl_get(r, link_req(buf, ifindex), txq_one, &ctx);

	if (err)
		return err;
	if (!ctx.n)
		return -ENODEV;
	*n = ctx.n;
	return 0;
}

static int txq_sum(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	uint64_t *sum = data;
	uint32_t n;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(*ifi) &&
	    !link_msg_num_tx_queues(nlh, ifi->ifi_index, &n))
		*sum += n;
	return MNL_CB_OK;
}

int link_tx_queues_total(struct rtnl *r, uint64_t *n)
{
	char buf[RTNL_MSG_SIZE];

	*n = 0;
	return rtnl_dump(r, link_req(buf, 0), txq_sum, n);
}

int link_index_name(int fd, int ifindex, char *name)
{
	struct ifreq ifr = { .ifr_ifindex = ifindex };

	if (ioctl(fd, SIOCGIFNAME, &ifr))
		return -errno;
	snprintf(name, IF_NAMESIZE, "%s", ifr.ifr_name);
	return 0;
}

int link_names_add(struct link_names *ln, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    ifi->ifi_index <= 0)
		return 0;
	if (ifi->ifi_index > ln->max) {
		int max = ifi->ifi_index * 2;
		char(*names)[IF_NAMESIZE] = realloc(ln->names, (max + 1) * sizeof(*names));

		if (!names)
			return -ENOMEM;
		memset(names + ln->max + 1, 0, (max - ln->max) * sizeof(*names));
		ln->names = names;
		ln->max = max;
	}
	mnl_attr_for_each(attr, nlh, sizeof(*ifi))
		if (mnl_attr_get_type(attr) == IFLA_IFNAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(ln->names[ifi->ifi_index], IF_NAMESIZE, "%s",
				 mnl_attr_get_str(attr));
	return 0;
}

static int names_one(const struct nlmsghdr *nlh, void *data)
{
	return link_names_add(data, nlh) ? MNL_CB_ERROR : MNL_CB_OK;
}

void link_names_init(struct link_names *ln)
{
	ln->names = NULL;
	ln->max = -1;
}

int link_names_load(struct rtnl *r, struct link_names *ln)
{
	char buf[RTNL_MSG_SIZE];

	link_names_init(ln);
	return rtnl_dump(r, link_req(buf, 0), names_one, ln);
}

const char *link_name(const struct link_names *ln, int ifindex)
{
	if (ifindex <= 0 || ifindex > ln->max || !ln->names[ifindex][0])
		return NULL;
	return ln->names[ifindex];
}

void link_names_free(struct link_names *ln)
{
	free(ln->names);
	ln->names = NULL;
	ln->max = -1;
}
