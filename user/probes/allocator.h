/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocator.h - symbol resolution for the heap: find the allocator that
 * really serves the target's allocations and add its whole family of
 * entry points to the probe table.
 */
#ifndef MW_ALLOCATOR_H
#define MW_ALLOCATOR_H

#include "process/objects.h"
#include "probes/probes.h"
#include "process/target.h"

/* Adds the allocator probes for @t. @choice is "auto", a family name
 * (glibc, jemalloc, tcmalloc, mimalloc) or the path of a mapped object.
 * Returns how many probes were added (> 0), or -1 after one message. On
 * success one line on stderr says what was found. A Go program is said
 * to be one (its heap is not malloc's); one that maps no malloc (no cgo)
 * gets no probes: 0. */
int allocator__resolve(const struct mw_target *t, const struct mw_objects *objs,
		       const char *choice, struct mw_probe_table *tab);

/* Whether @choice names a known family or looks like a path. */
bool allocator__valid_choice(const char *choice);

#endif
