/* SPDX-License-Identifier: GPL-2.0 */
/* sampler.h - read the BPF maps of one target into a snapshot. */
#ifndef MW_SAMPLER_H
#define MW_SAMPLER_H

#include "sample/snapshot.h"
#include "process/target.h"

struct memwatch_bpf;

struct mw_sampler {
	struct memwatch_bpf *skel;
	int ncpus;
	void *buf;		/* one per-CPU value set */
	size_t buf_size;
};

int sampler__init(struct mw_sampler *s, struct memwatch_bpf *skel);
void sampler__free(struct mw_sampler *s);
/* Fills @out for @t with @nstructs structures. 0 or -errno. */
int sampler__read(struct mw_sampler *s, const struct mw_target *t,
		  const struct mw_layout *layout, struct mw_snapshot *out);

/* Forgets @t's live blocks and sites and zeroes its counters (after
 * execve). */
int sampler__reset(struct mw_sampler *s, const struct mw_target *t, int nstructs);

/*
 * The heap figures of a target whose allocator probes went in again
 * (--max-overhead, SIGUSR1) start from that moment: its live blocks and
 * sites are forgotten, and what the counters held then is subtracted
 * from every later sample. Structures' element counts go on.
 */
struct mw_heap_base {
	uint64_t c[MW_C__COUNT];		/* heap counters only */
	int64_t struct_bytes[MW_MAX_STRUCTS];
	uint64_t struct_alloc_bytes[MW_MAX_STRUCTS];
};
/* Forgets @t's live blocks and allocation sites (not its structures'
 * insert sites). 0 or -errno. */
int sampler__forget_heap(struct mw_sampler *s, const struct mw_target *t);
/* @b from @raw, a sample taken without a base. */
void sampler__base(struct mw_heap_base *b, const struct mw_snapshot *raw);
/* Subtracts @b from @o's heap figures. */
void sampler__rebase(struct mw_snapshot *o, const struct mw_heap_base *b);

#endif
