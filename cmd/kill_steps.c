// SPDX-License-Identifier: GPL-2.0
/* __kill-steps: the steps QDISCCTL_TEST_KILL_AT accepts, for the VM tests. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "lib/common.h"
#include "lib/testkill.h"

/* Only the test build (make testbin) has the command, as the hook. */
#ifdef QD_TEST_HOOKS

static int run_kill_steps(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (int i = 0; i < QD_KILL_NSTEPS; i++)
		printf("%s\t%s\n", qd_kill_steps[i].name, qd_kill_steps[i].where);
	return QD_EXIT_OK;
}

static const struct qd_cmd kill_steps_cmd = {
	.name = "__kill-steps",
	.summary = "the steps QDISCCTL_TEST_KILL_AT=STEP kills qdiscctl at (tests only)",
	.order = 1000,
	.hidden = true,
	.run = run_kill_steps,
};
QD_CMD_REGISTER(kill_steps_cmd);
#endif
