/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - one format-neutral sample of one target, taken once per
 * interval from the BPF maps. Every output format is a writer over it.
 */
#ifndef MW_SNAPSHOT_H
#define MW_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include "options.h"
#include "memwatch.h"
#include "sample/glibcview.h"
#include "sample/sites.h"

struct mw_struct_sample {
	int64_t elements;	/* net change since attach */
	int64_t bytes;		/* charged bytes still live */
	int64_t estimated_bytes;	/* elements * --size */
	uint64_t insert_calls, remove_calls;
	uint64_t unwound_calls;	/* of those, unwound by an exception or panic */
	uint64_t alloc_bytes;	/* bytes ever charged (profiles) */
	uint64_t hits[MW_HIT__COUNT];	/* its probes' hits, by enum mw_hit */
	bool detached;		/* its probes went (--max-overhead): no figures */
	/* --read: what this interval's walk of its memory found */
	int64_t length;		/* its elements, or the integer EXPR names */
	uint64_t retained_bytes;	/* heap bytes it owns */
	uint64_t read_errors;	/* walks that failed, since attach */
	bool read_complete;	/* the walk finished: length and retained hold */
	bool length_known;	/* a container or integer: a struct has none */
	uint32_t roots;		/* instances read (their figures summed) */
	uint64_t roots_lost;	/* instances the roots table had no room for */
};

struct mw_snapshot {
	struct timespec when;		/* CLOCK_REALTIME */
	pid_t pid;
	char comm[256];			/* the process's name, "" if unknown */
	uint64_t c[MW_C__COUNT];	/* enum mw_counter, summed over CPUs */
	uint64_t lost_missed;		/* probe runs the kernel skipped */
	int64_t live_bytes;		/* alloc_bytes - free_bytes */
	int64_t live_allocations;	/* alloc_calls - free_calls */
	uint64_t rss_bytes;
	uint64_t probes_single_stepped;	/* probes on instructions the kernel single-steps */
	double overhead_percent;	/* estimated CPU in the probes, % of one */
	bool heap_attached;		/* the allocator's probes are in: heap_*,
					 * structures' bytes and sites mean something */
	struct timespec heap_since;	/* CLOCK_REALTIME, when they went in */
	int nstructs;
	struct mw_struct_sample s[MW_MAX_STRUCTS];
	const struct mw_sites *sites;	/* NULL unless sites are tracked */
	struct mw_glibc_sample glibc;	/* glibc's own figures, read from outside */
	bool has_glibc;
};

/* What every row of a feed holds: fixed at start, before the header. */
struct mw_layout {
	const struct mw_struct_spec *structs;
	int nstructs;
	bool heap;		/* allocator probes attached */
	bool sites;		/* allocation sites tracked */
	int top;		/* sites listed */
};

#endif
