/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elements.h - the elements of a container, and what they own, walked in the
 * target's memory by their programs (ownership.h): element buffers read a chunk
 * at a time in one call each, a BTreeMap's nodes by its height, libstdc++'s
 * node lists and trees node by node, each Box's block once it is owned,
 * each shared block once a walk. Every figure it finds is checked as the
 * top one is; what it visits is counted against a limit; memory it holds
 * is bounded by its depth, not by what it reads.
 */
#ifndef MW_ELEMENTS_H
#define MW_ELEMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include "read/plan.h"
#include "read/walk.h"

#define MW_DEEP_DEPTH	24		/* containers and blocks one inside another */
#define MW_DEEP_CHUNK	(256u << 10)	/* bytes of elements read in one call */
#define MW_DEEP_WINDOW	4096u		/* bytes of nodes and blocks read at once: a page */

struct mw_deep {
	const struct mw_mem *mem;
	const struct mw_plan *p;
	uint64_t visits, limit;
	uint64_t retained;
	uint64_t *seen;		/* shared blocks counted: open addressing */
	size_t nseen, capseen;
	uint8_t *buf[MW_DEEP_DEPTH + 1];	/* a chunk a depth, made on use */
	uint8_t *cache;		/* a window of memory nodes and blocks are read
				 * from: a program allocates them near each other */
	uint64_t cache_base, cache_len;
};

/* A walker over @m for @p, visiting at most @limit things. */
void elements__init(struct mw_deep *d, const struct mw_mem *m, const struct mw_plan *p,
		uint64_t limit);
void elements__free(struct mw_deep *d);

/* The container of shape @s whose header @hdr was read at @addr: its
 * buffers' bytes and what its elements own, into d->retained; its length
 * into @n. 0, -EAGAIN, -EFAULT, -E2BIG, -ELOOP (nested too deep), -ESRCH,
 * -ENOMEM. */
int elements__container(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr,
		    uint64_t addr, uint64_t *n);

/* What the value @val (a copy of the one at @addr) owns, by program
 * @prog. Same returns. */
int elements__value(struct mw_deep *d, int prog, const uint8_t *val, uint64_t addr);

#endif
