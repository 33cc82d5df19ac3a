// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/regname.h"

int qd_reg_names(const struct qd_kind *k, int v, char dir[QD_DIR_LEN], char id[QD_ID_LEN])
{
	if (!v) {
		snprintf(dir, QD_DIR_LEN, "%s", k->name);
		return snprintf(id, QD_ID_LEN, "%s", k->id) >= QD_ID_LEN ? -ENAMETOOLONG : 0;
	}
	snprintf(dir, QD_DIR_LEN, "%s-%d", k->name, v);
	return snprintf(id, QD_ID_LEN, "%s.%d", k->id, v) >= QD_ID_LEN ? -ENAMETOOLONG : 0;
}

const struct qd_kind *qd_reg_parse(const char *name, bool id, int *v)
{
	size_t len = strlen(name);

	*v = 0;
	if (len > 2 && name[len - 2] == (id ? '.' : '-') && name[len - 1] >= '1' &&
	    name[len - 1] <= '9') {
		*v = name[len - 1] - '0';
		len -= 2;
	}
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++) {
		const char *base = id ? (*k)->id : (*k)->name;

		if (strlen(base) == len && !strncmp(base, name, len))
			return *k;
	}
	return NULL;
}

void qd_kind_fingerprint(const struct qd_kind *k, char fp[QD_FP_LEN])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *p;
	size_t size;

	p = k->elf_bytes(&size);
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	snprintf(fp, QD_FP_LEN, "%016llx", (unsigned long long)h);
}
