// SPDX-License-Identifier: GPL-2.0
/*
 * glibclayout.c - glibc's malloc layouts from a libc's DWARF (libdw): finds
 * the file-scope variables main_arena, mp_ and __libc_version, and from
 * their types the members of struct malloc_state, malloc_chunk and
 * malloc_par that the arena walk reads. Only sizes that fit are accepted.
 */
#include <errno.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "sample/glibclayout.h"

#define MAX_STATE_BYTES	65536

/* ------------------------------------------------------------ variables */

struct dw_vars {
	Dwarf_Die main_arena, mp;
	uint64_t main_arena_addr, mp_addr, version_addr;
	bool have_main_arena, have_mp, have_version;
};

/* The address of a global variable: a location that is one DW_OP_addr. */
static bool var_address(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

static void note_var(Dwarf_Die *die, struct dw_vars *v)
{
	const char *name = dwarf_diename(die);
	uint64_t addr;

	if (!name || !var_address(die, &addr))
		return;
	if (!v->have_main_arena && !strcmp(name, "main_arena")) {
		v->main_arena = *die;
		v->main_arena_addr = addr;
		v->have_main_arena = true;
	} else if (!v->have_mp && !strcmp(name, "mp_")) {
		v->mp = *die;
		v->mp_addr = addr;
		v->have_mp = true;
	} else if (!v->have_version && !strcmp(name, "__libc_version")) {
		v->version_addr = addr;
		v->have_version = true;
	}
}

/* Scans the file-scope variables of every compilation unit. */
static void find_vars(Dwarf *dw, struct dw_vars *v)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_child(&cu, &die)) {
			do {
				if (dwarf_tag(&die) == DW_TAG_variable)
					note_var(&die, v);
			} while (!dwarf_siblingof(&die, &die));
		}
		if (v->have_main_arena && v->have_mp && v->have_version)
			return;
		off = next;
	}
}

/* -------------------------------------------------------------- members */

/* @die's DW_AT_type, typedefs and qualifiers peeled. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, &t) && dwarf_peel_type(&t, out) == 0;
}

static bool struct_type(Dwarf_Die *var, Dwarf_Die *out, uint32_t *size, uint32_t max)
{
	int n;

	if (!type_of(var, out) || dwarf_tag(out) != DW_TAG_structure_type)
		return false;
	n = dwarf_bytesize(out);
	if (n <= 0 || (uint32_t)n > max)
		return false;
	*size = (uint32_t)n;
	return true;
}

static bool member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return false;
	if (!dwarf_formudata(&a, off))
		return true;
	/* DWARF 2 style: an expression DW_OP_plus_uconst N */
	if (dwarf_getlocation(&a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_plus_uconst)
		return false;
	*off = ops[0].number;
	return true;
}

/* Member @name of structure @st: offset and size (within @st_size), and
 * its peeled type if @type. 0 or -ENODATA. */
static int member(Dwarf_Die *st, uint32_t st_size, const char *name,
		  struct mw_field *f, Dwarf_Die *type)
{
	Dwarf_Die m, t;
	Dwarf_Word off, size;

	if (dwarf_child(st, &m))
		return -ENODATA;
	do {
		const char *n = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, name))
			continue;
		if (dwarf_hasattr(&m, DW_AT_bit_size) || !member_offset(&m, &off) ||
		    !type_of(&m, &t) || dwarf_aggregate_size(&t, &size) ||
		    size == 0 || off > st_size || size > st_size - off)
			return -ENODATA;
		f->off = (uint32_t)off;
		f->size = (uint32_t)size;
		if (type)
			*type = t;
		return 0;
	} while (!dwarf_siblingof(&m, &m));
	return -ENODATA;
}

static bool is_word(struct mw_field f)
{
	return f.size == 4 || f.size == 8;
}

static bool is_ptr(struct mw_field f)
{
	return f.size == sizeof(uint64_t);
}

static int state_layout(Dwarf_Die *arena_var, struct mw_glibc_layout *l, Dwarf_Die *chunk)
{
	Dwarf_Die st, top_type;
	uint32_t chunk_size;

	if (!struct_type(arena_var, &st, &l->state_size, MAX_STATE_BYTES))
		return -ENODATA;
	l->has_mutex = !member(&st, l->state_size, "mutex", &l->mutex, NULL) &&
		       is_word(l->mutex);
	if (member(&st, l->state_size, "fastbinsY", &l->fastbins, NULL) ||
	    member(&st, l->state_size, "top", &l->top, &top_type) ||
	    member(&st, l->state_size, "bins", &l->bins, NULL) ||
	    member(&st, l->state_size, "next", &l->next, NULL) ||
	    member(&st, l->state_size, "system_mem", &l->system_mem, NULL))
		return -ENODATA;
	if (!is_ptr(l->top) || !is_ptr(l->next) || !is_word(l->system_mem) ||
	    l->fastbins.size % 8 || l->bins.size % 16)
		return -ENODATA;
	l->nfastbins = l->fastbins.size / 8;
	l->nbins = l->bins.size / 16 + 1;	/* bins[NBINS * 2 - 2] */
	if (l->nfastbins > 64 || l->nbins < 2 || l->nbins > 1024)
		return -ENODATA;
	/* the chunk type: mchunkptr top is a pointer to struct malloc_chunk */
	if (dwarf_tag(&top_type) != DW_TAG_pointer_type ||
	    !struct_type(&top_type, chunk, &chunk_size, MW_GLIBC_MAX_CHUNK_HDR))
		return -ENODATA;
	return 0;
}

static int chunk_layout(Dwarf_Die *chunk, struct mw_glibc_layout *l)
{
	uint32_t size = (uint32_t)dwarf_bytesize(chunk);
	struct mw_field fd_nextsize;
	uint32_t end;

	if (member(chunk, size, "mchunk_size", &l->size, NULL) ||
	    member(chunk, size, "fd", &l->fd, NULL) ||
	    member(chunk, size, "bk", &l->bk, NULL) ||
	    member(chunk, size, "fd_nextsize", &fd_nextsize, NULL))
		return -ENODATA;
	if (!is_word(l->size) || !is_ptr(l->fd) || !is_ptr(l->bk))
		return -ENODATA;
	l->min_chunk = fd_nextsize.off;		/* glibc's MIN_CHUNK_SIZE */
	end = l->size.off + l->size.size;
	if (l->fd.off + 8 > end)
		end = l->fd.off + 8;
	if (l->bk.off + 8 > end)
		end = l->bk.off + 8;
	l->chunk_hdr = end;
	/* a bin head is a pseudo-chunk whose fd is bins[2i]: it must lie inside */
	if (l->fd.off > l->bins.off || l->bk.off != l->fd.off + 8 ||
	    l->size.off + l->size.size > l->fd.off || l->min_chunk == 0)
		return -ENODATA;
	return 0;
}

static int par_layout(Dwarf_Die *mp_var, struct mw_glibc_layout *l)
{
	Dwarf_Die st;

	if (!struct_type(mp_var, &st, &l->par_size, MW_GLIBC_MAX_PAR_BYTES))
		return -ENODATA;
	if (member(&st, l->par_size, "n_mmaps", &l->n_mmaps, NULL) ||
	    member(&st, l->par_size, "mmapped_mem", &l->mmapped_mem, NULL) ||
	    member(&st, l->par_size, "mmap_threshold", &l->mmap_threshold, NULL) ||
	    member(&st, l->par_size, "trim_threshold", &l->trim_threshold, NULL))
		return -ENODATA;
	if (!is_word(l->n_mmaps) || !is_word(l->mmapped_mem) ||
	    !is_word(l->mmap_threshold) || !is_word(l->trim_threshold))
		return -ENODATA;
	return 0;
}

/* ------------------------------------------------------------------ API */

int glibclayout__read(Elf *elf, struct mw_glibc_layout *l, struct mw_glibc_vars *out)
{
	struct dw_vars v = { 0 };
	Dwarf_Die chunk;
	Dwarf *dw;
	int err;

	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return -ENOENT;
	find_vars(dw, &v);
	err = -ENODATA;
	if (v.have_main_arena && v.have_mp &&
	    !state_layout(&v.main_arena, l, &chunk) &&
	    !chunk_layout(&chunk, l) && !par_layout(&v.mp, l)) {
		out->main_arena = v.main_arena_addr;
		out->mp = v.mp_addr;
		out->version = v.have_version ? v.version_addr : 0;
		err = 0;
	}
	dwarf_end(dw);
	return err;
}
