/* SPDX-License-Identifier: GPL-2.0 */
/* RTM_GETLINK: what qdiscctl needs to know about devices. */
#ifndef QDISCCTL_NL_LINK_H
#define QDISCCTL_NL_LINK_H

#include <net/if.h>
#include <stdint.h>

struct rtnl;

/* The device's number of tx queues (IFLA_NUM_TX_QUEUES): 0 or -errno. */
int link_num_tx_queues(struct rtnl *r, int ifindex, uint32_t *n);

/* Every device's name by ifindex, from one dump. */
struct link_names {
	int max;			/* highest ifindex seen */
	char (*names)[IF_NAMESIZE]; /* indexed by ifindex; "" where none */
};

/* 0 or -errno; link_names_free after either. */
int link_names_load(struct rtnl *r, struct link_names *ln);
/* The name of ifindex, or NULL when the dump did not list it. */
const char *link_name(const struct link_names *ln, int ifindex);
void link_names_free(struct link_names *ln);

#endif
