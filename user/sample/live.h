/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - the live-block table's user-space side (struct mw_live in
 * memwatch.h): its size, set before load, and forgetting one target's
 * entries in place.
 */
#ifndef MW_LIVE_H
#define MW_LIVE_H

#include <stdint.h>

struct memwatch_bpf;

/* Entries for @max_blocks live blocks: the power of two at or above
 * 1.25 x @max_blocks, so that the linear probes stay short. */
uint64_t live__entries(uint32_t max_blocks);
/* The spill part's entries beside a main part of @entries: a quarter of
 * it, two at least (a shift below 64). */
uint64_t live__spill_entries(uint64_t entries);
/* Sizes the table (both parts and the spills bits) of the opened, not
 * yet loaded @skel for @max_blocks. */
void live__size(struct memwatch_bpf *skel, uint32_t max_blocks);
/* Marks every entry of target slot @slot freed, through the table mapped
 * into memwatch: 0 or -errno. */
int live__forget(struct memwatch_bpf *skel, uint32_t slot);

#endif
