// SPDX-License-Identifier: GPL-2.0
/*
 * fields.c - the tables of fields.h: what each figure is called in every
 * output. The order of each table is the order of the CSV columns and of
 * the metric families.
 */
#include <stddef.h>
#include <stdio.h>
#include "export/fields.h"

const struct mw_counter_field mw_counter_fields[] = {
	{ MW_F_LIVE_BYTES, "heap_live_bytes", "memwatch_heap_live_bytes", NULL, "bytes",
	  "Requested bytes of blocks allocated since attach and not yet freed.", true },
	{ MW_F_LIVE_ALLOCS, "heap_live_allocations", "memwatch_heap_live_allocations", NULL, NULL,
	  "Blocks allocated since attach and not yet freed.", true },
	{ MW_C_ALLOC_CALLS, "heap_alloc_calls", "memwatch_heap_allocations", NULL, NULL,
	  "Blocks that became live since attach.", true },
	{ MW_C_ALLOC_BYTES, "heap_alloc_bytes", "memwatch_heap_allocated_bytes", NULL, "bytes",
	  "Requested bytes of blocks that became live since attach.", true },
	{ MW_C_FREE_CALLS, "heap_free_calls", "memwatch_heap_frees", NULL, NULL,
	  "Blocks allocated since attach that were freed.", true },
	{ MW_C_FREE_BYTES, "heap_free_bytes", "memwatch_heap_freed_bytes", NULL, "bytes",
	  "Requested bytes of blocks allocated since attach that were freed.", true },
	{ MW_C_FAILED_CALLS, "heap_failed_calls", "memwatch_heap_failed_calls", NULL, NULL,
	  "Allocator calls that failed (NULL, overflowing size, EINVAL).", true },
	{ MW_C_UNTRACKED_FREES, "heap_untracked_frees", "memwatch_heap_untracked_frees", NULL, NULL,
	  "Frees of blocks allocated before attach (they change nothing).", true },
	/* losses; those of structures stay meaningful without the heap */
	{ MW_C_LOST_TABLE_FULL, "lost_table_full", NULL, "table_full", NULL,
	  "Blocks not recorded because the live-block table was full (--max-live-blocks).", true },
	{ MW_C_LOST_UNPAIRED, "lost_unpaired", NULL, "unpaired", NULL,
	  "Calls whose entry and return could not be paired.", false },
	{ MW_C_LOST_SCOPES, "lost_scopes", NULL, "scopes", NULL,
	  "Structure calls nested deeper than 8 on one thread whose scope a figure needed (a ret delta, a heap-mode insert's bytes).", false },
	{ MW_C_LOST_SITES, "lost_sites", NULL, "sites", NULL,
	  "Allocations not attributed to a site: the site table was full.", false },
	{ MW_C_LOST_STACKS, "lost_stacks", NULL, "stacks", NULL,
	  "Allocations not attributed to a stack: the stack table was full.", false },
	{ MW_C_LOST_EVENTS, "lost_events", NULL, "events", NULL,
	  "Exec, fork or library-load events of the target that found the ring buffer full.", false },
	{ MW_F_STEPPED, "probes_single_stepped", "memwatch_probes_single_stepped", NULL, NULL,
	  "Probes left on an instruction the kernel single-steps (about 45 times the cost of an emulated one).",
	  false },
};
const size_t mw_ncounter_fields = sizeof(mw_counter_fields) / sizeof(mw_counter_fields[0]);

#define G(field) offsetof(struct mw_glibc_sample, field)

const struct mw_glibc_field mw_glibc_fields[] = {
	{ "glibc_arena_bytes", "memwatch_glibc_arena_bytes", "bytes",
	  "Bytes glibc took from the system for its arenas (mallinfo2 arena).", MW_G_U64, G(arena) },
	{ "glibc_in_use_bytes", "memwatch_glibc_in_use_bytes", "bytes",
	  "Bytes in use in the arenas (mallinfo2 uordblks).", MW_G_U64, G(uordblks) },
	{ "glibc_free_bytes", "memwatch_glibc_free_bytes", "bytes",
	  "Free bytes in the arenas (mallinfo2 fordblks).", MW_G_U64, G(fordblks) },
	{ "glibc_mmapped_bytes", "memwatch_glibc_mmapped_bytes", "bytes",
	  "Bytes in mmapped blocks (mallinfo2 hblkhd).", MW_G_U64, G(hblkhd) },
	{ "glibc_arenas", "memwatch_glibc_arenas", NULL,
	  "Arenas in glibc's ring.", MW_G_U64, G(arenas) },
	{ "glibc_free_chunks", "memwatch_glibc_free_chunks", NULL,
	  "Free chunks in the arenas' bins (mallinfo2 ordblks).", MW_G_U64, G(ordblks) },
	{ "glibc_fastbin_chunks", "memwatch_glibc_fastbin_chunks", NULL,
	  "Free chunks in fastbins (mallinfo2 smblks).", MW_G_U64, G(smblks) },
	{ "glibc_fastbin_free_bytes", "memwatch_glibc_fastbin_free_bytes", "bytes",
	  "Free bytes in fastbins (mallinfo2 fsmblks).", MW_G_U64, G(fsmblks) },
	{ "glibc_mmapped_chunks", "memwatch_glibc_mmapped_chunks", NULL,
	  "Blocks served by mmap (mallinfo2 hblks).", MW_G_U64, G(hblks) },
	{ "glibc_releasable_bytes", "memwatch_glibc_releasable_bytes", "bytes",
	  "Bytes at the top of the main arena malloc_trim could release (mallinfo2 keepcost).",
	  MW_G_U64, G(keepcost) },
	{ "glibc_mmap_threshold_bytes", "memwatch_glibc_mmap_threshold_bytes", "bytes",
	  "glibc's current (dynamic) mmap threshold.", MW_G_U64, G(mmap_threshold) },
	{ "glibc_trim_threshold_bytes", "memwatch_glibc_trim_threshold_bytes", "bytes",
	  "glibc's current trim threshold.", MW_G_U64, G(trim_threshold) },
	{ "glibc_fragmentation", "memwatch_glibc_fragmentation_ratio", "ratio",
	  "Free bytes divided by arena bytes.", MW_G_RATIO, G(fragmentation) },
	{ "glibc_consistent", "memwatch_glibc_sample_consistent", NULL,
	  "1 if the walk saw glibc's lists unchanged.", MW_G_FLAG, G(consistent) },
};
const size_t mw_nglibc_fields = sizeof(mw_glibc_fields) / sizeof(mw_glibc_fields[0]);

const struct mw_field mw_target_fields[MW_TF__COUNT] = {
	[MW_TF_TIMESTAMP] = { "timestamp", NULL, NULL,
			      "When the row was sampled: RFC 3339, UTC, with milliseconds.", false },
	[MW_TF_PID] = { "pid", NULL, NULL,
			"The target process; every metric sample carries it as the label pid.", false },
	[MW_TF_MISSED] = { "lost_missed_probes", NULL, NULL,
			   "Probe runs the kernel skipped because a BPF program was already running on that CPU (all targets together).",
			   false },
	[MW_TF_RSS] = { "rss_bytes", "memwatch_rss_bytes", "bytes",
			"Resident set size of the target, from /proc/PID/statm.", false },
	[MW_TF_OVERHEAD] = { "overhead_percent", "memwatch_overhead_ratio", "ratio",
			     "Estimated CPU time the target spent in memwatch's probes over the last interval, as a fraction of one CPU.",
			     false },
	[MW_TF_HEAP_ATTACHED] = { "heap_attached", "memwatch_heap_attached", NULL,
				  "1 while the allocator's probes are attached; 0 under --no-heap or once --max-overhead detached them.",
				  false },
	[MW_TF_HEAP_SINCE] = { "heap_since", "memwatch_heap_since_seconds", "seconds",
			       "Unix time the allocator's probes were last attached: the heap figures count from then.",
			       false },
	[MW_TF_SITES] = { "sites", NULL, NULL, "Allocation sites holding live blocks.", false },
	[MW_TF_SUSPECTS] = { "leak_suspect_sites", NULL, NULL,
			     "Sites whose live bytes grew in each of the last --leak-intervals intervals.",
			     false },
	[MW_TF_TRUNCATED] = { "stacks_truncated", NULL, NULL,
			      "Sites whose stack (--stacks) stopped before a thread's start: at code no unwind table covers, or at the depth limit (64 frames); the frames past it are unknown, and the site still holds its bytes.",
			      false },
	[MW_TF_LOST] = { NULL, "memwatch_lost_events", NULL,
			 "Events not accounted, by reason; non-zero means figures are not exact.", true },
};

const struct mw_field mw_struct_fields[MW_STF__COUNT] = {
	[MW_STF_ELEMENTS] = { "_elements", "memwatch_struct_elements", NULL,
			      "Net change in a structure's elements since attach.", false },
	[MW_STF_BYTES] = { "_bytes", "memwatch_struct_bytes", "bytes",
			   "Live bytes allocated inside a structure's insert functions.", false },
	[MW_STF_ESTIMATED] = { "_estimated_bytes", "memwatch_struct_estimated_bytes", "bytes",
			       "A structure's elements times its static element size (--size).", false },
	[MW_STF_INSERTS] = { "_insert_calls", "memwatch_struct_inserts", NULL,
			     "Calls of a structure's insert functions since attach.", true },
	[MW_STF_REMOVES] = { "_remove_calls", "memwatch_struct_removes", NULL,
			     "Calls of a structure's remove functions since attach.", true },
	[MW_STF_UNWOUND] = { "_unwound_calls", "memwatch_struct_unwound_calls", NULL,
			     "Calls of a structure's insert and remove functions that an exception or panic unwound (counted in the calls, adding no elements).",
			     true },
	[MW_STF_LENGTH] = { "_length", "memwatch_struct_length", NULL,
			    "Elements a structure holds, read from the target's memory (--read; for an integer EXPR, the integer; empty for a struct).",
			    false },
	[MW_STF_RETAINED] = { "_retained_bytes", "memwatch_struct_retained_bytes", "bytes",
			      "Heap bytes a structure read from memory owns (--read): its buffers at their capacity, the blocks its elements own in turn, and each shared block (Arc, Rc, shared_ptr) once.", false },
	[MW_STF_READ_ERRORS] = { "_read_errors", "memwatch_struct_read_errors", NULL,
				 "Walks of a structure's memory that could not finish (--read).", true },
	[MW_STF_READ_COMPLETE] = { "_read_complete", "memwatch_struct_read_complete", NULL,
				   "1 when this interval's walk of the structure finished (--read); else its length and retained bytes are left out (empty in the CSV).",
				   false },
	[MW_STF_ROOTS] = { "_roots", "memwatch_struct_roots", NULL,
			   "Instances of the structure read this interval (--read); figures are their sum.",
			   false },
};

const struct mw_field mw_site_fields[MW_SITE__COUNT] = {
	[MW_SITE_LIVE_BYTES] = { NULL, "memwatch_site_live_bytes", "bytes",
				 "Live bytes allocated at a call site (top N sites).", false },
	[MW_SITE_LIVE_ALLOCS] = { NULL, "memwatch_site_live_allocations", NULL,
				  "Live blocks allocated at a call site (top N sites).", false },
	[MW_SITE_SUSPECT] = { NULL, "memwatch_site_leak_suspect", NULL,
			      "1 if the site's live bytes grew in each of the last K intervals.", false },
	[MW_SITE_INSERT_CALLS] = { NULL, "memwatch_struct_insert_site_calls", NULL,
				   "Calls of a structure's insert functions by call site (top N).", true },
};

bool fields__heap(const struct mw_layout *l, const struct mw_snapshot *s)
{
	return l->heap && s->heap_attached;
}

int64_t fields__counter(const struct mw_counter_field *f, const struct mw_snapshot *s)
{
	if (f->counter == MW_F_LIVE_BYTES)
		return s->live_bytes;
	if (f->counter == MW_F_LIVE_ALLOCS)
		return s->live_allocations;
	if (f->counter == MW_F_STEPPED)
		return (int64_t)s->probes_single_stepped;
	return (int64_t)s->c[f->counter];
}

uint64_t fields__lost(const struct mw_snapshot *s)
{
	uint64_t sum = s->lost_missed;

	for (size_t i = 0; i < mw_ncounter_fields; i++)
		if (mw_counter_fields[i].reason)
			sum += s->c[mw_counter_fields[i].counter];
	return sum;
}

uint64_t fields__glibc(const struct mw_glibc_field *f, const struct mw_glibc_sample *g)
{
	const char *p = (const char *)g + f->offset;

	if (f->kind == MW_G_FLAG)
		return *(const bool *)p;
	return *(const uint64_t *)p;
}

/* ------------------------------------------------------- docs/metrics.md */

static void doc_row(FILE *f, const char *col, const char *metric, const char *labels,
		    bool counter, const char *unit, const char *help)
{
	fprintf(f, "| %s%s%s | ", col ? "`" : "", col ? col : "", col ? "`" : "");
	if (metric)
		fprintf(f, "`%s%s%s` (%s)", metric, counter ? "_total" : "", labels,
			counter ? "counter" : "gauge");
	fprintf(f, " | %s | %s |\n", unit ? unit : "", help ? help : "");
}

static void doc_field(FILE *f, const struct mw_field *d, const char *col, const char *labels)
{
	doc_row(f, col, d->metric, labels, d->counter, d->unit, d->help);
}

void fields__document(FILE *f)
{
	char col[64], labels[64];

	fputs("# memwatch's figures\n\n"
	      "Every CSV column (the JSON API's keys are the same) and every metric family, with\n"
	      "its unit and meaning. Generated by `make docs` from `user/export/fields.c`, where\n"
	      "each figure is named once; `make test` fails when this file is stale.\n\n"
	      "Every metric sample has the labels `pid` and, when known, `comm` (the executable's\n"
	      "file name, whole: not the kernel's 15-character comm). Counters are OpenMetrics\n"
	      "families whose samples end in `_total`.\n\n"
	      "## Columns, in the CSV's order\n\n"
	      "| column | metric | unit | meaning |\n|---|---|---|---|\n", f);
	doc_field(f, &mw_target_fields[MW_TF_TIMESTAMP], mw_target_fields[MW_TF_TIMESTAMP].csv, "");
	doc_field(f, &mw_target_fields[MW_TF_PID], mw_target_fields[MW_TF_PID].csv, "");
	for (size_t i = 0; i < mw_ncounter_fields; i++) {
		const struct mw_counter_field *c = &mw_counter_fields[i];

		snprintf(labels, sizeof(labels), "{reason=\"%s\"}", c->reason ? c->reason : "");
		if (c->metric)
			doc_row(f, c->csv, c->metric, "", c->counter >= 0, c->unit, c->help);
		else
			doc_row(f, c->csv, mw_target_fields[MW_TF_LOST].metric, labels, true, NULL,
				c->help);
	}
	for (int k = MW_TF_MISSED; k < MW_TF_LOST; k++) {
		const struct mw_field *d = &mw_target_fields[k];

		if (k == MW_TF_MISSED)
			doc_row(f, d->csv, mw_target_fields[MW_TF_LOST].metric,
				"{reason=\"missed_probes\"}", true, NULL, d->help);
		else
			doc_field(f, d, d->csv, "");
	}
	for (size_t i = 0; i < mw_nglibc_fields; i++) {
		const struct mw_glibc_field *g = &mw_glibc_fields[i];

		doc_row(f, g->csv, g->metric, "", false, g->unit, g->help);
	}
	for (int k = 0; k < MW_STF__COUNT; k++) {
		snprintf(col, sizeof(col), "NAME%s", mw_struct_fields[k].csv);
		doc_field(f, &mw_struct_fields[k], col, "{struct=\"NAME\"}");
	}
	fputs("\n`sites` and `leak_suspect_sites` are there with site tracking (`--top`,\n"
	      "`--folded`, `--pprof`, `--stacks`, `-f table`); `NAME_*` once per structure NAME\n"
	      "(`NAME_estimated_bytes` with `--size`); the heap's columns are empty under\n"
	      "`--no-heap` and while the budget keeps the allocator's probes detached.\n\n"
	      "## Metrics without a column\n\n"
	      "| metric | unit | meaning |\n|---|---|---|\n", f);
	for (int k = 0; k < MW_SITE__COUNT; k++) {
		const struct mw_field *d = &mw_site_fields[k];

		fprintf(f, "| `%s%s{%ssite=\"...\"}` (%s) | %s | %s |\n", d->metric,
			d->counter ? "_total" : "", k == MW_SITE_INSERT_CALLS ? "struct=\"NAME\"," : "",
			d->counter ? "counter" : "gauge", d->unit ? d->unit : "", d->help);
	}
}
