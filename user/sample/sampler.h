/* SPDX-License-Identifier: GPL-2.0 */
/* sampler.h - read the BPF maps of one target into a snapshot. */
#ifndef MW_SAMPLER_H
#define MW_SAMPLER_H

#include "snapshot.h"
#include "target.h"

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

#endif
