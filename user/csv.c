// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - the CSV writer. Fields are numbers and a timestamp, and
 * structure names are [A-Za-z_][A-Za-z0-9_]*, so no field ever needs
 * RFC 4180 quoting. Heap columns are empty, not 0, under --no-heap: no
 * figure is better than a false one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include "csv.h"

/* Heap columns after timestamp and pid, with the counter each shows. */
static const struct {
	const char *name;
	int counter;		/* enum mw_counter, or one of the below */
} heap_cols[] = {
	{ "heap_live_bytes",		-1 },
	{ "heap_live_allocations",	-2 },
	{ "heap_alloc_calls",		MW_C_ALLOC_CALLS },
	{ "heap_alloc_bytes",		MW_C_ALLOC_BYTES },
	{ "heap_free_calls",		MW_C_FREE_CALLS },
	{ "heap_free_bytes",		MW_C_FREE_BYTES },
	{ "heap_failed_calls",		MW_C_FAILED_CALLS },
	{ "heap_untracked_frees",	MW_C_UNTRACKED_FREES },
	{ "lost_table_full",		MW_C_LOST_TABLE_FULL },
	{ "lost_unpaired",		MW_C_LOST_UNPAIRED },
	{ "lost_scopes",		MW_C_LOST_SCOPES },
	{ "lost_sites",			MW_C_LOST_SITES },
	{ "lost_stacks",		MW_C_LOST_STACKS },
};
#define NHEAP (sizeof(heap_cols) / sizeof(heap_cols[0]))

/* glibc's own figures, as mallinfo2 names them, read from outside */
static const char *const glibc_cols[] = {
	"glibc_arena_bytes", "glibc_in_use_bytes", "glibc_free_bytes",
	"glibc_mmapped_bytes", "glibc_arenas", "glibc_free_chunks",
	"glibc_fastbin_chunks", "glibc_fastbin_free_bytes", "glibc_mmapped_chunks",
	"glibc_releasable_bytes", "glibc_mmap_threshold_bytes",
	"glibc_trim_threshold_bytes", "glibc_fragmentation", "glibc_consistent",
};
#define NGLIBC (sizeof(glibc_cols) / sizeof(glibc_cols[0]))

static void glibc_fields(FILE *f, const struct mw_snapshot *s)
{
	const struct mw_glibc_sample *g = &s->glibc;
	const uint64_t v[] = {
		g->arena, g->uordblks, g->fordblks, g->hblkhd, g->arenas, g->ordblks,
		g->smblks, g->fsmblks, g->hblks, g->keepcost, g->mmap_threshold,
		g->trim_threshold,
	};

	if (!s->has_glibc) {
		for (size_t i = 0; i < NGLIBC; i++)
			fputc(',', f);
		return;
	}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fprintf(f, ",%" PRIu64, v[i]);
	fprintf(f, ",%.6f,%d", g->fragmentation, g->consistent ? 1 : 0);
}

void csv__timestamp(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char sec[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", sec, ts->tv_nsec / 1000000);
}

static int finish(FILE *f)
{
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int csv__write_header(FILE *f, const struct mw_layout *l)
{
	fputs("timestamp,pid", f);
	for (size_t i = 0; i < NHEAP; i++)
		fprintf(f, ",%s", heap_cols[i].name);
	fputs(",lost_missed_probes,rss_bytes", f);
	if (l->sites)
		fputs(",sites,leak_suspect_sites", f);
	for (size_t i = 0; l->glibc && i < NGLIBC; i++)
		fprintf(f, ",%s", glibc_cols[i]);
	for (int i = 0; i < l->nstructs; i++) {
		const char *n = l->structs[i].name;

		fprintf(f, ",%s_elements,%s_bytes", n, n);
		if (l->structs[i].size)
			fprintf(f, ",%s_estimated_bytes", n);
		fprintf(f, ",%s_insert_calls,%s_remove_calls", n, n);
	}
	fputc('\n', f);
	return finish(f);
}

static void heap_field(FILE *f, const struct mw_layout *l,
		       const struct mw_snapshot *s, int counter)
{
	if (!l->heap)
		fputc(',', f);
	else if (counter == -1)
		fprintf(f, ",%" PRId64, s->live_bytes);
	else if (counter == -2)
		fprintf(f, ",%" PRId64, s->live_allocations);
	else
		fprintf(f, ",%" PRIu64, s->c[counter]);
}

int csv__write_row(FILE *f, const struct mw_layout *l,
		   const struct mw_snapshot *s)
{
	char ts[48];

	csv__timestamp(&s->when, ts, sizeof(ts));
	fprintf(f, "%s,%d", ts, (int)s->pid);
	for (size_t i = 0; i < NHEAP; i++) {
		int c = heap_cols[i].counter;

		/* lost counters for structures stay meaningful without heap */
		if (c == MW_C_LOST_UNPAIRED || c == MW_C_LOST_SCOPES || c == MW_C_LOST_SITES ||
		    c == MW_C_LOST_STACKS)
			fprintf(f, ",%" PRIu64, s->c[c]);
		else
			heap_field(f, l, s, c);
	}
	fprintf(f, ",%" PRIu64 ",%" PRIu64, s->lost_missed, s->rss_bytes);
	if (l->sites)
		fprintf(f, ",%zu,%zu", s->sites ? s->sites->nrows : 0,
			s->sites ? s->sites->suspects : 0);
	if (l->glibc)
		glibc_fields(f, s);
	for (int i = 0; i < l->nstructs; i++) {
		const struct mw_struct_sample *ss = &s->s[i];

		fprintf(f, ",%" PRId64 ",", ss->elements);
		if (l->heap)
			fprintf(f, "%" PRId64, ss->bytes);
		if (l->structs[i].size)
			fprintf(f, ",%" PRId64, ss->estimated_bytes);
		fprintf(f, ",%" PRIu64 ",%" PRIu64, ss->insert_calls, ss->remove_calls);
	}
	fputc('\n', f);
	return finish(f);
}
