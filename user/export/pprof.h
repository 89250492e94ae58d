/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof.h - heap profiles in pprof's profile.proto, gzipped, as Go's
 * /debug/pprof/heap serves them: sample types alloc_objects/count,
 * alloc_space/bytes, inuse_objects/count, inuse_space/bytes; period 1
 * (space/bytes), since memwatch's figures are exact, not sampled. The
 * encoding is protobuf-c's, from the profile.proto Debian's
 * golang-github-google-pprof-dev installs; the gzip is zlib's.
 */
#ifndef MW_PPROF_H
#define MW_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include "symbols/symbolizer.h"

/* One sample: a site (or a stack of one, leaf first) in one target. */
struct mw_pprof_sample {
	int pid;
	const uint64_t *addrs;	/* leaf first; NULL with @pseudo */
	size_t naddrs;
	const char *pseudo;	/* a location of no address: "[unattributed]" */
	int64_t alloc_objects, alloc_space, inuse_objects, inuse_space;
};

/* Which sample type a viewer shows first: Go's heap and allocs. */
enum mw_pprof_kind {
	MW_PPROF_HEAP,		/* inuse_space */
	MW_PPROF_ALLOCS,	/* alloc_space */
	MW_PPROF__KINDS,
};

/* Says where @addr of target @pid is (mapping, function, line). */
typedef void mw_pprof_where_fn(void *ctx, int pid, uint64_t addr, struct mw_where *out);

/*
 * The gzipped profile of @n samples, taken at @time_nanos (Unix time), in
 * @out[kind] (malloc'd) and @len[kind] for each kind: the same profile
 * with another sample type first. Locations are one per (pid, address),
 * mappings one per (pid, mapping start), functions one per (name, file);
 * each sample is labelled with its pid. 0, or -ENOMEM.
 */
int pprof__build(const struct mw_pprof_sample *v, size_t n, int64_t time_nanos,
		 mw_pprof_where_fn *where, void *ctx, uint8_t *out[MW_PPROF__KINDS],
		 size_t len[MW_PPROF__KINDS]);

#endif
