// SPDX-License-Identifier: GPL-2.0
/*
 * fq's descriptor as show prints it: options and xstats the way tc prints
 * sch_fq's, and the flow table with its sorting, from filled structs; its
 * capacities against the maps of the embedded object.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

#include "bpf/abi.h"
#include "bpf/fq.h"
#include "kinds/flows.h"
#include "kinds/kind.h"
#include "lib/json_print.h"
#include "capture.h"
#include "test.h"

#define NOW 1000000000000ULL /* CLOCK_MONOTONIC "now", ns */

static int parse(const struct qd_kind *k, struct fq_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[32];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	qd_kind_defaults(k, c);
	ret = qd_kind_parse(k, argc, argv, c);
	free(copy);
	return ret;
}

static char *print_opts(const struct qd_kind *k, const struct fq_cfg *c, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print(k, c);
	close_json_object();
	return cap_end();
}

static void test_options(const struct qd_kind *k)
{
	struct fq_cfg c;

	CHECK_INT(parse(k, &c, ""), 0);
	CHECK_U64(c.limit, 10000);
	CHECK_U64(c.flow_limit, 100);
	CHECK_U64(c.quantum, 0);
	CHECK_U64(c.initial_quantum, 0);
	CHECK_U64(c.maxrate, ~0ULL);
	CHECK_U64(c.buckets, 1024);
	CHECK_U64(c.horizon, 10000000000ULL);
	CHECK_U64(c.horizon_drop, 1);
	CHECK_U64(c.timer_slack, 10000);
	CHECK_U64(c.refill_delay, 40000000);
	CHECK_U64(c.low_rate_threshold, 68750);
	CHECK_U64(c.orphan_mask, 1023);
	CHECK_U64(c.pacing, 1);

	/* As .init leaves them on a 1500-byte MTU device: what `tc qdisc show` prints for sch_fq.
	 */
	c.quantum = 3028;
	c.initial_quantum = 15140;
	CHECK_STR(print_opts(k, &c, false),
		  "limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 quantum 3028b "
		  "initial_quantum 15140b low_rate_threshold 550Kbit refill_delay 40ms "
		  "timer_slack 10us horizon 10s horizon_drop ");
	/* tc -j: refill_delay and horizon in microseconds, timer_slack in ns. */
	CHECK_STR(print_opts(k, &c, true),
		  "{\"limit\":10000,\"flow_limit\":100,\"buckets\":1024,\"orphan_mask\":1023,"
		  "\"quantum\":3028,\"initial_quantum\":15140,\"low_rate_threshold\":68750,"
		  "\"refill_delay\":40000,\"timer_slack\":10000,\"horizon\":10000000,"
		  "\"horizon_drop\":null}\n");

	CHECK_INT(parse(k, &c,
			"limit 500 flow_limit 10 quantum 1514 initial_quantum 0 maxrate 10mbit "
			"buckets 64 horizon 2s horizon_cap timer_slack 1us refill_delay 10ms "
			"low_rate_threshold 0 orphan_mask 63 nopacing"),
		  0);
	CHECK_STR(print_opts(k, &c, false),
		  "limit 500p flow_limit 10p buckets 64 orphan_mask 63 nopacing quantum 1514b "
		  "initial_quantum auto maxrate 10Mbit refill_delay 10ms timer_slack 1us "
		  "horizon 2s horizon_cap ");
	CHECK_STR(print_opts(k, &c, true),
		  "{\"limit\":500,\"flow_limit\":10,\"buckets\":64,\"orphan_mask\":63,"
		  "\"pacing\":false,\"quantum\":1514,\"initial_quantum\":0,\"maxrate\":1250000,"
		  "\"refill_delay\":10000,\"timer_slack\":1000,\"horizon\":2000000,"
		  "\"horizon_cap\":null}\n");

	/* The packet pool bounds what is queued, not the options (sch_fq's u32). */
	CHECK_INT(parse(k, &c, "limit 1000000"), 0);
	CHECK_INT(parse(k, &c, "flow_limit 1000000"), 0);
	CHECK_INT(parse(k, &c, "limit 4294967295"), 0);
	CHECK_INT(parse(k, &c, "limit 4294967296"), -EINVAL);
	CHECK_INT(parse(k, &c, "buckets 1000"), -EINVAL);
	CHECK_INT(parse(k, &c, "buckets 262144"), 0);
	CHECK_U64(c.buckets, 262144);
	CHECK_INT(parse(k, &c, "buckets 524288"), -EINVAL);
	CHECK_INT(parse(k, &c, "quantum 100"), -EINVAL);
	CHECK_INT(parse(k, &c, "quantum 2mb"), -EINVAL);
	CHECK_INT(parse(k, &c, "quantum auto maxrate unlimited"), 0);
	CHECK_INT(parse(k, &c, "pacing on"), -EINVAL);
	CHECK_INT(parse(k, &c, "ce_threshold 1ms"), -EINVAL);

	/* A bare number as tc's parser of each option reads it. */
	CHECK_INT(parse(k, &c, "orphan_mask 0xff initial_quantum 0x10000 limit 010"), 0);
	CHECK_U64(c.orphan_mask, 255);
	CHECK_U64(c.initial_quantum, 65536);
	CHECK_U64(c.limit, 8);
	CHECK_INT(parse(k, &c, "timer_slack 100 refill_delay 100 horizon 100"), 0);
	CHECK_U64(c.timer_slack, 100);
	CHECK_U64(c.refill_delay, 100000);
	CHECK_U64(c.horizon, 100000);
	CHECK_INT(parse(k, &c, "quantum 3kb"), 0);
	CHECK_U64(c.quantum, 3072);
	CHECK_INT(parse(k, &c, "limit 08"), -EINVAL);
	CHECK_INT(parse(k, &c, "limit 0x100000000"), -EINVAL);
}

static char *print_stats(const struct qd_kind *k, const struct fq_inst *in, size_t size, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print_stats(k, in, size, NOW);
	close_json_object();
	return cap_end();
}

static void test_stats(const struct qd_kind *k)
{
	struct fq_inst in = {};

	/* Nothing rare happened: two lines, as tc prints an idle sch_fq. */
	CHECK_STR(print_stats(k, &in, sizeof(in), false),
		  "  flows 0 (inactive 0 throttled 0)\n"
		  "  gc 0 highprio 0 throttled 0 collisions 0\n");
	CHECK_STR(print_stats(k, &in, sizeof(in), true),
		  "{\"flows\":0,\"inactive\":0,\"throttled\":0,\"gc\":0,\"highprio\":0,"
		  "\"throttled\":0,\"collisions\":0}\n");

	in.stats.flows = 2;
	in.stats.inactive_flows = 1;
	in.stats.throttled_flows = 1;
	in.stats.throttled = 3;
	in.stats.gc_flows = 7;
	in.stats.highprio_packets = 4;
	in.stats.unthrottle_latency_ns = 10000;
	in.stats.flows_plimit = 9;
	in.stats.collisions = 5;
	in.time_next_delayed_flow = NOW + 2500000;
	CHECK_STR(print_stats(k, &in, sizeof(in), false),
		  "  flows 2 (inactive 1 throttled 1) next_packet_delay 2.5ms\n"
		  "  gc 7 highprio 4 throttled 3 latency 10us flows_plimit 9 collisions 5\n");
	CHECK_STR(print_stats(k, &in, sizeof(in), true),
		  "{\"flows\":2,\"inactive\":1,\"throttled\":1,\"next_packet_delay\":2500000,"
		  "\"gc\":7,\"highprio\":4,\"throttled\":3,\"latency\":10000,"
		  "\"flows_plimit\":9,\"collisions\":5}\n");

	/* A deadline already passed is no delay, as tc leaves out a zero one. */
	in.time_next_delayed_flow = NOW - 1;
	in.stats.pkts_too_long = 1;
	in.stats.horizon_drops = 3;
	in.stats.horizon_caps = 4;
	CHECK_STR(print_stats(k, &in, sizeof(in), false),
		  "  flows 2 (inactive 1 throttled 1)\n"
		  "  gc 7 highprio 4 throttled 3 latency 10us flows_plimit 9 collisions 5\n"
		  " pkts_too_long 1 horizon_drops 3  horizon_caps 4\n");
	in.stats.allocation_errors = 2;
	CHECK_STR(
		print_stats(k, &in, sizeof(in), true),
		"{\"flows\":2,\"inactive\":1,\"throttled\":1,\"gc\":7,\"highprio\":4,"
		"\"throttled\":3,\"latency\":10000,\"flows_plimit\":9,\"collisions\":5,"
		"\"pkts_too_long\":1,\"alloc_errors\":2,\"horizon_drops\":3,\"horizon_caps\":4}\n");

	/* A shorter "insts" value (another build) shows what it has. */
	CHECK_STR(print_stats(k, &in, offsetof(struct fq_inst, stats.collisions), false),
		  "  gc 7 highprio 4 throttled 3 flows_plimit 9\n"
		  " pkts_too_long 1 alloc_errors 2 horizon_drops 3  horizon_caps 4\n");
}

/* Slot 0's reserved flows sit at 1 and 2 of the shared table. */
#define FQ_FLOW_PRIO 1

static struct fq_flow flows[8];

static size_t entries(const struct qd_flows *f, struct qd_flow_entry *e)
{
	size_t n = 0;

	for (uint32_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
		if (qd_flow_used(f, &flows[i]))
			e[n++] = (struct qd_flow_entry){ i, &flows[i] };
	return n;
}

static char *print_flows(const struct qd_flows *f, const struct qd_flow_entry *e, size_t n,
			 bool json, bool totals)
{
	cap_start(json);
	open_json_object(NULL);
	qd_flows_print(f, e, n, NOW, totals);
	close_json_object();
	return cap_end();
}

static void test_flows(const struct qd_kind *k)
{
	const struct qd_flows *f = k->flows;
	struct qd_flow_entry e[8];
	size_t n;

	CHECK(f != NULL);
	CHECK_STR(f->map, "flows");
	/* Every map is pinned; the flow table holds the capacity's flows. */
	CHECK_U64(k->map_entries(f->map, (uint32_t[QD_CAPS_MAX]){ 8, 4096 }), 1 + 2 * 8 + 4096);
	CHECK_U64(f->owner_off, offsetof(struct fq_flow, owner));
	CHECK_STR(f->used_map, "pool");
	CHECK_U64(f->used_off, offsetof(struct fq_pool, fresh_flows));
	CHECK_U64(f->value_size, sizeof(struct fq_flow));

	memset(flows, 0, sizeof(flows));
	flows[FQ_FLOW_PRIO] = (struct fq_flow){ .key = FQ_KEY_PRIO, .state = FQ_IDLE };
	flows[3] = (struct fq_flow){ .key = 0xffff888004a1c000ULL,
				     .state = FQ_OLD,
				     .qlen = 12,
				     .backlog = 18168,
				     .credit = -1514,
				     .time_next_packet = NOW + 1200000,
				     .pkts = 1234,
				     .bytes = 1868276,
				     .drops = 0 };
	flows[4] = (struct fq_flow){ .key = (0x1feULL << 1) | 1,
				     .state = FQ_NEW,
				     .credit = 3028,
				     .pkts = 2,
				     .bytes = 196,
				     .drops = 1 };
	flows[6] = (struct fq_flow){ .key = 0xffff888004a1d000ULL,
				     .state = FQ_THROTTLED,
				     .qlen = 3,
				     .backlog = 4542,
				     .time_next_packet = NOW - 5,
				     .pkts = 99,
				     .bytes = 149886,
				     .drops = 2 };
	n = entries(f, e);
	CHECK_U64(n, 4);

	CHECK_STR(print_flows(f, e, n, false, false),
		  "  flow                   state      qlen  backlog  credit   next  packets    "
		  "bytes  drops\n"
		  "  prio                   idle          0        0       0      -        0       "
		  " 0      0\n"
		  "  sk 0xffff888004a1c000  old          12    18168   -1514  1.2ms     1234  "
		  "1868276      0\n"
		  "  hash 0x1fe             new           0        0    3028      -        2      "
		  "196      1\n"
		  "  sk 0xffff888004a1d000  throttled     3     4542       0    now       99   "
		  "149886      2\n");
	CHECK_STR(print_flows(f, e, 2, true, false),
		  "{\"flows\":[{\"flow\":\"prio\",\"state\":\"idle\",\"qlen\":0,\"backlog\":0,"
		  "\"credit\":0,\"next\":null,\"packets\":0,\"bytes\":0,\"drops\":0},"
		  "{\"flow\":\"sk 0xffff888004a1c000\",\"state\":\"old\",\"qlen\":12,"
		  "\"backlog\":18168,\"credit\":-1514,\"next\":1200000,\"packets\":1234,"
		  "\"bytes\":1868276,\"drops\":0}]}\n");

	/* Sorted: numbers largest first, times soonest first with none last. */
	qd_flows_sort(e, n, qd_flows_col(f, "packets"));
	CHECK_INT(e[0].index, 3);
	CHECK_INT(e[1].index, 6);
	CHECK_INT(e[2].index, 4);
	CHECK_INT(e[3].index, FQ_FLOW_PRIO);
	qd_flows_sort(e, n, qd_flows_col(f, "credit"));
	CHECK_INT(e[0].index, 4);
	CHECK_INT(e[1].index, FQ_FLOW_PRIO);
	CHECK_INT(e[2].index, 6);
	CHECK_INT(e[3].index, 3);
	qd_flows_sort(e, n, qd_flows_col(f, "next"));
	CHECK_INT(e[0].index, 6);
	CHECK_INT(e[1].index, 3);
	CHECK_INT(e[2].index, FQ_FLOW_PRIO);
	CHECK_INT(e[3].index, 4);
	qd_flows_sort(e, n, qd_flows_col(f, "state"));
	CHECK_INT(e[0].index, FQ_FLOW_PRIO);
	CHECK_INT(e[1].index, 4);
	CHECK_INT(e[2].index, 3);
	CHECK_INT(e[3].index, 6);
	/* Equal values keep the table's order. */
	qd_flows_sort(e, n, qd_flows_col(f, "qlen"));
	CHECK_INT(e[0].index, 3);
	CHECK_INT(e[1].index, 6);
	CHECK_INT(e[2].index, FQ_FLOW_PRIO);
	CHECK_INT(e[3].index, 4);
	CHECK(qd_flows_col(f, "pkts") == NULL);

	/* -s: a total row. */
	CHECK_STR(print_flows(f, e, 2, false, true),
		  "  flow                   state      qlen  backlog  credit   next  packets    "
		  "bytes  drops\n"
		  "  sk 0xffff888004a1c000  old          12    18168   -1514  1.2ms     1234  "
		  "1868276      0\n"
		  "  sk 0xffff888004a1d000  throttled     3     4542       0    now       99   "
		  "149886      2\n"
		  "  total 2                             15    22710                    1333  "
		  "2018162      2\n");
	CHECK_STR(print_flows(f, e, 0, true, true),
		  "{\"flows\":[],\"total\":{\"flows\":0,\"qlen\":0,\"backlog\":0,\"packets\":0,"
		  "\"bytes\":0,\"drops\":0}}\n");
	CHECK_STR(print_flows(f, e, 0, false, false),
		  "  flow  state  qlen  backlog  credit  next  packets  bytes  drops\n");
}

/*
 * The object as compiled must have the map sizes map_entries gives for the
 * default capacities and 64 instances: an object loaded before qdiscctl
 * resizes it, or by anything else, is then a consistent registration.
 */
static void test_caps(const struct qd_kind *k)
{
	uint32_t cap[QD_CAPS_MAX] = { [QD_CAP_INSTANCES] = QD_DEFAULT_INSTANCES };
	const void *elf;
	struct bpf_object *obj;
	struct bpf_map *m;
	size_t size, i, nmaps = 0;

	CHECK(k->caps != NULL && k->map_entries != NULL);
	if (!k->caps || !k->map_entries)
		return;
	for (i = 0; k->caps[i].name; i++) {
		CHECK(i + 1 < QD_CAPS_MAX);
		CHECK(k->caps[i].min <= k->caps[i].def && k->caps[i].def <= k->caps[i].max);
		cap[i + 1] = k->caps[i].def;
	}
	CHECK_STR(k->caps[0].name, "flows");
	CHECK_STR(k->caps[1].name, "instance_flows");
	CHECK_STR(k->caps[2].name, "packets");
	CHECK_STR(k->caps[3].name, "bucket_pool");
	/* The brief's figures: 10,000 sockets fit one instance, 1,000,000 flows a host. */
	CHECK(k->caps[1].def >= 16384 && k->caps[1].max >= 65536);
	CHECK(k->caps[0].max >= 1000000);

	elf = k->elf_bytes(&size);
	obj = bpf_object__open_mem(elf, size, NULL);
	CHECK(obj != NULL);
	if (!obj)
		return;
	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);
		uint32_t want = k->map_entries(name, cap);

		if (!want)
			continue;
		nmaps++;
		if (bpf_map__max_entries(m) != want)
			fprintf(stderr, "map %s: compiled %u, map_entries %u\n", name,
				bpf_map__max_entries(m), want);
		CHECK_U64(bpf_map__max_entries(m), want);
	}
	/* flows, flow_pool, pkts, pkt_pool, buckets, bucket_pool, fast. */
	CHECK_U64(nmaps, 7);
	CHECK_U64(k->map_entries("insts", cap), 0);
	bpf_object__close(obj);

	/* 320 instances: two reserved flows and one bucket block each. */
	cap[QD_CAP_INSTANCES] = 320;
	CHECK_U64(k->map_entries("flows", cap), 1 + 640 + FQ_DEF_FLOWS);
	CHECK_U64(k->map_entries("buckets", cap), (320 * FQ_BLOCK + FQ_DEF_BUCKET_POOL) / FQ_HEADS);
	cap[4] = 0;
	CHECK_U64(k->map_entries("bucket_pool", cap), 1);
}

int main(void)
{
	const struct qd_kind *k = qd_kind_find("fq");

	CHECK(k != NULL);
	if (!k)
		return test_summary("test_fq");
	CHECK(qd_kind_find("qdiscctl_fq") == k);
	test_options(k);
	test_stats(k);
	test_flows(k);
	test_caps(k);
	return test_summary("test_fq");
}
