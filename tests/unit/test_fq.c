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
		  "limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 bands 3 priomap 1 2 "
		  "2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536 "
		  "quantum 3028b "
		  "initial_quantum 15140b low_rate_threshold 550Kbit refill_delay 40ms "
		  "timer_slack 10us horizon 10s horizon_drop offload_horizon 0us ");
	/* tc -j: refill_delay and horizon in microseconds, timer_slack in ns. */
	CHECK_STR(print_opts(k, &c, true),
		  "{\"limit\":10000,\"flow_limit\":100,\"buckets\":1024,\"orphan_mask\":1023,"
		  "\"bands\":3,\"priomap \":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],\"weights "
		  "\":[589824,196608,65536],"
		  "\"quantum\":3028,\"initial_quantum\":15140,\"low_rate_threshold\":68750,"
		  "\"refill_delay\":40000,\"timer_slack\":10000,\"horizon\":10000000,"
		  "\"horizon_drop\":null,\"offload_horizon\":0}\n");

	CHECK_INT(parse(k, &c,
			"limit 500 flow_limit 10 quantum 1514 initial_quantum 0 maxrate 10mbit "
			"buckets 64 horizon 2s horizon_cap timer_slack 1us refill_delay 10ms "
			"low_rate_threshold 0 orphan_mask 63 nopacing"),
		  0);
	CHECK_STR(print_opts(k, &c, false),
		  "limit 500p flow_limit 10p buckets 64 orphan_mask 63 nopacing bands 3 priomap 1 "
		  "2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536 "
		  "quantum 1514b "
		  "initial_quantum auto maxrate 10Mbit refill_delay 10ms timer_slack 1us "
		  "horizon 2s horizon_cap offload_horizon 0us ");
	CHECK_STR(print_opts(k, &c, true),
		  "{\"limit\":500,\"flow_limit\":10,\"buckets\":64,\"orphan_mask\":63,"
		  "\"pacing\":false,"
		  "\"bands\":3,\"priomap \":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],\"weights "
		  "\":[589824,196608,65536],"
		  "\"quantum\":1514,\"initial_quantum\":0,\"maxrate\":1250000,"
		  "\"refill_delay\":10000,\"timer_slack\":1000,\"horizon\":2000000,"
		  "\"horizon_cap\":null,\"offload_horizon\":0}\n");

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
	CHECK_INT(parse(k, &c, "offload_horizon 0"), 0);
	CHECK_INT(parse(k, &c, "offload_horizon 1us"), -EINVAL);

	/*
	 * ce_threshold as tc's get_time reads it (a bare number is us), shown
	 * between refill_delay and timer_slack as tc shows sch_fq's, in us in
	 * JSON; sch_fq's "none" (~0U us) is the default and not shown.
	 */
	CHECK_U64(c.ce_threshold, FQ_CE_OFF);
	CHECK_INT(parse(k, &c, "ce_threshold 1ms"), 0);
	CHECK_U64(c.ce_threshold, 1000000);
	CHECK_INT(parse(k, &c, "ce_threshold 250"), 0);
	CHECK_U64(c.ce_threshold, 250000);
	CHECK(k->egress_wanted(NULL, &c));
	CHECK_INT(parse(k, &c, "ce_threshold 4294967295"), 0);
	CHECK_U64(c.ce_threshold, FQ_CE_OFF);
	CHECK(!k->egress_wanted(NULL, &c));
	CHECK_INT(parse(k, &c, "ce_threshold 4294967296"), -EINVAL);
	CHECK_INT(parse(k, &c, "quantum 3028 initial_quantum 15140 ce_threshold 2500us"), 0);
	CHECK_STR(print_opts(k, &c, false),
		  "limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 bands 3 priomap 1 2 "
		  "2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536 "
		  "quantum 3028b "
		  "initial_quantum 15140b low_rate_threshold 550Kbit refill_delay 40ms "
		  "ce_threshold 2.5ms timer_slack 10us horizon 10s horizon_drop offload_horizon "
		  "0us ");
	CHECK_STR(print_opts(k, &c, true),
		  "{\"limit\":10000,\"flow_limit\":100,\"buckets\":1024,\"orphan_mask\":1023,"
		  "\"bands\":3,\"priomap \":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],\"weights "
		  "\":[589824,196608,65536],"
		  "\"quantum\":3028,\"initial_quantum\":15140,\"low_rate_threshold\":68750,"
		  "\"refill_delay\":40000,\"ce_threshold\":2500,\"timer_slack\":10000,"
		  "\"horizon\":10000000,\"horizon_drop\":null,\"offload_horizon\":0}\n");

	/*
	 * sch_fq's bands: only 3, a band below 3 for each of the 16
	 * priorities, weights of at least 16384, all in decimal (tc's
	 * get_integer and get_unsigned with base 10).
	 */
	CHECK_INT(parse(k, &c,
			"bands 3 priomap 0 0 0 0 0 0 0 0 1 1 1 1 2 2 2 2 weights 16384 "
			"2147483647 65536"),
		  0);
	CHECK_U64(c.bands, 3);
	CHECK_U64(c.priomap[0], 0);
	CHECK_U64(c.priomap[8], 1);
	CHECK_U64(c.priomap[15], 2);
	CHECK_U64(c.weights[0], 16384);
	CHECK_U64(c.weights[1], 2147483647);
	CHECK_U64(c.weights[2], 65536);
	CHECK_INT(parse(k, &c, "bands 2"), -EINVAL);
	CHECK_INT(parse(k, &c, "bands 4"), -EINVAL);
	CHECK_INT(parse(k, &c, "priomap 0 0 0 0 0 0 0 0 1 1 1 1 2 2 2 3"), -EINVAL);
	CHECK_INT(parse(k, &c, "priomap 0 0 0 0 0 0 0 0 1 1 1 1 2 2 2"), -EINVAL);
	CHECK_INT(parse(k, &c, "weights 16383 65536 65536"), -EINVAL);
	CHECK_INT(parse(k, &c, "weights 65536 65536 2147483648"), -EINVAL);
	CHECK_INT(parse(k, &c, "weights 65536 65536"), -EINVAL);
	CHECK_INT(parse(k, &c, "weights 0x10000 65536 65536"), -EINVAL);

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
		  "  flows 0 (inactive 0 throttled 0) band0_pkts 0 band1_pkts 0 band2_pkts 0\n"
		  "  gc 0 highprio 0 throttled 0 collisions 0\n");
	CHECK_STR(print_stats(k, &in, sizeof(in), true),
		  "{\"flows\":0,\"inactive\":0,\"throttled\":0,\"band0_pkts\":0,\"band1_pkts\":0,"
		  "\"band2_pkts\":0,\"gc\":0,\"highprio\":0,"
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
	in.stats.ce_mark = 6;
	in.stats.band_pkts[1] = 2;
	in.time_next_delayed_flow = NOW + 2500000;
	CHECK_STR(print_stats(k, &in, sizeof(in), false),
		  "  flows 2 (inactive 1 throttled 1) band0_pkts 0 band1_pkts 2 band2_pkts 0 "
		  "next_packet_delay 2.5ms\n"
		  "  gc 7 highprio 4 throttled 3 latency 10us ce_mark 6 flows_plimit 9 collisions "
		  "5\n");
	CHECK_STR(print_stats(k, &in, sizeof(in), true),
		  "{\"flows\":2,\"inactive\":1,\"throttled\":1,\"band0_pkts\":0,\"band1_pkts\":2,"
		  "\"band2_pkts\":0,\"next_packet_delay\":2500000,"
		  "\"gc\":7,\"highprio\":4,\"throttled\":3,\"latency\":10000,\"ce_mark\":6,"
		  "\"flows_plimit\":9,\"collisions\":5}\n");

	/* A deadline already passed is no delay, as tc leaves out a zero one. */
	in.time_next_delayed_flow = NOW - 1;
	in.stats.pkts_too_long = 1;
	in.stats.horizon_drops = 3;
	in.stats.horizon_caps = 4;
	in.stats.band_drops[2] = 8;
	CHECK_STR(
		print_stats(k, &in, sizeof(in), false),
		"  flows 2 (inactive 1 throttled 1) band0_pkts 0 band1_pkts 2 band2_pkts 0\n"
		"  gc 7 highprio 4 throttled 3 latency 10us ce_mark 6 flows_plimit 9 collisions 5\n"
		" pkts_too_long 1 horizon_drops 3  horizon_caps 4 band2_drops 8\n");
	/* tc's line of rare counters is there for a band's drops alone. */
	in.stats.pkts_too_long = 0;
	in.stats.horizon_drops = 0;
	in.stats.horizon_caps = 0;
	CHECK_STR(
		print_stats(k, &in, sizeof(in), false),
		"  flows 2 (inactive 1 throttled 1) band0_pkts 0 band1_pkts 2 band2_pkts 0\n"
		"  gc 7 highprio 4 throttled 3 latency 10us ce_mark 6 flows_plimit 9 collisions 5\n"
		" band2_drops 8\n");
	in.stats.pkts_too_long = 1;
	in.stats.horizon_drops = 3;
	in.stats.horizon_caps = 4;
	in.stats.allocation_errors = 2;
	CHECK_STR(
		print_stats(k, &in, sizeof(in), true),
		"{\"flows\":2,\"inactive\":1,\"throttled\":1,\"band0_pkts\":0,\"band1_pkts\":2,"
		"\"band2_pkts\":0,\"gc\":7,\"highprio\":4,"
		"\"throttled\":3,\"latency\":10000,\"ce_mark\":6,\"flows_plimit\":9,\"collisions\":"
		"5,"
		"\"pkts_too_long\":1,\"alloc_errors\":2,\"horizon_drops\":3,\"horizon_caps\":4,"
		"\"band2_drops\":8}\n");

	/* A shorter "insts" value (another build) shows what it has. */
	CHECK_STR(print_stats(k, &in, offsetof(struct fq_inst, stats.collisions), false),
		  "  gc 7 highprio 4 throttled 3 flows_plimit 9\n"
		  " pkts_too_long 1 alloc_errors 2 horizon_drops 3  horizon_caps 4\n");
}

/* Slot 0's reserved flow sits at 1 of the shared table. */
#define FQ_FLOW_OVERFLOW 1

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
	CHECK_U64(k->map_entries(f->map, (uint32_t[QD_CAPS_MAX]){ 8, 4096 }), 1 + 8 + 4096);
	CHECK_U64(f->owner_off, offsetof(struct fq_flow, owner));
	CHECK_STR(f->used_map, "pool");
	CHECK_U64(f->used_off, offsetof(struct fq_pool, fresh_flows));
	CHECK_U64(f->value_size, sizeof(struct fq_flow));

	memset(flows, 0, sizeof(flows));
	flows[FQ_FLOW_OVERFLOW] = (struct fq_flow){ .key = FQ_KEY_OVERFLOW, .state = FQ_IDLE };
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
		  "  overflow               idle          0        0       0      -        0       "
		  " 0      0\n"
		  "  sk 0xffff888004a1c000  old          12    18168   -1514  1.2ms     1234  "
		  "1868276      0\n"
		  "  hash 0x1fe             new           0        0    3028      -        2      "
		  "196      1\n"
		  "  sk 0xffff888004a1d000  throttled     3     4542       0    now       99   "
		  "149886      2\n");
	CHECK_STR(print_flows(f, e, 2, true, false),
		  "{\"flows\":[{\"flow\":\"overflow\",\"state\":\"idle\",\"qlen\":0,\"backlog\":0,"
		  "\"credit\":0,\"next\":null,\"packets\":0,\"bytes\":0,\"drops\":0},"
		  "{\"flow\":\"sk 0xffff888004a1c000\",\"state\":\"old\",\"qlen\":12,"
		  "\"backlog\":18168,\"credit\":-1514,\"next\":1200000,\"packets\":1234,"
		  "\"bytes\":1868276,\"drops\":0}]}\n");

	/* Sorted: numbers largest first, times soonest first with none last. */
	qd_flows_sort(e, n, qd_flows_col(f, "packets"));
	CHECK_INT(e[0].index, 3);
	CHECK_INT(e[1].index, 6);
	CHECK_INT(e[2].index, 4);
	CHECK_INT(e[3].index, FQ_FLOW_OVERFLOW);
	qd_flows_sort(e, n, qd_flows_col(f, "credit"));
	CHECK_INT(e[0].index, 4);
	CHECK_INT(e[1].index, FQ_FLOW_OVERFLOW);
	CHECK_INT(e[2].index, 6);
	CHECK_INT(e[3].index, 3);
	qd_flows_sort(e, n, qd_flows_col(f, "next"));
	CHECK_INT(e[0].index, 6);
	CHECK_INT(e[1].index, 3);
	CHECK_INT(e[2].index, FQ_FLOW_OVERFLOW);
	CHECK_INT(e[3].index, 4);
	qd_flows_sort(e, n, qd_flows_col(f, "state"));
	CHECK_INT(e[0].index, FQ_FLOW_OVERFLOW);
	CHECK_INT(e[1].index, 4);
	CHECK_INT(e[2].index, 3);
	CHECK_INT(e[3].index, 6);
	/* Equal values keep the table's order. */
	qd_flows_sort(e, n, qd_flows_col(f, "qlen"));
	CHECK_INT(e[0].index, 3);
	CHECK_INT(e[1].index, 6);
	CHECK_INT(e[2].index, FQ_FLOW_OVERFLOW);
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
/*
 * monitor ... flows: the busiest flows of an interval, by bytes a second;
 * an entry whose key changed is a new flow, one that sent nothing is out.
 */
static void test_flow_rates(const struct qd_kind *k)
{
	const struct qd_flows *f = k->flows;
	struct fq_flow before[4] = {}, after[4] = {};
	struct qd_flow_entry eb[4], ea[4];

	before[1] = (struct fq_flow){ .key = 0x1000, .state = FQ_OLD, .pkts = 10, .bytes = 1000 };
	before[2] = (struct fq_flow){ .key = 0x2000, .state = FQ_OLD, .pkts = 10, .bytes = 9000 };
	before[3] = (struct fq_flow){ .key = 0x3000, .state = FQ_OLD, .pkts = 5, .bytes = 500 };
	after[1] = (struct fq_flow){ .key = 0x1000, .state = FQ_NEW, .pkts = 30, .bytes = 5000 };
	after[2] = (struct fq_flow){ .key = 0x2000, .state = FQ_IDLE, .pkts = 10, .bytes = 9000 };
	/* Slot 3 went to another socket: all it counted is this interval's. */
	after[3] =
		(struct fq_flow){ .key = 0x4000, .state = FQ_THROTTLED, .pkts = 2, .bytes = 3000 };
	for (uint32_t i = 1; i < 4; i++) {
		eb[i - 1] = (struct qd_flow_entry){ i, &before[i] };
		ea[i - 1] = (struct qd_flow_entry){ i, &after[i] };
	}
	cap_start(false);
	qd_flows_print_rates(f, ea, 3, eb, 3, 2.0, NOW, 5, "\n");
	CHECK_STR(cap_end(),
		  "\n sk 0x0000000000001000: state new qlen 0 backlog 0 credit 0 next - "
		  "packets 10/s bytes 2000/s drops 0/s"
		  "\n sk 0x0000000000004000: state throttled qlen 0 backlog 0 credit 0 next "
		  "- packets 1/s bytes 1500/s drops 0/s");
	cap_start(true);
	open_json_object(NULL);
	qd_flows_print_rates(f, ea, 3, eb, 3, 2.0, NOW, 1, "");
	close_json_object();
	CHECK_STR(cap_end(),
		  "{\"busiest_flows\":[{\"flow\":\"sk 0x0000000000001000\",\"state\":"
		  "\"new\",\"qlen\":0,\"backlog\":0,\"credit\":0,\"next\":null,"
		  "\"packets_per_sec\":10,\"bytes_per_sec\":2000,\"drops_per_sec\":0}]}\n");
}

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
	/* flows, flow_pool, pkts, pkt_pool, buckets, bucket_pool, ce_flows. */
	CHECK_U64(nmaps, 7);
	CHECK_U64(k->map_entries("insts", cap), 0);
	bpf_object__close(obj);

	/* 320 instances: one reserved flow and one bucket block each. */
	cap[QD_CAP_INSTANCES] = 320;
	CHECK_U64(k->map_entries("flows", cap), 1 + 320 + FQ_DEF_FLOWS);
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
	test_flow_rates(k);
	test_caps(k);
	return test_summary("test_fq");
}
