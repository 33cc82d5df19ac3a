// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lib/testkill.h"

/* Only the test build (make testbin) carries the hook. */
#ifdef QD_TEST_HOOKS

const struct qd_kill_info qd_kill_steps[QD_KILL_NSTEPS] = {
	[QD_KILL_LOCK] = { "lock", "add, del, gc, default: nothing but the lock, which the kernel "
				   "releases" },
	[QD_KILL_REGISTERING] = { "registering",
				  "add: a struct_ops link held only by the process: the kernel "
				  "drops it" },
	[QD_KILL_PINNING] = { "pinning", "add: a registration directory with maps and no link" },
	[QD_KILL_PINNED] = { "pinned", "add: a registered kind without its version record" },
	[QD_KILL_REGISTERED] = { "registered", "add: a registration without instances" },
	[QD_KILL_PENDING] = { "pending", "add: options in \"pending\" for a qdisc never made" },
	[QD_KILL_EGRESS] = { "egress", "add (edt, root): an egress link without a root instance" },
	[QD_KILL_CREATED] = { "created", "add: the qdisc exists; the add is complete" },
	[QD_KILL_DELETED] = { "deleted", "del: a registration whose last instance is gone" },
	[QD_KILL_UNPINNING] = { "unpinning", "del, gc: a registration's link without its maps" },
	[QD_KILL_DEFAULT] = { "default", "default: the old default_qdisc saved, a registration "
					 "that is not the default yet" },
};

void qd_test_kill(enum qd_kill_step step)
{
	static const char *at;
	static int read;

	if (!read++)
		at = getenv("QDISCCTL_TEST_KILL_AT");
	if (at && !strcmp(at, qd_kill_steps[step].name))
		raise(SIGKILL);
}
#endif
