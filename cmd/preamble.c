// SPDX-License-Identifier: GPL-2.0
/* What every command that talks to the kernel does first. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/common.h"
#include "netlink/rtnl.h"

int qd_cmd_rtnl(struct rtnl *rt)
{
	if (rtnl_open(rt)) {
		qd_err("cannot open rtnetlink: %s", strerror(errno));
		return QD_EXIT_FAIL;
	}
	return QD_EXIT_OK;
}

int qd_cmd_root_rtnl(const char *cmd, struct rtnl *rt)
{
	if (geteuid() != 0) {
		qd_err("%s needs root (CAP_NET_ADMIN and CAP_BPF)", cmd);
		return QD_EXIT_FAIL;
	}
	return qd_cmd_rtnl(rt);
}
