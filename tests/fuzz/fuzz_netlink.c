// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink reply parser: the input is one receive buffer. Each data
 * message is decoded as a qdisc and printed, in text and in JSON, with
 * statistics, as `show -s` and `show -s -j` would.
 */
#include <linux/netlink.h>

#include "netlink/qdisc_print.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"
#include "tests/fuzz/fuzz.h"

static FILE *null;

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qdisc_info qi;

	(void)data;
	if (qdisc_msg_parse(nlh, &qi))
		return MNL_CB_OK;
	out_start(null, false, false);
	qdisc_print(&qi, "dev0", true, NULL, NULL, NULL);
	out_end();
	out_start(null, true, true);
	qdisc_print(&qi, NULL, true, NULL, NULL, NULL);
	out_end();
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char errmsg[RTNL_ERRMSG_LEN];
	uint32_t seq = 0;
	void *buf = malloc(size ? size : 1);

	if (!null)
		null = fopen("/dev/null", "w");
	/* The first message's sequence number, so that all of it is ours. */
	if (size >= sizeof(struct nlmsghdr))
		memcpy(&seq, data + offsetof(struct nlmsghdr, nlmsg_seq), sizeof(seq));
	memcpy(buf, data, size);
	rtnl_parse_reply(buf, size, seq, qdisc_cb, NULL, errmsg, sizeof(errmsg));
	free(buf);
	return 0;
}
