/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folded.h - live bytes by allocation site as folded stacks (one line a
 * stack: frames root first, separated by ';', a space, then the bytes),
 * the input of flame-graph tools; rewritten atomically each interval.
 */
#ifndef MW_FOLDED_H
#define MW_FOLDED_H

#include <stdio.h>
#include "sample/snapshot.h"

/* Writes the folded lines of @n snapshots to @f. 0 or -errno. */
int folded__print(FILE *f, const struct mw_snapshot *const *snaps, int n);
/* Replaces the file at @path with them. 0, or -1 after one message. */
int folded__write(const char *path, const struct mw_snapshot *const *snaps, int n);

#endif
