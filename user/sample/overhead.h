/* SPDX-License-Identifier: GPL-2.0 */
/*
 * overhead.h - what memwatch's probes cost a target, estimated every
 * interval from the hits its programs count (by kind: emulated, single-
 * stepped, return) times what a hit of each kind costs (calibrate.h), as
 * a percent of one CPU; and the --max-overhead budget's decisions, which
 * main.c carries out. No I/O: unit-tested on figures alone.
 */
#ifndef MW_OVERHEAD_H
#define MW_OVERHEAD_H

#include <stdbool.h>
#include <stdint.h>
#include "probes/calibrate.h"
#include "options.h"		/* MW_OVER_BUDGET_INTERVALS */
#include "memwatch.h"

/* Hits counted so far in one target: its allocator (and loader, unwinder)
 * programs', and each structure's. */
struct mw_hits {
	uint64_t heap[MW_HIT__COUNT];
	uint64_t structs[MW_MAX_STRUCTS][MW_HIT__COUNT];
	int nstructs;
};

struct mw_overhead {
	struct mw_hits last;	/* at the previous update */
	double last_s;		/* its time, monotonic seconds */
	bool primed;
	double percent;		/* of one CPU, over the last interval */
	double heap_percent;	/* the part of the allocator's probes */
	double struct_percent[MW_MAX_STRUCTS];
	int over;		/* intervals in a row over the budget */
};

/* Starts counting at @now_s, from @h (the counters at that moment). */
void overhead__start(struct mw_overhead *o, const struct mw_hits *h, double now_s);
/* The estimate for the interval that ends at @now_s with the counters
 * @h: sets o->percent and its parts. Counters that went backwards (the
 * slot was reset) count from zero. */
void overhead__update(struct mw_overhead *o, const struct mw_hit_costs *c,
		      const struct mw_hits *h, double now_s);

enum mw_budget_act {
	MW_BUDGET_NONE,
	MW_BUDGET_DETACH_HEAP,		/* the allocator's probes go */
	MW_BUDGET_DETACH_STRUCT,	/* the costliest structure's go */
};

/*
 * After an update: what --max-overhead @budget (percent of one CPU)
 * calls for. Over budget for MW_OVER_BUDGET_INTERVALS intervals in a
 * row, the heap probes go first (while @heap_attached); then, while the
 * structures' probes alone are over it, the costliest structure still
 * attached (not in @detached, a bit per id): its id in @sid. Acting
 * starts the count again.
 */
enum mw_budget_act overhead__judge(struct mw_overhead *o, double budget, bool heap_attached,
				   uint64_t detached, int *sid);

#endif
