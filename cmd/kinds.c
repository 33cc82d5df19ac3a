// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/registry.h"
#include "kinds/describe.h"
#include "lib/common.h"
#include "lib/json_print.h"

/*
 * With -d: each registration of k, any version, with its capacities, the
 * instances it holds and the map memory it takes (bpftool's bytes_memlock).
 */
static void describe_regs(const struct qd_kind *k)
{
	open_json_array(PRINT_JSON, "registrations");
	for (int v = 0; v < QD_REG_VERSIONS; v++) {
		char id[QD_ID_LEN], dir[QD_DIR_LEN];
		unsigned int maps;
		struct qd_insts l;
		struct qd_reg r;
		uint64_t bytes;

		if (qd_reg_names(k, v, dir, id) || qd_reg_open_id(id, &r))
			continue;
		if (qd_reg_list(&r, &l)) {
			qd_reg_close(&r);
			continue;
		}
		open_json_object(NULL);
		print_string(PRINT_ANY, "id", "         registration %s:", r.id);
		print_uint(PRINT_ANY, "used", " %llu", l.n);
		print_uint(PRINT_ANY, "instances", " of %llu instances", r.slots);
		if (!qd_reg_caps(&r)) {
			open_json_object("capacity");
			for (int i = 1; i < qd_kind_ncaps(k); i++) {
				print_uint(PRINT_JSON, qd_kind_cap(k, i)->name, NULL, r.cap[i]);
				print_text(", %s %llu", qd_kind_cap(k, i)->name,
					   (unsigned long long)r.cap[i]);
			}
			close_json_object();
		}
		if (!qd_reg_memory(&r, &bytes, &maps)) {
			print_uint(PRINT_JSON, "memory", NULL, bytes);
			print_uint(PRINT_JSON, "maps", NULL, maps);
			print_text(", map memory %.1f MiB in %u maps", bytes / 1048576.0, maps);
		}
		print_text("\n");
		close_json_object();
		qd_insts_free(&l);
		qd_reg_close(&r);
	}
	close_json_array(PRINT_JSON, NULL);
}

static int run_kinds(int argc, char **argv)
{
	if (argc > 1) {
		qd_err("kinds: unexpected \"%s\"", qd_tok(argv[1]));
		return QD_EXIT_USAGE;
	}
	open_json_array(PRINT_JSON, NULL);
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		open_json_object(NULL);
		qd_kind_describe(*k, false);
		if (qd_opts.details)
			describe_regs(*k);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	return QD_EXIT_OK;
}

static const struct qd_cmd kinds_cmd = {
	.name = "kinds",
	.args = "",
	.summary = "list the qdisc kinds qdiscctl carries, with their options and defaults; with "
		   "-d, each registration's capacity, instances and map memory",
	.order = 50,
	.run = run_kinds,
};
QD_CMD_REGISTER(kinds_cmd);
