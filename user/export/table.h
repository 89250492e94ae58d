/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - the view for people (-f table): heap summary, structures, top
 * sites and who grows each structure, in human units with what changed
 * since the last interval; redrawn in place on a terminal.
 */
#ifndef MW_TABLE_H
#define MW_TABLE_H

#include <stdbool.h>
#include <stdio.h>
#include "sample/snapshot.h"

struct mw_table {
	struct mw_snapshot prev[MW_MAX_TARGETS];
	pid_t prev_pid[MW_MAX_TARGETS];
	int nprev;
	bool tty;		/* clear the screen before each view */
};

/* One view of @n snapshots. 0 or -errno. */
int table__write(FILE *f, struct mw_table *t, const struct mw_layout *l,
		 const struct mw_snapshot *const *snaps, int n);
/* "1.5 MiB", "12 B": @buf gets the human form of @bytes. */
void table__bytes(int64_t bytes, char *buf, size_t len);

#endif
