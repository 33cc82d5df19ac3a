// SPDX-License-Identifier: GPL-2.0
/*
 * prio's descriptor: bands and priomap parsed and refused as tc's prio
 * takes them, printed as tc prints pfifo_fast's, and the per-band counters
 * show -s prints from a filled insts value.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "bpf/prio.h"
#include "kinds/kind.h"
#include "lib/json_print.h"
#include "capture.h"
#include "test.h"

static const struct qd_kind *k;
static char err[512];

/* Parse line onto the defaults (or cur, for change); the error line in err. */
static int run(const struct prio_cfg *cur, struct prio_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[40];
	FILE *fe = tmpfile();
	int argc = 0, ret, se = dup(2);
	size_t n;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	fflush(stderr);
	dup2(fileno(fe), 2);
	if (cur) {
		ret = qd_kind_change(k, cur, argc, argv, c);
	} else {
		qd_kind_defaults(k, c);
		ret = qd_kind_parse(k, argc, argv, c);
	}
	fflush(stderr);
	dup2(se, 2);
	close(se);
	rewind(fe);
	n = fread(err, 1, sizeof(err) - 1, fe);
	err[n] = '\0';
	fclose(fe);
	free(copy);
	return ret;
}

static int parse(struct prio_cfg *c, const char *line)
{
	return run(NULL, c, line);
}

static char *print_opts(const struct prio_cfg *c, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print(k, c);
	close_json_object();
	return cap_end();
}

static void test_parse(void)
{
	static const __u8 pfifo_fast[PRIO_PRIOS] = {
		1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1
	};
	struct prio_cfg c, cur;

	CHECK_INT(parse(&c, ""), 0);
	CHECK_U64(c.bands, 3);
	CHECK_U64(c.limit, 0);
	CHECK(!memcmp(c.priomap, pfifo_fast, sizeof(pfifo_fast)));
	/* As tc prints pfifo_fast; limit left out while it follows txqueuelen. */
	CHECK_STR(print_opts(&c, false), "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 ");
	CHECK_STR(print_opts(&c, true),
		  "{\"bands\":3,\"priomap\":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1]}\n");

	/* tc's syntax, in any order; the last priomap wins. */
	CHECK_INT(parse(&c, "priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 bands 16 limit 50 "
			    "priomap 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0"),
		  0);
	CHECK_U64(c.bands, 16);
	CHECK_U64(c.limit, 50);
	CHECK_U64(c.priomap[0], 15);
	CHECK_U64(c.priomap[15], 0);
	CHECK_STR(print_opts(&c, false),
		  "bands 16 priomap 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0 limit 50p ");
	CHECK_INT(parse(&c, "bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1 limit txqueuelen"), 0);
	CHECK_U64(c.limit, 0);
	CHECK_INT(parse(&c, "limit 1024"), 0);
	CHECK_INT(parse(&c, "limit 0"), 0);
	CHECK_U64(c.limit, 0);

	/* bands: 2..16. */
	/* Decimal only, as tc's prio reads bands and priomap (get_integer(..., 10)). */
	CHECK_INT(parse(&c, "bands 04"), 0);
	CHECK_U64(c.bands, 4);
	CHECK_INT(parse(&c, "bands 0x4"), -EINVAL);
	CHECK_INT(parse(&c, "bands 1"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: bands \"1\" is out of range 2..16\n");
	CHECK_INT(parse(&c, "bands 17"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: bands \"17\" is out of range 2..16\n");
	CHECK_INT(parse(&c, "bands three"), -EINVAL);
	/* Past a default ring of 1024 a registration with more is made; 2^16 is the most. */
	CHECK_INT(parse(&c, "limit 1025"), 0);
	CHECK_INT(parse(&c, "limit 65536"), 0);
	CHECK_INT(parse(&c, "limit 65537"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: limit \"65537\" is out of range 1..65536 or txqueuelen\n");

	/* priomap: exactly 16 numbers, each a band. */
	CHECK_INT(parse(&c, "priomap 1 2 2"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap takes 16 numbers, got 3\n");
	CHECK_INT(parse(&c, "priomap"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap takes 16 numbers, got 0\n");
	CHECK_INT(parse(&c, "priomap 1 2 2 bands 3"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap takes 16 numbers, got 3 before \"bands\"\n");
	CHECK_INT(parse(&c, "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 2"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap takes 16 numbers; \"2\" is one more\n");
	CHECK_INT(parse(&c, "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 x"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap takes 16 numbers, got 15 before \"x\"\n");
	CHECK_INT(parse(&c, "bands 16 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 16"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap value \"16\" is out of range 0..15\n");
	CHECK_INT(parse(&c, "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 -1"), -EINVAL);
	/* Each entry below bands, whichever comes first on the line. */
	CHECK_INT(parse(&c, "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 3 bands 3"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap value \"3\" (priority 15) is not below bands 3\n");
	CHECK_INT(parse(&c, "bands 2"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap value \"2\" (priority 1) is not below bands 2\n");
	CHECK_INT(parse(&c, "bands 4 priomap 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3"), 0);

	/* change: the current priomap is checked against new bands, and kept. */
	CHECK_INT(parse(&cur, "bands 4 priomap 3 2 1 0 3 3 3 3 3 3 3 3 3 3 3 3"), 0);
	CHECK_INT(run(&cur, &c, "bands 3"), -EINVAL);
	CHECK_STR(err, "qdiscctl: prio: priomap value \"3\" (priority 0) is not below bands 3\n");
	CHECK_INT(run(&cur, &c, "bands 8 limit 10"), 0);
	CHECK_U64(c.bands, 8);
	CHECK_U64(c.priomap[0], 3);
	CHECK_INT(run(&cur, &c, "priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 bands 2"), 0);
	CHECK_U64(c.bands, 2);
	/* Word by word, as change checks a line before it reads the current options. */
	qd_kind_defaults(k, &c);
	CHECK_INT(qd_kind_parse_words(k, 2, (char *[]){ "bands", "2" }, &c), 0);

	/* add and replace need each option's name at most with its values. */
	CHECK_INT(qd_kind_check_required(k, 17,
					 (char *[]){ "priomap", "1", "1", "1", "1", "1", "1", "1",
						     "1", "1", "1", "1", "1", "1", "1", "1", "1" }),
		  0);
	CHECK(qd_kind_knows(k, "priomap"));
}

static char *print_table(const struct prio_inst *in, const struct prio_cfg *c, bool json)
{
	cap_start(json);
	open_json_object(NULL);
	qd_kind_print_table(k, in, sizeof(*in), c);
	close_json_object();
	return cap_end();
}

static void test_table(void)
{
	struct prio_inst in = {};
	struct prio_cfg c, cur;

	CHECK_INT(parse(&c, ""), 0);
	in.band[0] = (struct prio_band){
		.head = 5, .tail = 7, .backlog = 200, .bytes = 500, .packets = 5
	};
	in.band[2] = (struct prio_band){ .bytes = 3000, .packets = 2, .drops = 4 };
	CHECK_STR(print_table(&in, &c, false),
		  "  band 0: Sent 500 bytes 5 pkt (dropped 0) backlog 200b 2p\n"
		  "  band 1: Sent 0 bytes 0 pkt (dropped 0) backlog 0b 0p\n"
		  "  band 2: Sent 3000 bytes 2 pkt (dropped 4) backlog 0b 0p\n");
	/*
	 * Packets that took the fast slot are counted under their priority
	 * and added to the band the priomap gives it: priorities 0 and 4 to
	 * band 1, 6 to band 0, 1 to band 2 (pfifo_fast's map).
	 */
	in.prio[0] = (struct prio_count){ .bytes = 100, .packets = 1 };
	in.prio[4] = (struct prio_count){ .bytes = 240, .packets = 3 };
	in.prio[6] = (struct prio_count){ .bytes = 70, .packets = 1 };
	in.prio[1] = (struct prio_count){ .bytes = 20, .packets = 1 };
	CHECK_STR(print_table(&in, &c, false),
		  "  band 0: Sent 570 bytes 6 pkt (dropped 0) backlog 200b 2p\n"
		  "  band 1: Sent 340 bytes 4 pkt (dropped 0) backlog 0b 0p\n"
		  "  band 2: Sent 3020 bytes 3 pkt (dropped 4) backlog 0b 0p\n");
	/*
	 * The packet in the fast slot (one of priority 4's) is queued in the
	 * band of its priority, not yet sent.
	 */
	in.fast_prio = 4;
	in.fast_len = 60;
	CHECK_STR(print_table(&in, &c, true),
		  "{\"bands\":[{\"band\":0,\"bytes\":570,\"packets\":6,\"drops\":0,\"backlog\":200,"
		  "\"qlen\":2},{\"band\":1,\"bytes\":280,\"packets\":3,\"drops\":0,\"backlog\":60,"
		  "\"qlen\":1},{\"band\":2,\"bytes\":3020,\"packets\":3,\"drops\":4,\"backlog\":0,"
		  "\"qlen\":0}]}\n");
	/*
	 * After a change of the priomap the past fast packets follow the new
	 * map (here priority 4 to band 2, 6 to band 3, the fast packet with
	 * 4), the ring's stay in their bands, and the bands still add up.
	 */
	cur = c;
	CHECK_INT(run(&cur, &c, "bands 4 priomap 1 2 2 2 2 2 3 0 1 1 1 1 1 1 1 1"), 0);
	CHECK_STR(print_table(&in, &c, false),
		  "  band 0: Sent 500 bytes 5 pkt (dropped 0) backlog 200b 2p\n"
		  "  band 1: Sent 100 bytes 1 pkt (dropped 0) backlog 0b 0p\n"
		  "  band 2: Sent 3200 bytes 5 pkt (dropped 4) backlog 60b 1p\n"
		  "  band 3: Sent 70 bytes 1 pkt (dropped 0) backlog 0b 0p\n");
	CHECK_INT(parse(&c, ""), 0);
	/* A band a change removed is listed while it holds or has counted packets. */
	in.band[5] = (struct prio_band){ .head = 1, .tail = 2, .backlog = 100 };
	cap_start(true);
	open_json_object(NULL);
	qd_kind_print_table(k, &in, sizeof(in), &c);
	close_json_object();
	CHECK(strstr(cap_end(), "{\"band\":5,\"bytes\":0,\"packets\":0,\"drops\":0,\"backlog\":100,"
				"\"qlen\":1}]}"));
	/* An insts value too short for the layout shows no bands. */
	cap_start(false);
	qd_kind_print_table(k, &in, sizeof(in) - 1, &c);
	CHECK_STR(cap_end(), "");
}

/* The bands as metrics and monitor take them: one record a band, keyed by it. */
static void test_samples(void)
{
	struct qd_sample out[PRIO_BANDS_MAX * 8];
	struct prio_inst in = {};
	struct prio_cfg c;
	size_t n;

	CHECK_INT(parse(&c, ""), 0);
	in.band[0] = (struct prio_band){
		.head = 5, .tail = 7, .backlog = 200, .bytes = 500, .packets = 5
	};
	in.band[2] = (struct prio_band){ .bytes = 3000, .packets = 2, .drops = 4 };
	in.prio[6] = (struct prio_count){ .bytes = 70, .packets = 1 };
	CHECK(qd_kind_samples_max(k) <= sizeof(out) / sizeof(out[0]));
	n = qd_kind_samples(k, &in, sizeof(in), &c, 0, out);
	/* Three bands of five values; "band" itself is their key, not a value. */
	CHECK_INT((int)n, 15);
	CHECK_INT(out[0].group, QD_SAMPLE_TABLE);
	CHECK_STR(out[0].stat->name, "bytes");
	CHECK_U64(out[0].key, 0);
	CHECK_U64(out[0].value, 570);
	CHECK(qd_stat_is_counter(out[0].stat));
	CHECK_STR(out[3].stat->name, "backlog");
	CHECK(!qd_stat_is_counter(out[3].stat));
	CHECK_STR(out[4].stat->name, "qlen");
	CHECK_U64(out[4].value, 2);
	CHECK(!qd_stat_is_counter(out[4].stat));
	CHECK_U64(out[10].key, 2);
	CHECK_STR(out[12].stat->name, "drops");
	CHECK_U64(out[12].value, 4);
	/* An insts value too short gives no records. */
	CHECK_INT((int)qd_kind_samples(k, &in, sizeof(in) - 1, &c, 0, out), 0);
}

int main(void)
{
	k = qd_kind_find("prio");
	CHECK(k != NULL);
	if (!k)
		return test_summary("test_prio");
	CHECK(qd_kind_find("qdiscctl_prio") == k);
	test_parse();
	test_table();
	test_samples();
	return test_summary("test_prio");
}
