// SPDX-License-Identifier: GPL-2.0
/* Option parsing and printing driven by a kind's descriptor. */
#include <errno.h>
#include <stdlib.h>

#include "kinds/kind.h"
#include "lib/json_print.h"
#include "test.h"

struct t_cfg {
	uint32_t limit;
	uint32_t mode;
	uint64_t horizon;
	uint64_t rate;
	uint32_t quantum;
};

static const char *const t_modes[] = { "drop", "cap", NULL };

static const struct qd_opt t_opts[] = { { .name = "limit",
					  .type = QD_OPT_COUNT,
					  .off = offsetof(struct t_cfg, limit),
					  .width = 4,
					  .def = 1000,
					  .min = 1,
					  .max = 4096,
					  .unit = "p",
					  .help = "packets" },
					{ .name = "mode",
					  .type = QD_OPT_CHOICE,
					  .off = offsetof(struct t_cfg, mode),
					  .width = 4,
					  .def = 0,
					  .choices = t_modes,
					  .help = "what to do" },
					{ .name = "horizon",
					  .type = QD_OPT_TIME,
					  .off = offsetof(struct t_cfg, horizon),
					  .width = 8,
					  .def = 10000000000ULL,
					  .min = 1000,
					  .max = 3600000000000ULL,
					  .help = "time" },
					{ .name = "maxrate",
					  .type = QD_OPT_RATE,
					  .off = offsetof(struct t_cfg, rate),
					  .width = 8,
					  .def = ~0ULL,
					  .min = 0,
					  .max = ~0ULL,
					  .help = "rate" },
					{ .name = "quantum",
					  .type = QD_OPT_SIZE,
					  .off = offsetof(struct t_cfg, quantum),
					  .width = 4,
					  .def = 3028,
					  .min = 256,
					  .max = 1 << 20,
					  .help = "bytes" },
					{} };

static const struct qd_kind t_kind = {
	.name = "tkind",
	.id = "qdiscctl_tkind",
	.summary = "a kind for tests",
	.opts = t_opts,
	.cfg_size = sizeof(struct t_cfg),
};
QD_KIND_REGISTER(t_kind);

static int parse(struct t_cfg *c, const char *line)
{
	char *copy = strdup(line), *argv[16];
	int argc = 0, ret;

	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	qd_kind_defaults(&t_kind, c);
	ret = qd_kind_parse(&t_kind, argc, argv, c);
	free(copy);
	return ret;
}

static char *print_cfg(const struct t_cfg *c, bool json)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	f = open_memstream(&buf, &len);
	out_start(f, json, false);
	open_json_object(NULL);
	qd_kind_print(&t_kind, c);
	close_json_object();
	out_end();
	fclose(f);
	return buf;
}

int main(void)
{
	struct t_cfg c;

	CHECK(qd_kind_find("tkind") == &t_kind);
	CHECK(qd_kind_find("qdiscctl_tkind") == &t_kind);
	CHECK(qd_kind_find("fifo") == NULL);

	CHECK_INT(parse(&c, ""), 0);
	CHECK_U64(c.limit, 1000);
	CHECK_U64(c.mode, 0);
	CHECK_U64(c.horizon, 10000000000ULL);
	CHECK_U64(c.rate, ~0ULL);
	CHECK_U64(c.quantum, 3028);

	CHECK_INT(parse(&c, "limit 10 cap horizon 2ms maxrate 1gbit quantum 64kb"), 0);
	CHECK_U64(c.limit, 10);
	CHECK_U64(c.mode, 1);
	CHECK_U64(c.horizon, 2000000);
	CHECK_U64(c.rate, 125000000);
	CHECK_U64(c.quantum, 65536);
	CHECK_STR(print_cfg(&c, false), "limit 10p cap horizon 2ms maxrate 1Gbit quantum 64Kb ");
	CHECK_STR(print_cfg(&c, true), "{\"limit\":10,\"mode\":\"cap\",\"horizon\":2000000,"
				       "\"maxrate\":125000000,\"quantum\":65536}\n");
	/* The last word wins, as with tc. */
	CHECK_INT(parse(&c, "cap drop limit 5 limit 6"), 0);
	CHECK_U64(c.mode, 0);
	CHECK_U64(c.limit, 6);

	CHECK_INT(parse(&c, "limit 0"), -EINVAL);
	CHECK_INT(parse(&c, "limit 4097"), -EINVAL);
	CHECK_INT(parse(&c, "limit -1"), -EINVAL);
	CHECK_INT(parse(&c, "limit 10x"), -EINVAL);
	CHECK_INT(parse(&c, "limit"), -EINVAL);
	CHECK_INT(parse(&c, "bogus 1"), -EINVAL);
	CHECK_INT(parse(&c, "mode cap"), -EINVAL);
	CHECK_INT(parse(&c, "horizon 1ns"), -EINVAL);
	CHECK_INT(parse(&c, "quantum 2mb"), -EINVAL);
	CHECK_INT(parse(&c, "maxrate fast"), -EINVAL);
	return test_summary("test_kinds");
}
