/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profiles.h - the heap profiles of an interval (pprof.h's format) from
 * each target's sites: one sample a site (a stack, with --stacks), and
 * an "[unattributed]" sample for the blocks no site holds (a full site
 * table, blocks from before site tracking), so that every profile's
 * totals equal the feed's heap figures. Served over HTTP and written by
 * --pprof.
 */
#ifndef MW_PROFILES_H
#define MW_PROFILES_H

#include <stddef.h>
#include <stdint.h>
#include "export/pprof.h"
#include "sample/snapshot.h"

#define MW_PPROF_UNATTRIBUTED "[unattributed]"

/* The profiles (each kind) of @n snapshots' sites, only target @pid's if
 * not 0, only the blocks charged to structure @id if not -1 (its
 * "[unattributed]" sample: charged bytes no site holds). 0, -ENOENT if
 * @pid is not among them, or -ENOMEM. */
int profiles__build(const struct mw_snapshot *const *snaps, int n, int pid, int id,
		    uint8_t *out[MW_PPROF__KINDS], size_t len[MW_PPROF__KINDS]);

#endif
