/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csv.h - the CSV feed: one header line, then one row per snapshot,
 * flushed after each. Column names are the contract (see README).
 */
#ifndef MW_CSV_H
#define MW_CSV_H

#include <stdio.h>
#include "sample/snapshot.h"

/* 0, or -errno if the stream failed. */
int csv__write_header(FILE *f, const struct mw_layout *layout);
int csv__write_row(FILE *f, const struct mw_layout *layout,
		   const struct mw_snapshot *s);

#endif
