// SPDX-License-Identifier: GPL-2.0
/*
 * live.c - the live-block table's user-space side. The BPF programs keep
 * it (open addressing in an array, struct mw_live: a main part and a
 * spill part, and a bit for each region of the main part that spilled);
 * memwatch sizes it before load and, when a target's figures start again (execve, a budget's
 * detach), marks that target's entries freed: in place, through the array
 * mapped into memwatch (one pass over its memory, where a syscall an
 * entry would take seconds), with the same compare-and-swap the programs
 * use, so that an entry a program claims meanwhile is left alone.
 */
#include <errno.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "memwatch.h"		/* before the skeleton: its types */
#include "memwatch.skel.h"
#include "sample/live.h"

uint64_t live__entries(uint32_t max_blocks)
{
	uint64_t want = (uint64_t)max_blocks + max_blocks / 4, n = 2;	/* a shift below 64 */

	while (n < want)
		n <<= 1;
	return n;
}

uint64_t live__spill_entries(uint64_t entries)
{
	return entries >= 8 ? entries / 4 : 2;
}

static uint32_t log2_of(uint64_t n)
{
	uint32_t bits = 0;

	while ((1ull << bits) < n)
		bits++;
	return bits;
}

void live__size(struct memwatch_bpf *skel, uint32_t max_blocks)
{
	uint64_t n = live__entries(max_blocks), spill = live__spill_entries(n);
	uint64_t words = n / ((uint64_t)MW_LIVE_REGION * 64);

	bpf_map__set_max_entries(skel->maps.live, (uint32_t)(n + spill));
	bpf_map__set_max_entries(skel->maps.spills, words ? (uint32_t)words : 1);
	skel->rodata->live_mask = (uint32_t)(n - 1);
	skel->rodata->live_shift = 64 - log2_of(n);
	skel->rodata->spill_mask = (uint32_t)(spill - 1);
	skel->rodata->spill_shift = 64 - log2_of(spill);
}

int live__forget(struct memwatch_bpf *skel, uint32_t slot)
{
	uint64_t n = bpf_map__max_entries(skel->maps.live);
	size_t len = n * sizeof(struct mw_live);
	struct mw_live *t;

	t = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(skel->maps.live), 0);
	if (t == MAP_FAILED)
		return -errno;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = __atomic_load_n(&t[i].key, __ATOMIC_RELAXED);

		if (k && k != MW_LIVE_GONE && k != MW_LIVE_CLEARING && MW_BLOCK_KEY_SLOT(k) == slot)
			__atomic_compare_exchange_n(&t[i].key, &k, MW_LIVE_GONE, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	munmap(t, len);
	return 0;
}
