// SPDX-License-Identifier: GPL-2.0
/*
 * Apply files: the input is a whole file, read by qd_config_read through a
 * memfd with the real descriptors; every qdisc statement it accepts has
 * its options written as words, which must read back to the same options,
 * and is planned against an instance of its kind with the defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "lib/batch.h"
#include "tests/fuzz/fuzz.h"

static const struct qd_kernel kernel = { .major = 7, .minor = 3, .x86_64 = true };

static void check_stmt(const struct qd_stmt *st)
{
	_Alignas(uint64_t) char back[QD_CFG_MAX], cur_cfg[QD_CFG_MAX];
	struct qd_current cur = { .present = true, .qi.handle = 0x10000 };
	char words[8192], *argv[512];
	struct qd_plan p;
	int argc;

	if (!st->kind || st->mq)
		return;
	/* A cgroup that went after the read cannot be named: nothing to check. */
	if (qd_kind_words(st->kind, st->cfg, words, sizeof(words)))
		return;
	argc = batch_split(words, argv, 512);
	qd_kind_defaults(st->kind, back);
	if (argc < 0 || qd_kind_parse_words(st->kind, argc, argv, back) ||
	    memcmp(back, st->cfg, st->kind->cfg_size))
		abort();
	snprintf(cur.qi.kind, sizeof(cur.qi.kind), "%s", st->kind->id);
	cur.ours = st->kind;
	cur.cfg = cur_cfg;
	qd_kind_defaults(st->kind, cur_cfg);
	if (qd_plan_qdisc(st, &cur, &p) == -ENOSPC)
		return;
	/* change's words take the defaults to what the statement says. */
	if (p.action == QD_ACT_CHANGE) {
		argc = batch_split(p.words, argv, 512);
		if (argc < 0 || qd_kind_parse_words(st->kind, argc, argv, cur_cfg) ||
		    memcmp(cur_cfg, st->cfg, st->kind->cfg_size))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct qd_config c;
	char path[64];

	if (fd < 0)
		fd = memfd_create("config", 0);
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fuzz_quiet();
	if (!qd_config_read(path, &kernel, &c)) {
		for (int i = 0; i < c.n; i++)
			check_stmt(&c.stmts[i]);
		qd_config_free(&c);
	}
	out_end();
	return 0;
}
