/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row.h - one target's figures as a row of named columns: the CSV feed's
 * columns, in its order, with its names and values. The CSV writer, the
 * JSON API and the page's history all read rows, so a column added here
 * appears in each of them at once, under the same name and value.
 */
#ifndef MW_ROW_H
#define MW_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sample/snapshot.h"

/* timestamp, pid, the counters, missed probes and RSS, the overhead and
 * the heap's attach, two of sites, the glibc view, and up to ten per
 * structure */
#define MW_ROW_MAX_COLS		(48 + 10 * MW_MAX_STRUCTS)
#define MW_ROW_NAME_MAX		(MW_STRUCT_NAME_MAX + 16)

enum mw_col_kind {
	MW_COL_TIME,		/* nanoseconds since the epoch, CLOCK_REALTIME */
	MW_COL_INT,		/* int64 */
	MW_COL_UINT,		/* uint64 */
	MW_COL_RATIO,		/* double, written with 6 decimals */
	MW_COL_PERCENT,		/* double, written with 3 decimals */
};

struct mw_column {
	char name[MW_ROW_NAME_MAX];
	enum mw_col_kind kind;
};

/* The columns of every row of a layout, fixed before the CSV header. */
struct mw_columns {
	int n;
	struct mw_column col[MW_ROW_MAX_COLS];
};

union mw_value {
	int64_t i;		/* MW_COL_TIME, MW_COL_INT */
	uint64_t u;
	double d;
};

/* One row: a value per column, and which are empty (no figure: the heap
 * under --no-heap, glibc's view where it cannot be read). */
struct mw_row {
	int n;
	union mw_value v[MW_ROW_MAX_COLS];
	uint8_t empty[(MW_ROW_MAX_COLS + 7) / 8];
	uint8_t kind[MW_ROW_MAX_COLS];	/* enum mw_col_kind, as the columns' */
};

/* The columns of @l, in the CSV feed's order. */
void row__columns(const struct mw_layout *l, struct mw_columns *cols);
/* The values of @s, one per column of row__columns(@l). */
void row__fill(const struct mw_layout *l, const struct mw_snapshot *s, struct mw_row *r);

static inline bool row__empty(const struct mw_row *r, int i)
{
	return r->empty[i / 8] & (1u << (i % 8));
}

/* Column @i of @r as the CSV feed writes it ("" when empty) into @buf. */
void row__format(const struct mw_row *r, int i, char *buf, size_t len);
/* Time column @i as a timespec. */
struct timespec row__time(const struct mw_row *r, int i);

#endif
