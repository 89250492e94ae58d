/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - options in a file (-c FILE), for a service unit: one
 * "KEY VALUE" a line, the keys being the long options without their
 * dashes (struct, insert, remove, delta, size, ...); '#' starts a comment.
 *
 * cli.c and config.c call each other, on purpose: `-c FILE` expands
 * where it stands on the command line, as if its lines were written
 * there (a structure's options follow its --struct), so cli.c's parser
 * calls config__load in the middle of argv, and each line then goes
 * back through cli.c's one option parser (cli__apply), so that a key
 * means exactly what its option means, with the same checks.
 */
#ifndef MW_CONFIG_H
#define MW_CONFIG_H

#include <stdio.h>

struct mw_options;

/* Reads @path into @o. 0, or -1 after one "memwatch: FILE:LINE: ..." line. */
int config__load(struct mw_options *o, const char *path);
/* The same from an open stream; @name is used in messages. */
int config__parse(struct mw_options *o, FILE *f, const char *name);

#endif
