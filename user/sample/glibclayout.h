/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibclayout.h - glibc's malloc structures as the arena walk needs them,
 * read from a libc's DWARF with elfutils' libdw, never hard-coded: members
 * of struct malloc_state, malloc_chunk and malloc_par (offset and size, each
 * checked to lie inside its structure), and the link-time addresses of
 * main_arena, mp_ and __libc_version.
 */
#ifndef MW_GLIBCLAYOUT_H
#define MW_GLIBCLAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <libelf.h>

/* A layout read by glibclayout__read keeps par_size and chunk_hdr within
 * these, so a reader may use buffers of this size. */
#define MW_GLIBC_MAX_PAR_BYTES	4096
#define MW_GLIBC_MAX_CHUNK_HDR	64

struct mw_field {
	uint32_t off, size;
};

/* What the walk needs to know of glibc's structures, all from DWARF. */
struct mw_glibc_layout {
	uint32_t state_size, par_size;
	struct mw_field mutex, fastbins, top, bins, next, system_mem; /* malloc_state */
	struct mw_field size, fd, bk;		/* malloc_chunk */
	uint32_t min_chunk;			/* offsetof(malloc_chunk, fd_nextsize) */
	uint32_t chunk_hdr;			/* bytes read per chunk */
	struct mw_field n_mmaps, mmapped_mem, mmap_threshold, trim_threshold; /* malloc_par */
	uint32_t nfastbins, nbins;		/* nbins as glibc's NBINS */
	bool has_mutex;
};

/* Link-time addresses of the variables the view reads. */
struct mw_glibc_vars {
	uint64_t main_arena, mp;
	uint64_t version;			/* __libc_version; 0: not described */
};

/* The layouts and addresses from @elf's DWARF (@elf's build is the
 * caller's to check). 0; -ENOENT: @elf has no DWARF; -ENODATA: DWARF
 * without glibc's malloc in it (no main_arena or mp_, or structures that
 * do not hold together). On failure *@l may be partly written and *@v is
 * untouched. */
int glibclayout__read(Elf *elf, struct mw_glibc_layout *l, struct mw_glibc_vars *v);

#endif
