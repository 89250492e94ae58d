// SPDX-License-Identifier: GPL-2.0
/*
 * fields.c - the tables of fields.h: what each figure is called in every
 * output. The order of each table is the order of the CSV columns and of
 * the metric families.
 */
#include <stddef.h>
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
	{ MW_C_LOST_TABLE_FULL, "lost_table_full", NULL, "table_full", NULL, NULL, true },
	{ MW_C_LOST_UNPAIRED, "lost_unpaired", NULL, "unpaired", NULL, NULL, false },
	{ MW_C_LOST_SCOPES, "lost_scopes", NULL, "scopes", NULL, NULL, false },
	{ MW_C_LOST_SITES, "lost_sites", NULL, "sites", NULL, NULL, false },
	{ MW_C_LOST_STACKS, "lost_stacks", NULL, "stacks", NULL, NULL, false },
	{ MW_C_LOST_EVENTS, "lost_events", NULL, "events", NULL, NULL, false },
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
