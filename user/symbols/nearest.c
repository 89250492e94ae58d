// SPDX-License-Identifier: GPL-2.0
/*
 * nearest.c - the names nearest a miss, kept while every candidate is
 * offered once: the best MW_NEAREST by edit distance over as many last
 * segments as the wanted name has (pathname.h).
 */
#include <stdio.h>
#include <string.h>
#include "symbols/nearest.h"
#include "symbols/pathname.h"

void nearest__init(struct mw_nearest *n, const char *want)
{
	memset(n, 0, sizeof(*n));
	n->want = want;
	n->segments = pathname__segments(want);
	/* within a third of the last segment's length: a long path shared
	 * with every method of a type must not make any of them near */
	for (int k = 0; k < MW_NEAREST; k++)
		n->d[k] = (unsigned)strlen(pathname__tail(want, 1)) / 3 + 1;
}

void nearest__offer(struct mw_nearest *n, const char *cand)
{
	unsigned d;
	int k;

	if (!cand || !*cand)
		return;
	d = pathname__distance(n->want, pathname__tail(cand, n->segments), n->d[MW_NEAREST - 1]);
	if (d >= n->d[MW_NEAREST - 1])
		return;
	for (k = 0; k < MW_NEAREST; k++)
		if (n->best[k] && !strcmp(n->best[k], cand))
			return;
	for (k = MW_NEAREST - 1; k > 0 && d < n->d[k - 1]; k--) {
		n->best[k] = n->best[k - 1];
		n->d[k] = n->d[k - 1];
	}
	n->best[k] = cand;
	n->d[k] = d;
}

void nearest__format(const struct mw_nearest *n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < MW_NEAREST && n->best[k] && used < len; k++) {
		int w = snprintf(buf + used, len - used, "%s%s", k ? ", " : "; nearest: ",
				 n->best[k]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}
