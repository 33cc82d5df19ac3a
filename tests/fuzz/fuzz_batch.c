// SPDX-License-Identifier: GPL-2.0
/*
 * Batch files: the input is a whole file, read by batch_run (continuation
 * lines, comments, quoting) through a memfd; each line's words also go
 * through batch_split with little room, for -E2BIG.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/batch.h"
#include "tests/fuzz/fuzz.h"

static int run(int argc, char **argv)
{
	char *words[4], *copy;
	size_t n = 0;
	int i;

	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	copy = malloc(n + 1);
	copy[0] = '\0';
	for (i = 0; i < argc; i++) {
		strcat(copy, argv[i]);
		strcat(copy, " ");
	}
	batch_split(copy, words, 4);
	free(copy);
	/* Fail now and then, so that the stop and --force paths run. */
	return argc == 3 ? QD_EXIT_KERNEL : QD_EXIT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];

	if (fd < 0)
		fd = memfd_create("batch", 0);
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fuzz_quiet();
	batch_run(path, size && data[0] & 1, run);
	out_end();
	return 0;
}
