// SPDX-License-Identifier: GPL-2.0
/* Registration names: versions' directories and ids, and fingerprints. */
#include <errno.h>

#include "core/regname.h"
#include "test.h"

static const unsigned char obj_a[] = "an object";
static const unsigned char obj_b[] = "an object!";

static const void *elf_a(size_t *size)
{
	*size = sizeof(obj_a);
	return obj_a;
}

static const void *elf_b(size_t *size)
{
	*size = sizeof(obj_b);
	return obj_b;
}

static const struct qd_opt no_opts[] = { {} };

static const struct qd_kind t_fifo = {
	.name = "fifo",
	.id = "qdiscctl_fifo",
	.opts = no_opts,
	.elf_bytes = elf_a,
};
QD_KIND_REGISTER(t_fifo);

/* 14 characters: the first version fits, ID.N (16) does not. */
static const struct qd_kind t_long = {
	.name = "longer",
	.id = "qdiscctl_longr",
	.opts = no_opts,
	.elf_bytes = elf_b,
};
QD_KIND_REGISTER(t_long);

int main(void)
{
	char dir[QD_DIR_LEN], id[QD_ID_LEN], fa[QD_FP_LEN], fb[QD_FP_LEN];
	int v;

	CHECK_INT(qd_reg_names(&t_fifo, 0, dir, id), 0);
	CHECK_STR(dir, "fifo");
	CHECK_STR(id, "qdiscctl_fifo");
	CHECK_INT(qd_reg_names(&t_fifo, 9, dir, id), 0);
	CHECK_STR(dir, "fifo-9");
	CHECK_STR(id, "qdiscctl_fifo.9");
	CHECK_INT(qd_reg_names(&t_long, 0, dir, id), 0);
	CHECK_INT(qd_reg_names(&t_long, 1, dir, id), -ENAMETOOLONG);

	/* Ids as the kernel reports them, directories as bpffs holds them. */
	CHECK(qd_reg_parse("qdiscctl_fifo", true, &v) == &t_fifo && v == 0);
	CHECK(qd_reg_parse("qdiscctl_fifo.3", true, &v) == &t_fifo && v == 3);
	CHECK(qd_reg_parse("fifo-3", false, &v) == &t_fifo && v == 3);
	CHECK(qd_reg_parse("fifo", false, &v) == &t_fifo && v == 0);
	CHECK(!qd_reg_parse("qdiscctl_fifo-3", true, &v));
	CHECK(!qd_reg_parse("fifo.3", false, &v));
	CHECK(!qd_reg_parse("qdiscctl_fifo.0", true, &v));
	CHECK(!qd_reg_parse("qdiscctl_fifo.10", true, &v));
	CHECK(!qd_reg_parse("qdiscctl_fif", true, &v));
	CHECK(!qd_reg_parse("fifo", true, &v));
	CHECK(!qd_reg_parse("pfifo", true, &v));
	CHECK(!qd_reg_parse(".1", true, &v));

	/* One object, one fingerprint; one byte more, another. */
	qd_kind_fingerprint(&t_fifo, fa);
	qd_kind_fingerprint(&t_long, fb);
	CHECK_INT((int)strlen(fa), 16);
	CHECK(strspn(fa, "0123456789abcdef") == 16);
	CHECK(strcmp(fa, fb) != 0);
	qd_kind_fingerprint(&t_fifo, fb);
	CHECK_STR(fa, fb);
	return test_summary("test_regname");
}
