// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink encoding and decoding against bytes laid out by hand from the
 * uapi structures, and the rendering of a decoded qdisc as tc prints it.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "lib/common.h"
#include "lib/json_print.h"
#include "netlink/qdisc_print.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"
#include "capture.h"
#include "test.h"

/* Golden messages are laid out by hand, a field a line group. */
// clang-format off
/* Little-endian helpers for laying out golden messages. */
#define U16(v) (v) & 0xff, ((v) >> 8) & 0xff
#define U32(v) U16((v) & 0xffff), U16(((v) >> 16) & 0xffff)

static void test_build_new(void)
{
	static const unsigned char want[] = {
		U32(56), U16(RTM_NEWQDISC), U16(NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL), U32(0), U32(0),
		/* tcmsg: family, pads, ifindex 3, handle 1:, parent root, info */
		AF_UNSPEC, 0, U16(0), U32(3), U32(0x10000), U32(0xffffffff), U32(0),
		/* TCA_KIND "qdiscctl_fifo\0", padded to 4 */
		U16(18), U16(TCA_KIND), 'q', 'd', 'i', 's', 'c', 'c', 't', 'l', '_', 'f', 'i', 'f', 'o', 0, 0, 0,
	};
	char buf[RTNL_MSG_SIZE];
	struct qdisc_req req = {
		.type = RTM_NEWQDISC,
		.flags = NLM_F_CREATE | NLM_F_EXCL,
		.ifindex = 3,
		.parent = 0xffffffff,
		.handle = 0x10000,
		.kind = "qdiscctl_fifo",
	};
	struct nlmsghdr *nlh = qdisc_msg_build(buf, &req);

	CHECK_U64(nlh->nlmsg_len, sizeof(want));
	CHECK(!memcmp(nlh, want, sizeof(want)));
}

static void test_build_del_without_kind(void)
{
	static const unsigned char want[] = {
		U32(36), U16(RTM_DELQDISC), U16(NLM_F_REQUEST), U32(0), U32(0),
		AF_UNSPEC, 0, U16(0), U32(7), U32(0), U32(0x10001), U32(0),
	};
	char buf[RTNL_MSG_SIZE];
	struct qdisc_req req = { .type = RTM_DELQDISC, .ifindex = 7, .parent = 0x10001 };
	struct nlmsghdr *nlh = qdisc_msg_build(buf, &req);

	CHECK_U64(nlh->nlmsg_len, sizeof(want));
	CHECK(!memcmp(nlh, want, sizeof(want)));
}

/* What the kernel sends for a BPF qdisc: kind, stats2 (basic, pkt64, queue). */
static const unsigned char reply[] = {
	U32(136), U16(RTM_NEWQDISC), U16(NLM_F_MULTI), U32(42), U32(0),
	AF_UNSPEC, 0, U16(0), U32(3), U32(0x10000), U32(0xffffffff), U32(2),
	U16(18), U16(TCA_KIND), 'q', 'd', 'i', 's', 'c', 'c', 't', 'l', '_', 'f', 'i', 'f', 'o', 0, 0, 0,
	U16(5), U16(TCA_HW_OFFLOAD), 0, 0, 0, 0,
	/* TCA_STATS2: 4 + (4+16) + (4+8) + (4+20) = 60 */
	U16(60), U16(TCA_STATS2),
	U16(20), U16(TCA_STATS_BASIC), U32(758291619), U32(0), U32(503039), U32(0),
	U16(12), U16(TCA_STATS_PKT64), U32(0x00000001), U32(0x1), /* 2^32 + 1 packets */
	U16(24), U16(TCA_STATS_QUEUE), U32(4), U32(1400), U32(17), U32(3), U32(5),
	/* legacy TCA_STATS, ignored when stats2 is present: 4 + 20 */
	U16(24), U16(TCA_STATS), U32(1), U32(2), U32(3), U32(4), U32(5),
};

// clang-format on

static void test_parse(void)
{
	struct qdisc_info qi;

	CHECK_INT(qdisc_msg_parse((const struct nlmsghdr *)reply, &qi), 0);
	CHECK_STR(qi.kind, "qdiscctl_fifo");
	CHECK_INT(qi.ifindex, 3);
	CHECK_U64(qi.handle, 0x10000);
	CHECK_U64(qi.parent, 0xffffffff);
	CHECK_U64(qi.refcnt, 2);
	CHECK(!qi.offloaded);
	CHECK(qi.has_stats);
	CHECK_U64(qi.stats.bytes, 758291619);
	CHECK_U64(qi.stats.packets, (1ULL << 32) + 1);
	CHECK_U64(qi.stats.qlen, 4);
	CHECK_U64(qi.stats.backlog, 1400);
	CHECK_U64(qi.stats.drops, 17);
	CHECK_U64(qi.stats.requeues, 3);
	CHECK_U64(qi.stats.overlimits, 5);
	CHECK(qi.options == NULL);
}

static void test_parse_bad(void)
{
	unsigned char msg[sizeof(reply)];
	struct qdisc_info qi;

	/* Too short for a tcmsg. */
	memcpy(msg, reply, sizeof(reply));
	((struct nlmsghdr *)msg)->nlmsg_len = 16 + 8;
	CHECK_INT(qdisc_msg_parse((struct nlmsghdr *)msg, &qi), -EBADMSG);
	/* No kind. */
	memcpy(msg, reply, sizeof(reply));
	msg[36 + 2] = TCA_OPTIONS;
	CHECK_INT(qdisc_msg_parse((struct nlmsghdr *)msg, &qi), -EBADMSG);
	/* A kind without its NUL. */
	memcpy(msg, reply, sizeof(reply));
	msg[36] = 17;
	msg[36 + 4 + 13] = 'x';
	CHECK_INT(qdisc_msg_parse((struct nlmsghdr *)msg, &qi), -EBADMSG);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(int *)data)++;
	return MNL_CB_OK;
}

// clang-format off
static void test_reply_extack(void)
{
	/* A capped error with an extended-ack message, as NETLINK_CAP_ACK gives. */
	static const unsigned char err[] = {
		U32(16 + 20 + 36), U16(NLMSG_ERROR), U16(NLM_F_CAPPED | NLM_F_ACK_TLVS), U32(9), U32(0),
		U32(-EEXIST), U32(56), U16(RTM_NEWQDISC), U16(0x605), U32(9), U32(0),
		U16(33), U16(NLMSGERR_ATTR_MSG), 'E', 'x', 'c', 'l', 'u', 's', 'i', 'v', 'i', 't', 'y', ' ',
		'f', 'l', 'a', 'g', ' ', 'o', 'n', ',', ' ', 'c', 'a', 'n', 'n', 'o', 't', '\n', 0, 0, 0, 0,
	};
	static const unsigned char ack[] = {
		U32(36), U16(NLMSG_ERROR), U16(NLM_F_CAPPED), U32(9), U32(0),
		U32(0), U32(56), U16(RTM_NEWQDISC), U16(0x605), U32(9), U32(0),
	};
	char msg[RTNL_ERRMSG_LEN] = "";
	int n = 0;

	CHECK_INT(rtnl_parse_reply(err, sizeof(err), 9, NULL, NULL, msg, sizeof(msg)), -EEXIST);
	CHECK_STR(msg, "Exclusivity flag on, cannot");
	msg[0] = '\0';
	CHECK_INT(rtnl_parse_reply(ack, sizeof(ack), 9, NULL, NULL, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "");
	/* Messages of another sequence are not ours. */
	CHECK_INT(rtnl_parse_reply(err, sizeof(err), 10, NULL, NULL, msg, sizeof(msg)), 1);
	/* A dump part: data messages go to the callback, and more is to come. */
	CHECK_INT(rtnl_parse_reply(reply, sizeof(reply), 42, count_cb, &n, msg, sizeof(msg)), 1);
	CHECK_INT(n, 1);
	/*
	 * A message claiming 0xffffffff bytes ends the walk (fuzz_netlink
	 * found that libmnl's check let it loop forever).
	 */
	{
		unsigned char bad[sizeof(reply) + 16];

		memcpy(bad, reply, sizeof(reply));
		memset(bad + sizeof(reply), 0, 16);
		memset(bad + sizeof(reply), 0xff, 4);
		bad[sizeof(reply) + 8] = 42;
		n = 0;
		CHECK_INT(rtnl_parse_reply(bad, sizeof(bad), 42, count_cb, &n, msg, sizeof(msg)), 1);
		CHECK_INT(n, 1);
	}
	/*
	 * A message whose unpadded end is the buffer's: its attributes would
	 * be read up to the padded end, past the buffer (fuzz_netlink).
	 */
	{
		unsigned char cut[sizeof(reply) - 3];

		memcpy(cut, reply, sizeof(cut));
		((struct nlmsghdr *)cut)->nlmsg_len = sizeof(cut);
		n = 0;
		CHECK_INT(rtnl_parse_reply(cut, sizeof(cut), 42, count_cb, &n, msg, sizeof(msg)), 1);
		CHECK_INT(n, 0);
	}
}

// clang-format on

static char *render(const struct qdisc_info *qi, bool json, bool stats, const char *dev)
{
	cap_start(json);
	open_json_array(PRINT_JSON, NULL);
	qdisc_print(qi, dev, stats, NULL, NULL, NULL);
	close_json_array(PRINT_JSON, NULL);
	return cap_end();
}

static void test_print(void)
{
	struct qdisc_info qi;

	qdisc_msg_parse((const struct nlmsghdr *)reply, &qi);
	qi.stats.packets = 503039;
	/* What `tc -s -j qdisc show` prints for the same message. */
	CHECK_STR(render(&qi, true, true, NULL), "[{\"kind\":\"qdiscctl_fifo\",\"handle\":\"1:\","
						 "\"root\":true,\"refcnt\":2,\"options\":{},"
						 "\"bytes\":758291619,\"packets\":503039,\"drops\":"
						 "17,\"overlimits\":5,\"requeues\":3,"
						 "\"backlog\":1400,\"qlen\":4}]\n");
	CHECK_STR(render(&qi, true, false, "va"), "[{\"kind\":\"qdiscctl_fifo\",\"handle\":\"1:\","
						  "\"dev\":\"va\",\"root\":true,\"refcnt\":2,"
						  "\"options\":{}}]\n");
	CHECK_STR(render(&qi, false, true, "va"),
		  "qdisc qdiscctl_fifo 1: dev va root refcnt 2 \n"
		  " Sent 758291619 bytes 503039 pkt (dropped 17, overlimits 5 requeues 3) \n"
		  " backlog 1400b 4p requeues 3\n");
	qi.parent = 0x10002;
	qi.refcnt = 1;
	qi.handle = 0;
	CHECK_STR(render(&qi, false, false, NULL), "qdisc qdiscctl_fifo 0: parent 1:2 \n");
	CHECK_STR(render(&qi, true, false, NULL), "[{\"kind\":\"qdiscctl_fifo\",\"handle\":\"0:\","
						  "\"parent\":\"1:2\",\"options\":{}}]\n");
}

/* RTM_NEWLINK for ifindex idx named name (3 chars and NUL) with txq tx queues. */
#define NEWLINK(idx, a, b, c, txq)                                               \
	U32(48), U16(RTM_NEWLINK), U16(NLM_F_MULTI), U32(0),                     \
		U32(0), /* ifinfomsg: family, pad, type, index, flags, change */ \
		AF_UNSPEC, 0, U16(1), U32(idx), U32(0),                          \
		U32(0), /* IFLA_IFNAME, then IFLA_NUM_TX_QUEUES */               \
		U16(8), U16(IFLA_IFNAME), a, b, c, 0, U16(8), U16(IFLA_NUM_TX_QUEUES), U32(txq)

static void test_link(void)
{
	static const unsigned char lo[] = { NEWLINK(1, 'l', 'o', 0, 1) };
	static const unsigned char va[] = { NEWLINK(700, 'v', 'a', '0', 4) };
	const struct nlmsghdr *nlh = (const void *)va;
	struct link_names ln;
	uint32_t n = 0;

	CHECK_INT(link_msg_num_tx_queues(nlh, 700, &n), 0);
	CHECK_U64(n, 4);
	CHECK_INT(link_msg_num_tx_queues(nlh, 1, &n), -ENOENT);
	link_names_init(&ln);
	CHECK(!link_name(&ln, 1));
	CHECK_INT(link_names_add(&ln, (const void *)lo), 0);
	/* The table grows to a far higher index and keeps what it had. */
	CHECK_INT(link_names_add(&ln, nlh), 0);
	CHECK_STR(link_name(&ln, 1), "lo");
	CHECK_STR(link_name(&ln, 700), "va0");
	CHECK(!link_name(&ln, 2));
	CHECK(!link_name(&ln, 100000));
	CHECK(!link_name(&ln, -1));
	link_names_free(&ln);
	CHECK(!link_name(&ln, 1));
}

/*
 * Names by ioctl on an rtnetlink socket: the loopback device is ifindex 1
 * in every network namespace.
 */
static void test_link_index_name(void)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	char name[IF_NAMESIZE];

	CHECK(nl);
	if (!nl)
		return;
	CHECK_INT(link_index_name(mnl_socket_get_fd(nl), 1, name), 0);
	CHECK_STR(name, "lo");
	CHECK_INT(link_index_name(mnl_socket_get_fd(nl), 0x7fffffff, name), -ENODEV);
	mnl_socket_close(nl);
}

int main(void)
{
	test_build_new();
	test_build_del_without_kind();
	test_parse();
	test_parse_bad();
	test_link_index_name();
	test_reply_extack();
	test_print();
	test_link();
	return test_summary("test_netlink");
}
