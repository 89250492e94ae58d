// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - the CSV writer, over the rows of row.c. Fields are numbers and
 * a timestamp, and structure names are [A-Za-z_][A-Za-z0-9_]*, so no
 * field ever needs RFC 4180 quoting. Heap columns are empty, not 0, under
 * --no-heap: no figure is better than a false one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "export/csv.h"
#include "export/row.h"

static int finish(FILE *f)
{
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int csv__write_header(FILE *f, const struct mw_layout *l)
{
	struct mw_columns *cols = malloc(sizeof(*cols));

	if (!cols)
		return -ENOMEM;
	row__columns(l, cols);
	for (int i = 0; i < cols->n; i++)
		fprintf(f, "%s%s", i ? "," : "", cols->col[i].name);
	fputc('\n', f);
	free(cols);
	return finish(f);
}

int csv__write_row(FILE *f, const struct mw_layout *l,
		   const struct mw_snapshot *s)
{
	struct mw_row r;
	char field[64];

	row__fill(l, s, &r);
	for (int i = 0; i < r.n; i++) {
		row__format(&r, i, field, sizeof(field));
		fprintf(f, "%s%s", i ? "," : "", field);
	}
	fputc('\n', f);
	return finish(f);
}
