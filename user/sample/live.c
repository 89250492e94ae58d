// SPDX-License-Identifier: GPL-2.0
/*
 * live.c - the live-block table's user-space side. The BPF programs keep
 * it (open addressing in an array, struct mw_live); memwatch sizes it
 * before load and, when a target's figures start again (execve, a budget's
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

void live__size(struct memwatch_bpf *skel, uint32_t max_blocks)
{
	uint64_t n = live__entries(max_blocks);
	uint32_t bits = 0;

	while ((1ull << bits) < n)
		bits++;
	bpf_map__set_max_entries(skel->maps.live, (uint32_t)n);
	skel->rodata->live_mask = (uint32_t)(n - 1);
	skel->rodata->live_shift = 64 - bits;
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
