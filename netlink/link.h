/* SPDX-License-Identifier: GPL-2.0 */
/* RTM_GETLINK: what qdiscctl needs to know about devices. */
#ifndef QDISCCTL_NL_LINK_H
#define QDISCCTL_NL_LINK_H

#include <net/if.h>
#include <stdint.h>

struct nlmsghdr;
struct rtnl;

/* The device's number of tx queues (IFLA_NUM_TX_QUEUES): 0 or -errno. */
int link_num_tx_queues(struct rtnl *r, int ifindex, uint32_t *n);
/* The tx queues of every device in this network namespace, from one dump. */
int link_tx_queues_total(struct rtnl *r, uint64_t *n);
/* The same from one RTM_NEWLINK message: 0, or -ENOENT when it does not say. */
int link_msg_num_tx_queues(const struct nlmsghdr *nlh, int ifindex, uint32_t *n);

/*
 * The name of ifindex (IF_NAMESIZE bytes) into name, in the network
 * namespace of socket fd (an rtnetlink one will do): 0 or -errno. One
 * ioctl, where a dump costs the kernel a full message for every device.
 */
int link_index_name(int fd, int ifindex, char *name);

/* Every device's name by ifindex, from one dump. */
struct link_names {
	int max;		    /* highest ifindex seen */
	char (*names)[IF_NAMESIZE]; /* indexed by ifindex; "" where none */
};

/* 0 or -errno; link_names_free after either. */
int link_names_load(struct rtnl *r, struct link_names *ln);
/* An empty table; link_names_add records the device of one RTM_NEWLINK message. */
void link_names_init(struct link_names *ln);
int link_names_add(struct link_names *ln, const struct nlmsghdr *nlh);
/* The name of ifindex, or NULL when the dump did not list it. */
const char *link_name(const struct link_names *ln, int ifindex);
void link_names_free(struct link_names *ln);

#endif
