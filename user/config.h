/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - structures described in a file (-c FILE), for a service unit:
 * one "KEY VALUE" a line, the keys being the structure options without
 * their dashes (struct, insert, remove, delta, size); '#' starts a comment.
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
