/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only fault injection: with QDISCCTL_TEST_KILL_AT=STEP in the
 * environment, qdiscctl sends itself SIGKILL when it reaches STEP, so the
 * VM tests can prove that a run killed anywhere leaves nothing the next run
 * does not clean up. `qdiscctl __kill-steps` lists the steps; a new step
 * is one enum entry, its name and one call. Only the test build (make
 * testbin, -DQD_TEST_HOOKS) has it: in the shipped binary a step is
 * nothing at all.
 */
#ifndef QDISCCTL_TESTKILL_H
#define QDISCCTL_TESTKILL_H

enum qd_kill_step {
	QD_KILL_LOCK,	     /* the lock on QD_PIN_ROOT is held */
	QD_KILL_REGISTERING, /* the struct_ops link is attached, nothing pinned */
	QD_KILL_PINNING,     /* the maps are pinned, the link is not */
	QD_KILL_PINNED,	     /* the link is pinned, the version record is not */
	QD_KILL_REGISTERED,  /* a complete registration, no instance yet */
	QD_KILL_PENDING,     /* the instance's options are in "pending" */
	QD_KILL_EGRESS,	     /* the egress program is attached and pinned */
	QD_KILL_CREATED,     /* the kernel created the qdisc */
	QD_KILL_DELETED,     /* the kernel deleted the qdisc, no sweep yet */
	QD_KILL_UNPINNING,   /* a registration's maps are unpinned, its link is not */
	QD_KILL_DEFAULT,     /* default: the previous default_qdisc is saved, not replaced */
	QD_KILL_NSTEPS,
};

struct qd_kill_info {
	const char *name;
	const char *where; /* the commands that reach it, and what a kill there leaves */
};

#ifdef QD_TEST_HOOKS
extern const struct qd_kill_info qd_kill_steps[QD_KILL_NSTEPS];
#endif

#ifdef QD_TEST_HOOKS
/* SIGKILL this process if QDISCCTL_TEST_KILL_AT names step. */
void qd_test_kill(enum qd_kill_step step);
#else
static inline void qd_test_kill(enum qd_kill_step step)
{
	(void)step;
}
#endif

#endif
