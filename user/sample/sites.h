/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites.h - where the memory comes from: live bytes and blocks per
 * allocation site (the address an outermost allocator call returns to),
 * ranked, named, and watched for steady growth; and which call sites grow
 * each structure. Kept per target across intervals.
 */
#ifndef MW_SITES_H
#define MW_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "process/target.h"

#define MW_MAX_LEAK_INTERVALS 60

struct memwatch_bpf;
struct mw_symbolizer;

struct mw_site_row {
	uint64_t addr;		/* return address in the target */
	int64_t live_bytes, live_blocks;
	uint64_t allocs;	/* blocks allocated there since attach */
	uint64_t alloc_bytes;	/* their bytes */
	bool suspect;		/* live bytes grew in each of the last K intervals */
	const char *name;	/* "func+0x1a (obj)" */
	const char *frame;	/* "obj`func", for folded stacks */
	uint32_t stack;		/* --stacks: stack id + 1; 0: none */
	uint64_t *frames;	/* --stacks: its frames, leaf first, owned */
	int nframes;
	char *folded;		/* --stacks: "root;...;leaf" frames, owned */
	char *label;		/* --stacks: name with "#stack", owned */
};

/* A site's blocks charged to one structure (the rows sum these). */
struct mw_site_part {
	uint32_t charge;	/* structure id + 1 */
	uint64_t addr;
	const uint64_t *frames;	/* the row's, leaf first; NULL: addr alone */
	int nframes;
	int64_t live_bytes, live_blocks;
	uint64_t allocs, alloc_bytes;
};

struct mw_insert_row {
	uint64_t addr;
	int struct_id;
	uint64_t calls;
	const char *name;
};

struct mw_history {
	uint64_t addr;
	uint32_t stack;		/* with --stacks, one history per stack of a site */
	int64_t bytes[MW_MAX_LEAK_INTERVALS + 1];	/* oldest first */
	int n;
};

struct mw_sites {
	struct mw_symbolizer *sym;
	int leak_intervals;	/* K */
	struct mw_site_row *rows;	/* every site with blocks, most live bytes first */
	size_t nrows;
	struct mw_site_part *parts;	/* the rows' blocks charged to structures */
	size_t nparts;
	struct mw_insert_row *ins;	/* structure insert call sites, most calls first */
	size_t nins;
	size_t suspects;
	struct mw_history *hist;	/* sorted by site and stack after each rank */
	size_t nhist, caphist;
	bool short_stacks;	/* most stacks are 2 frames or fewer */
	size_t truncated;	/* stacks whose walk stopped before a thread's
				 * start (runtime.h) */
};

int sites__init(struct mw_sites *s, const struct mw_target *t, int leak_intervals);
void sites__free(struct mw_sites *s);
/* Reads the target's sites from the BPF maps and ranks them. 0 or -errno. */
int sites__sample(struct mw_sites *s, struct memwatch_bpf *skel, uint32_t slot);
/* The step of sites__sample after the maps are read, over plain rows: adds
 * each row's live bytes to its site's history, marks the rows that grew in
 * each of the last K intervals (s->suspects counts them), then sorts the
 * rows, most live bytes first, ties by address. */
void sites__rank(struct mw_sites *s);

#endif
