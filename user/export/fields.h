/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fields.h - every per-target figure of a snapshot, once: its CSV column,
 * its metric family, its help text, whether it is an event memwatch lost,
 * and whether it needs the heap probes. The CSV, OpenMetrics and table
 * writers, and the lost-events sum, all read these tables, so a counter
 * added here appears everywhere at once.
 */
#ifndef MW_FIELDS_H
#define MW_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sample/snapshot.h"

/* A counter of enum mw_counter, or one of these derived figures. */
#define MW_F_LIVE_BYTES		(-1)
#define MW_F_LIVE_ALLOCS	(-2)
#define MW_F_STEPPED		(-3)

struct mw_counter_field {
	int counter;		/* enum mw_counter, or MW_F_* */
	const char *csv;	/* column */
	const char *metric;	/* family; NULL: a reason of memwatch_lost_events */
	const char *reason;	/* lost-events reason, NULL: not a loss */
	const char *unit;	/* "bytes", or NULL */
	const char *help;
	bool heap;		/* empty (CSV), absent (metrics) under --no-heap */
};

/* In CSV column order, after timestamp and pid. */
extern const struct mw_counter_field mw_counter_fields[];
extern const size_t mw_ncounter_fields;

enum mw_glibc_kind { MW_G_U64, MW_G_RATIO, MW_G_FLAG };

struct mw_glibc_field {
	const char *csv;
	const char *metric;
	const char *unit;	/* "bytes", "ratio", or NULL */
	const char *help;
	enum mw_glibc_kind kind;
	size_t offset;		/* in struct mw_glibc_sample */
};

/* glibc's own figures, in CSV column order. */
extern const struct mw_glibc_field mw_glibc_fields[];
extern const size_t mw_nglibc_fields;

/* Whether @s's heap figures mean something: the allocator's probes are
 * attached to its target (not --no-heap, not detached by the budget). */
bool fields__heap(const struct mw_layout *l, const struct mw_snapshot *s);
/* The value of counter field @f in @s. */
int64_t fields__counter(const struct mw_counter_field *f, const struct mw_snapshot *s);
/* Every event @s says memwatch lost (the lost_* counters and the runs the
 * kernel skipped): non-zero means its figures are not exact. */
uint64_t fields__lost(const struct mw_snapshot *s);
/* The uint64 glibc figure @f of @g (MW_G_U64 and MW_G_FLAG). */
uint64_t fields__glibc(const struct mw_glibc_field *f, const struct mw_glibc_sample *g);

#endif
