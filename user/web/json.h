/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - the documents of the JSON API (/api/snapshot, /api/history,
 * /api/sites), written with json-c from the same rows as the CSV feed:
 * every CSV column under its name, numbers as numbers, empty fields as
 * null, the timestamp as the feed writes it.
 */
#ifndef MW_JSON_H
#define MW_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "sample/history.h"
#include "export/row.h"
#include "sample/snapshot.h"

struct json_object;

/* What the page needs besides the rows. */
struct mw_json_meta {
	double interval_s;
	size_t history;		/* --history N */
	size_t history_rows;	/* rows kept now, all targets together */
	size_t history_bytes;	/* the memory they take */
};

/* Row @r as an object: a member per column of @cols. NULL: no memory. */
struct json_object *json__row(const struct mw_columns *cols, const struct mw_row *r);

/* {"interval_seconds":…, "history_samples":N, "history_rows_kept":…,
 *  "history_bytes":…, "heap":bool, "sites":bool, "structures":[names],
 *  "processes":[{"pid":…, "comm":…}], "targets":[row objects]} for the
 * latest snapshot of each of @n targets. 0 or -ENOMEM; *@out malloc'd. */
int json__snapshot(const struct mw_layout *l, const struct mw_json_meta *m,
		   const struct mw_snapshot *const *all, int n, char **out, size_t *len);
/* [row objects] of @n rows of a history__copy @buf, oldest first. */
int json__history(const struct mw_hist *h, const uint8_t *buf, size_t n,
		  char **out, size_t *len);
/* {"targets":[{"pid":…, "timestamp":…, "sites":[…], "leak_suspects":[…],
 *  "grown_by":[…]}]}: the top sites and who grows each structure, as -f
 * table lists them (the first --top N of each). */
int json__sites(const struct mw_layout *l, const struct mw_snapshot *const *all, int n,
		char **out, size_t *len);

#endif
