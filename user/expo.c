// SPDX-License-Identifier: GPL-2.0
/*
 * expo.c - Prometheus and OpenMetrics exposition, from a table of metric
 * families. Counters follow OpenMetrics: family "x", samples "x_total";
 * in the 0.0.4 text format the family is declared under the sample name.
 * Families that have nothing to say (heap under --no-heap, estimates
 * without --size) are left out rather than reported as 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "expo.h"

enum value {
	V_LIVE_BYTES, V_LIVE_ALLOCS, V_COUNTER, V_RSS, V_LOST,
	V_S_ELEMENTS, V_S_BYTES, V_S_ESTIMATED, V_S_INSERTS, V_S_REMOVES,
};

struct family {
	const char *name;
	bool counter;
	const char *unit;	/* NULL: none */
	const char *help;
	enum value value;
	int counter_index;	/* enum mw_counter, for V_COUNTER */
	bool heap_only;		/* absent under --no-heap */
};

static const struct family families[] = {
	{ "memwatch_heap_live_bytes", false, "bytes",
	  "Requested bytes of blocks allocated since attach and not yet freed.",
	  V_LIVE_BYTES, 0, true },
	{ "memwatch_heap_live_allocations", false, NULL,
	  "Blocks allocated since attach and not yet freed.", V_LIVE_ALLOCS, 0, true },
	{ "memwatch_heap_allocations", true, NULL,
	  "Blocks that became live since attach.", V_COUNTER, MW_C_ALLOC_CALLS, true },
	{ "memwatch_heap_allocated_bytes", true, "bytes",
	  "Requested bytes of blocks that became live since attach.",
	  V_COUNTER, MW_C_ALLOC_BYTES, true },
	{ "memwatch_heap_frees", true, NULL,
	  "Blocks allocated since attach that were freed.", V_COUNTER, MW_C_FREE_CALLS, true },
	{ "memwatch_heap_freed_bytes", true, "bytes",
	  "Requested bytes of blocks allocated since attach that were freed.",
	  V_COUNTER, MW_C_FREE_BYTES, true },
	{ "memwatch_heap_failed_calls", true, NULL,
	  "Allocator calls that failed (NULL, overflowing size, EINVAL).",
	  V_COUNTER, MW_C_FAILED_CALLS, true },
	{ "memwatch_heap_untracked_frees", true, NULL,
	  "Frees of blocks allocated before attach (they change nothing).",
	  V_COUNTER, MW_C_UNTRACKED_FREES, true },
	{ "memwatch_lost_events", true, NULL,
	  "Events not accounted, by reason; non-zero means figures are not exact.",
	  V_LOST, 0, false },
	{ "memwatch_rss_bytes", false, "bytes",
	  "Resident set size of the target, from /proc/PID/statm.", V_RSS, 0, false },
	{ "memwatch_struct_elements", false, NULL,
	  "Net change in a structure's elements since attach.", V_S_ELEMENTS, 0, false },
	{ "memwatch_struct_bytes", false, "bytes",
	  "Live bytes allocated inside a structure's insert functions.",
	  V_S_BYTES, 0, true },
	{ "memwatch_struct_estimated_bytes", false, "bytes",
	  "A structure's elements times its static element size (--size).",
	  V_S_ESTIMATED, 0, false },
	{ "memwatch_struct_inserts", true, NULL,
	  "Calls of a structure's insert functions since attach.", V_S_INSERTS, 0, false },
	{ "memwatch_struct_removes", true, NULL,
	  "Calls of a structure's remove functions since attach.", V_S_REMOVES, 0, false },
};

static const struct {
	const char *reason;
	int counter;		/* -1: the kernel's missed runs */
} lost_reasons[] = {
	{ "table_full", MW_C_LOST_TABLE_FULL },
	{ "unpaired", MW_C_LOST_UNPAIRED },
	{ "scopes", MW_C_LOST_SCOPES },
	{ "sites", MW_C_LOST_SITES },
	{ "stacks", MW_C_LOST_STACKS },
	{ "missed_probes", -1 },
};

static bool is_struct(enum value v)
{
	return v >= V_S_ELEMENTS;
}

/* Whether structure @k has a sample in family @fam. */
static bool struct_has(const struct family *fam, const struct mw_layout *l, int k)
{
	return fam->value != V_S_ESTIMATED || l->structs[k].size;
}

static bool family_present(const struct family *fam, const struct mw_layout *l)
{
	if (fam->heap_only && !l->heap)
		return false;
	if (!is_struct(fam->value))
		return true;
	for (int k = 0; k < l->nstructs; k++)
		if (struct_has(fam, l, k))
			return true;
	return false;
}

static void header(FILE *f, enum mw_expo fmt, const struct family *fam)
{
	const char *suffix = fam->counter && fmt == MW_EXPO_PROMETHEUS ? "_total" : "";

	fprintf(f, "# HELP %s%s %s\n", fam->name, suffix, fam->help);
	fprintf(f, "# TYPE %s%s %s\n", fam->name, suffix, fam->counter ? "counter" : "gauge");
	if (fam->unit && fmt == MW_EXPO_OPENMETRICS)
		fprintf(f, "# UNIT %s %s\n", fam->name, fam->unit);
}

static void sample(FILE *f, const struct family *fam, const char *labels,
		   int64_t v)
{
	fprintf(f, "%s%s{%s} %" PRId64 "\n", fam->name,
		fam->counter ? "_total" : "", labels, v);
}

static void struct_samples(FILE *f, const struct family *fam,
			   const struct mw_layout *l, const struct mw_snapshot *s)
{
	char labels[128];

	for (int k = 0; k < l->nstructs; k++) {
		const struct mw_struct_sample *ss = &s->s[k];
		int64_t v;

		if (!struct_has(fam, l, k))
			continue;
		switch (fam->value) {
		case V_S_ELEMENTS:	v = ss->elements; break;
		case V_S_BYTES:		v = ss->bytes; break;
		case V_S_ESTIMATED:	v = ss->estimated_bytes; break;
		case V_S_INSERTS:	v = (int64_t)ss->insert_calls; break;
		default:		v = (int64_t)ss->remove_calls; break;
		}
		/* structure names are [A-Za-z_][A-Za-z0-9_]*: nothing to escape */
		snprintf(labels, sizeof(labels), "pid=\"%d\",struct=\"%s\"",
			 (int)s->pid, l->structs[k].name);
		sample(f, fam, labels, v);
	}
}

static void target_samples(FILE *f, const struct family *fam,
			   const struct mw_layout *l, const struct mw_snapshot *s)
{
	char labels[96];

	snprintf(labels, sizeof(labels), "pid=\"%d\"", (int)s->pid);
	switch (fam->value) {
	case V_LIVE_BYTES:
		sample(f, fam, labels, s->live_bytes);
		return;
	case V_LIVE_ALLOCS:
		sample(f, fam, labels, s->live_allocations);
		return;
	case V_COUNTER:
		sample(f, fam, labels, (int64_t)s->c[fam->counter_index]);
		return;
	case V_RSS:
		sample(f, fam, labels, (int64_t)s->rss_bytes);
		return;
	case V_LOST:
		for (size_t r = 0; r < sizeof(lost_reasons) / sizeof(lost_reasons[0]); r++) {
			int c = lost_reasons[r].counter;

			snprintf(labels, sizeof(labels), "pid=\"%d\",reason=\"%s\"",
				 (int)s->pid, lost_reasons[r].reason);
			sample(f, fam, labels, (int64_t)(c < 0 ? s->lost_missed : s->c[c]));
		}
		return;
	default:
		struct_samples(f, fam, l, s);
	}
}

/* Label values are symbol names here: escape them as both formats say. */
static void escape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 3 < len; in++) {
		if (*in == '\\' || *in == '"') {
			out[o++] = '\\';
			out[o++] = *in;
		} else if (*in == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

static const struct {
	const char *name, *help, *unit;
	bool counter;
} site_families[] = {
	{ "memwatch_site_live_bytes", "Live bytes allocated at a call site (top N sites).", "bytes", false },
	{ "memwatch_site_live_allocations", "Live blocks allocated at a call site (top N sites).", NULL, false },
	{ "memwatch_site_leak_suspect", "1 if the site's live bytes grew in each of the last K intervals.", NULL, false },
	{ "memwatch_struct_insert_site_calls", "Calls of a structure's insert functions by call site (top N).", NULL, true },
};

/* The top N sites of each target, and who grows each structure. */
static void site_samples(FILE *f, enum mw_expo fmt, const struct mw_layout *l,
			 const struct mw_snapshot *const *snaps, int n)
{
	char site[512], labels[700];

	for (size_t k = 0; k < sizeof(site_families) / sizeof(site_families[0]); k++) {
		struct family fam = { .name = site_families[k].name,
				      .counter = site_families[k].counter,
				      .unit = site_families[k].unit,
				      .help = site_families[k].help };

		if (k == 3 && !l->nstructs)
			continue;
		header(f, fmt, &fam);
		for (int t = 0; t < n; t++) {
			const struct mw_sites *s = snaps[t]->sites;

			if (!s)
				continue;
			if (k == 3) {
				for (size_t i = 0; i < s->nins && i < (size_t)l->top; i++) {
					escape(s->ins[i].name, site, sizeof(site));
					snprintf(labels, sizeof(labels), "pid=\"%d\",struct=\"%s\",site=\"%s\"",
						 (int)snaps[t]->pid, l->structs[s->ins[i].struct_id].name, site);
					sample(f, &fam, labels, (int64_t)s->ins[i].calls);
				}
				continue;
			}
			for (size_t i = 0; i < s->nrows && i < (size_t)l->top; i++) {
				const struct mw_site_row *r = &s->rows[i];

				escape(r->name, site, sizeof(site));
				snprintf(labels, sizeof(labels), "pid=\"%d\",site=\"%s\"",
					 (int)snaps[t]->pid, site);
				sample(f, &fam, labels, k == 0 ? r->live_bytes :
					       k == 1 ? r->live_blocks : r->suspect);
			}
		}
	}
}

static const struct {
	const char *name, *help, *unit;
	int field;		/* index into glibc_values() */
} glibc_families[] = {
	{ "memwatch_glibc_arena_bytes", "Bytes glibc took from the system for its arenas (mallinfo2 arena).", "bytes", 0 },
	{ "memwatch_glibc_in_use_bytes", "Bytes in use in the arenas (mallinfo2 uordblks).", "bytes", 1 },
	{ "memwatch_glibc_free_bytes", "Free bytes in the arenas (mallinfo2 fordblks).", "bytes", 2 },
	{ "memwatch_glibc_mmapped_bytes", "Bytes in mmapped blocks (mallinfo2 hblkhd).", "bytes", 3 },
	{ "memwatch_glibc_arenas", "Arenas in glibc's ring.", NULL, 4 },
	{ "memwatch_glibc_free_chunks", "Free chunks in the arenas' bins (mallinfo2 ordblks).", NULL, 5 },
	{ "memwatch_glibc_fastbin_chunks", "Free chunks in fastbins (mallinfo2 smblks).", NULL, 6 },
	{ "memwatch_glibc_fastbin_free_bytes", "Free bytes in fastbins (mallinfo2 fsmblks).", "bytes", 7 },
	{ "memwatch_glibc_mmapped_chunks", "Blocks served by mmap (mallinfo2 hblks).", NULL, 8 },
	{ "memwatch_glibc_releasable_bytes", "Bytes at the top of the main arena malloc_trim could release (mallinfo2 keepcost).", "bytes", 9 },
	{ "memwatch_glibc_mmap_threshold_bytes", "glibc's current (dynamic) mmap threshold.", "bytes", 10 },
	{ "memwatch_glibc_trim_threshold_bytes", "glibc's current trim threshold.", "bytes", 11 },
};

static void glibc_samples(FILE *f, enum mw_expo fmt, const struct mw_snapshot *const *snaps,
			  int n)
{
	char labels[64];

	for (size_t k = 0; k < sizeof(glibc_families) / sizeof(glibc_families[0]); k++) {
		struct family fam = { .name = glibc_families[k].name, .unit = glibc_families[k].unit,
				      .help = glibc_families[k].help };

		header(f, fmt, &fam);
		for (int t = 0; t < n; t++) {
			const struct mw_glibc_sample *g = &snaps[t]->glibc;
			const uint64_t v[] = {
				g->arena, g->uordblks, g->fordblks, g->hblkhd, g->arenas,
				g->ordblks, g->smblks, g->fsmblks, g->hblks, g->keepcost,
				g->mmap_threshold, g->trim_threshold,
			};

			if (!snaps[t]->has_glibc)
				continue;
			snprintf(labels, sizeof(labels), "pid=\"%d\"", (int)snaps[t]->pid);
			sample(f, &fam, labels, (int64_t)v[glibc_families[k].field]);
		}
	}
	fprintf(f, "# HELP memwatch_glibc_fragmentation_ratio Free bytes divided by arena bytes.\n"
		   "# TYPE memwatch_glibc_fragmentation_ratio gauge\n");
	if (fmt == MW_EXPO_OPENMETRICS)
		fprintf(f, "# UNIT memwatch_glibc_fragmentation_ratio ratio\n");
	for (int t = 0; t < n; t++)
		if (snaps[t]->has_glibc)
			fprintf(f, "memwatch_glibc_fragmentation_ratio{pid=\"%d\"} %.6f\n",
				(int)snaps[t]->pid, snaps[t]->glibc.fragmentation);
	fprintf(f, "# HELP memwatch_glibc_sample_consistent 1 if the walk saw glibc's lists unchanged.\n"
		   "# TYPE memwatch_glibc_sample_consistent gauge\n");
	for (int t = 0; t < n; t++)
		if (snaps[t]->has_glibc)
			fprintf(f, "memwatch_glibc_sample_consistent{pid=\"%d\"} %d\n",
				(int)snaps[t]->pid, snaps[t]->glibc.consistent ? 1 : 0);
}

int expo__write(FILE *f, enum mw_expo fmt, const struct mw_layout *l,
		const struct mw_snapshot *const *snaps, int n)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family *fam = &families[i];

		if (!family_present(fam, l))
			continue;
		header(f, fmt, fam);
		for (int t = 0; t < n; t++)
			target_samples(f, fam, l, snaps[t]);
	}
	if (l->sites)
		site_samples(f, fmt, l, snaps, n);
	if (l->glibc)
		glibc_samples(f, fmt, snaps, n);
	if (fmt == MW_EXPO_OPENMETRICS)
		fputs("# EOF\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
