/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history.h - the rows the page at / draws when it opens: every target's
 * last --history N rows (the CSV feed's, as numbers), kept in memory,
 * bounded per target and in total, the oldest dropped first. The main
 * loop adds each interval's rows; the HTTP thread copies them out.
 */
#ifndef MW_HISTORY_H
#define MW_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "export/row.h"

#define MW_HIST_CHUNK_SAMPLES	16	/* rows per block of memory */
#define MW_HISTORY_TOTAL_BYTES	(64u << 20)	/* all targets together */

struct mw_hist;

/* A history for rows of @l: @per_target rows for each of @nslots
 * targets, @total_bytes of memory at most for all (at least one chunk).
 * NULL when out of memory. */
struct mw_hist *history__new(const struct mw_layout *l, size_t per_target,
			     size_t total_bytes, int nslots);
void history__free(struct mw_hist *h);
/* Adds @r, the newest row of target @pid in @slot (a slot that held
 * another pid starts afresh). Past @per_target rows, its oldest goes;
 * past @total_bytes, the oldest chunk of all targets goes. 0 or -ENOMEM. */
int history__add(struct mw_hist *h, int slot, pid_t pid, const struct mw_row *r);
/* Forgets @slot's rows (its process is no longer watched). */
void history__drop(struct mw_hist *h, int slot);

/* The rows of @pid, oldest first, packed into a malloc'd @buf (*@buf
 * NULL and *@n 0 when there are none). 0, -ENOENT when @pid has no rows
 * kept, or -ENOMEM. */
int history__copy(struct mw_hist *h, pid_t pid, uint8_t **buf, size_t *n);
/* Row @i of a copy. */
void history__unpack(const struct mw_hist *h, const uint8_t *buf, size_t i,
		     struct mw_row *r);
/* The columns of every row (fixed). */
const struct mw_columns *history__columns(const struct mw_hist *h);
/* Memory one row takes, and what all rows take now (chunks included). */
size_t history__sample_bytes(const struct mw_hist *h);
size_t history__bytes(struct mw_hist *h);
/* Rows kept for @slot, and for all targets together. */
size_t history__count(struct mw_hist *h, int slot);
size_t history__rows(struct mw_hist *h);

#endif
