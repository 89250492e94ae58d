/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocator.h - symbol resolution for the heap: find the allocator the
 * target really uses and add its entry points to the probe table.
 */
#ifndef MW_ALLOCATOR_H
#define MW_ALLOCATOR_H

#include "probes.h"
#include "procmaps.h"
#include "target.h"

/* Adds the target's allocator probes. Returns how many probes were added
 * (>0), or -1 after one message. */
int allocator__resolve(const struct mw_target *t, const struct mw_maps *maps,
		       struct mw_probe_table *tab);

#endif
