// SPDX-License-Identifier: GPL-2.0
/*
 * A kind's option parser, with the real descriptors: the first byte picks
 * the kind, the rest is its options, split at blanks and NULs. Each parse
 * is followed by a `change` onto the result and by printing it.
 */
#include "kinds/kind.h"
#include "tests/fuzz/fuzz.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct qd_kind *const *kinds = qd_kinds();
	const struct qd_kind *k;
	char *s, *argv[MAX_WORDS];
	void *cfg, *cfg2;
	size_t nkinds = 0, i;
	int argc = 0;

	if (!size)
		return 0;
	while (kinds[nkinds])
		nkinds++;
	k = kinds[data[0] % nkinds];
	s = fuzz_str(data + 1, size - 1);
	for (i = 0; i < size - 1 && argc < MAX_WORDS;) {
		while (i < size - 1 && (s[i] == ' ' || s[i] == '\0'))
			s[i++] = '\0';
		if (i < size - 1)
			argv[argc++] = s + i;
		while (i < size - 1 && s[i] != ' ' && s[i] != '\0')
			i++;
	}
	cfg = calloc(1, k->cfg_size);
	cfg2 = calloc(1, k->cfg_size);
	fuzz_quiet();
	qd_kind_defaults(k, cfg);
	if (!qd_kind_parse(k, argc, argv, cfg)) {
		qd_kind_check_required(k, argc, argv);
		qd_kind_change(k, cfg, argc, argv, cfg2);
		for (const struct qd_opt *o = k->opts; o->name; o++) {
			char buf[64];

			qd_opt_text(o, qd_opt_get(o, cfg), buf, sizeof(buf));
		}
	}
	out_end();
	free(cfg);
	free(cfg2);
	free(s);
	return 0;
}
