// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "cmd/cmd.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/spec.h"
#include "lib/testkill.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

/*
 * The kernel runs .reset and .destroy before it answers, so the instance's
 * slot is normally free already; a short wait covers deferred teardown.
 */
static void wait_gone(const char *kind, const struct qd_place *place, uint32_t handle)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct qd_reg reg;
	uint32_t id;

	if (qd_reg_open_id(kind, &reg))
		return;
	for (int i = 0; i < 200 && !qd_reg_find(&reg, place, handle, &id); i++)
		nanosleep(&tick, NULL);
	qd_reg_close(&reg);
}

/*
 * The kind to send, as tc would for what is there: the kernel refuses a
 * delete whose kind is not the qdisc's id. A word that is what tc shows
 * (a native kind, qdiscctl_fifo, qdiscctl_fifo.1) goes as it is; one of
 * qdiscctl's kind names becomes the id of whichever registration of that
 * kind holds the qdisc, or, when none does, the kind's own id, which the
 * kernel then refuses as it refuses tc.
 */
static const char *kind_to_send(const char *word, const struct qdisc_info *cur, bool have_cur)
{
	const struct qd_kind *named = word ? qd_kind_find(word) : NULL;

	if (!named || strcmp(word, named->name) || (have_cur && !strcmp(cur->kind, word)))
		return word;
	if (have_cur && qd_reg_kind(cur->kind) == named)
		return cur->kind;
	return named->id;
}

static int run_del(int argc, char **argv)
{
	char buf[RTNL_MSG_SIZE];
	const struct qd_kind *k = NULL;
	struct qd_place place = {};
	struct qdisc_info cur;
	struct qdisc_spec s;
	struct qdisc_req req;
	struct rtnl rt;
	int err, lock = -1, ret = QD_EXIT_OK;
	bool have_cur;

	if (qdisc_spec_parse(argc - 1, argv + 1, &s))
		return QD_EXIT_USAGE;
	if (s.optc) {
		qd_err("del: unexpected \"%s\"", qd_tok(s.optv[0]));
		return QD_EXIT_USAGE;
	}
	if (!s.have_parent) {
		qd_err("del: \"root\" or \"parent ID\" is required");
		return QD_EXIT_USAGE;
	}
	if (qdisc_spec_resolve(&s))
		return s.dev ? QD_EXIT_FAIL : QD_EXIT_USAGE;
	ret = qd_cmd_root_rtnl("del", &rt);
	if (ret)
		return ret;
	/* Which kind goes tells whether a registration may go with it. */
	have_cur = !qdisc_lookup(&rt, s.ifindex, s.parent, &cur);
	if (have_cur)
		k = qd_reg_kind(cur.kind);
	/* Deleting one of ours: no add or gc may run between the delete and the sweep. */
	if (k && (lock = qd_lock()) < 0) {
		rtnl_close(&rt);
		return QD_EXIT_FAIL;
	}
	req = (struct qdisc_req){
		.type = RTM_DELQDISC,
		.ifindex = s.ifindex,
		.parent = s.parent,
		.handle = s.handle,
		.kind = kind_to_send(s.kind, &cur, have_cur),
	};
	err = rtnl_talk(&rt, qdisc_msg_build(buf, &req));
	if (err) {
		qd_err_kernel(err, rt.errmsg);
		ret = QD_EXIT_KERNEL;
	} else if (k) {
		qd_test_kill(QD_KILL_DELETED);
		place.ifindex = s.ifindex;
		place.parent = s.parent;
		rtnl_netns_cookie(&rt, &place.netns);
		wait_gone(cur.kind, &place, cur.handle);
	}
	rtnl_close(&rt);
	/*
	 * Any qdiscctl kind may have lost its last instance here (an mq root
	 * takes its children along), so look at all of them.
	 */
	if (lock >= 0) {
		qd_reg_sweep(NULL, NULL);
		qd_unlock(lock);
	} else if (!err) {
		qd_reg_tidy();
	}
	return ret;
}

static const struct qd_cmd del_cmd = {
	.name = "del",
	.alias = "delete",
	.args = "dev DEV (root | parent ID) [handle H] [KIND]",
	.summary = "delete a qdisc",
	.help = "KIND, as with tc, must be what is there: a native kind, qdiscctl's kind\n"
		"name (fifo) or the id tc shows (qdiscctl_fifo).\n"
		"When the last instance of one of qdiscctl's kinds goes, its registration\n"
		"goes too: nothing of qdiscctl is left in bpffs or in the kernel.",
	.order = 30,
	.run = run_del,
};
QD_CMD_REGISTER(del_cmd);
