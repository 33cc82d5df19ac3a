/* SPDX-License-Identifier: GPL-2.0 */
#ifndef QDISCCTL_BATCH_H
#define QDISCCTL_BATCH_H

#include <stdbool.h>

/*
 * Split one line into words: blanks separate, '...' and "..." quote,
 * backslash escapes the next character, '#' outside quotes starts a
 * comment. Words point into line, which is modified. Returns the word
 * count, or -EINVAL (unterminated quote) or -E2BIG (more than max words).
 */
int batch_split(char *line, char **argv, int max);

/*
 * Run every command of file ("-" for stdin) through run. A line ending in
 * an unescaped backslash continues on the next (the backslash and line
 * break become a blank; messages name the command's first line). Stops at
 * the first failure unless force. Returns the exit code of the first
 * failure, or 0.
 */
int batch_run(const char *file, bool force, int (*run)(int argc, char **argv));
/*
 * The same reading, for any consumer: fn gets each command's words (valid
 * until it returns) and data, with qd_opts.src_file and src_line naming
 * where the command starts.
 */
int batch_each(const char *file, bool force, int (*fn)(int argc, char **argv, void *data),
	       void *data);

#endif
