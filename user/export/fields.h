/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fields.h - every figure memwatch reports, named once: its CSV column,
 * its metric family, its unit and help text, whether it is an event
 * memwatch lost, and whether it needs the heap probes. The CSV, JSON,
 * OpenMetrics and table writers, the lost-events sum and docs/metrics.md
 * (fieldsdoc.c) all read these tables, so a figure added here appears
 * everywhere at once, under the same names.
 */
#ifndef MW_FIELDS_H
#define MW_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* A figure's names: its CSV column (a structure's: the suffix after its
 * name), its metric family, its unit and help; NULL where it has none. */
struct mw_field {
	const char *csv;
	const char *metric;
	const char *unit;	/* "bytes", "ratio", "seconds", or NULL */
	const char *help;
	bool counter;		/* a counter: its samples end in _total */
};

/* A target's figures besides its counters and glibc's, in CSV order. */
enum mw_target_figure {
	MW_TF_TIMESTAMP,	/* the first column */
	MW_TF_PID,		/* the second; a label on every sample */
	/* the counters of mw_counter_fields come here in the CSV */
	MW_TF_MISSED,		/* lost_missed_probes; memwatch_lost_events'
				 * reason "missed_probes" */
	MW_TF_RSS,
	MW_TF_OVERHEAD,		/* a percentage in the CSV, a ratio as a metric */
	MW_TF_HEAP_ATTACHED,
	MW_TF_HEAP_SINCE,	/* RFC 3339 in the CSV, Unix seconds as a metric */
	MW_TF_SITES,		/* with site tracking */
	MW_TF_SUSPECTS,		/* with site tracking */
	MW_TF_TRUNCATED,	/* with site tracking */
	MW_TF_LOST,		/* memwatch_lost_events, by reason: no column */
	MW_TF__COUNT,
};
extern const struct mw_field mw_target_fields[MW_TF__COUNT];

/* A structure's figures: column NAME + csv, metric with struct="NAME". */
enum mw_struct_figure {
	MW_STF_ELEMENTS,
	MW_STF_BYTES,		/* with the heap probes */
	MW_STF_ESTIMATED,	/* with --size */
	MW_STF_INSERTS,
	MW_STF_REMOVES,
	MW_STF_UNWOUND,
	/* with --read */
	MW_STF_LENGTH,
	MW_STF_RETAINED,
	MW_STF_READ_ERRORS,
	MW_STF_READ_COMPLETE,
	MW_STF_ROOTS,
	MW_STF__COUNT,
};
extern const struct mw_field mw_struct_fields[MW_STF__COUNT];

/* The allocation sites' families (with site tracking; metrics only). */
enum mw_site_figure {
	MW_SITE_LIVE_BYTES,
	MW_SITE_LIVE_ALLOCS,
	MW_SITE_SUSPECT,
	MW_SITE_INSERT_CALLS,	/* by structure and site */
	MW_SITE__COUNT,
};
extern const struct mw_field mw_site_fields[MW_SITE__COUNT];

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

/* docs/metrics.md: every column and metric of these tables, as Markdown
 * (make docs writes it; a unit test fails when the file is stale). */
void fields__document(FILE *f);

#endif
