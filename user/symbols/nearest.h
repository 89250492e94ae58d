/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nearest.h - "; nearest: a, b, c" for a name that matched nothing: the
 * candidates whose last segments are fewest edits from it.
 */
#ifndef MW_NEAREST_H
#define MW_NEAREST_H

#include <stddef.h>

/* The nearest names to a miss, for "nearest: a, b, c". */
#define MW_NEAREST 3
struct mw_nearest {
	const char *want;
	size_t segments;		/* want's */
	const char *best[MW_NEAREST];	/* the candidates' whole names */
	unsigned d[MW_NEAREST];
};

void nearest__init(struct mw_nearest *n, const char *want);
/* Weighs @cand (which must outlive @n): its last segments, as many as
 * @want has, against @want; near when within a third of the length of
 * @want's last segment in edits. */
void nearest__offer(struct mw_nearest *n, const char *cand);
/* "; nearest: a, b, c" into @buf, or "" when nothing was near. */
void nearest__format(const struct mw_nearest *n, char *buf, size_t len);

#endif
