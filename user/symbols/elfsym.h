/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfsym.h - function symbols of one ELF object (.symtab and .dynsym),
 * with the file offset that a uprobe is attached at. Built on libelf; every
 * header and string is bounds-checked, since the target controls the file.
 */
#ifndef MW_ELFSYM_H
#define MW_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mw_sym {
	const char *name;	/* points into the object's string table */
	uint64_t vaddr;		/* st_value */
	uint64_t size;
	uint64_t offset;	/* file offset of vaddr; 0 if not in a segment */
	unsigned char bind;	/* STB_* */
	unsigned char dynamic;	/* from .dynsym */
};

struct mw_elf;

/* Opens @path and reads its function symbols. 0 or -errno
 * (-ENOEXEC: not an ELF object this machine can run). */
int elfsym__open(const char *path, struct mw_elf **out);
void elfsym__close(struct mw_elf *e);

/* True if the object has a .symtab (not stripped), or adopted one. */
bool elfsym__has_symtab(const struct mw_elf *e);
size_t elfsym__count(const struct mw_elf *e);
const struct mw_sym *elfsym__at(const struct mw_elf *e, size_t i);
/* A defined function named exactly @name (.symtab first); NULL if none. */
const struct mw_sym *elfsym__find(const struct mw_elf *e, const char *name);
/* The function containing file offset @offset (a code address in the
 * object, as mapped), and the distance into it; NULL if none. */
const struct mw_sym *elfsym__at_offset(const struct mw_elf *e, uint64_t offset,
				       uint64_t *into);
/* The link-time address of file offset @offset (through the PT_LOAD
 * segments); 0 if it is in none. */
uint64_t elfsym__offset_to_vaddr(const struct mw_elf *e, uint64_t offset);
/* The load bias of a mapping of @e at @start with file offset @offset (a
 * page boundary, maybe below its segment's first byte): an address there
 * minus the bias is its link-time address. *@ok false when no PT_LOAD
 * segment covers that part of the file. */
uint64_t elfsym__bias(const struct mw_elf *e, uint64_t start, uint64_t offset, bool *ok);
/* The file offset of link-time address @vaddr (through the PT_LOAD
 * segments); 0 if it is in none. */
uint64_t elfsym__vaddr_to_offset(const struct mw_elf *e, uint64_t vaddr);
/* The link-time address of the exported data object @name (.dynsym);
 * 0 if there is none. */
uint64_t elfsym__data_vaddr(const struct mw_elf *e, const char *name);
/* The first @len bytes (at most) of the section named @name into @buf:
 * how many, or -ENOENT if the object has no such section. */
long elfsym__section(const struct mw_elf *e, const char *name, void *buf, size_t len);
/* The GNU build-id as lowercase hex in @buf; 0, or -ENOENT if none. */
int elfsym__build_id(const struct mw_elf *e, char *buf, size_t len);
/* Adopts the symbols of @debug (a separate debug file of @e), converting
 * their addresses with @e's segments. 0 or -errno (-ESTALE: the build-ids
 * differ, so it describes another build). */
int elfsym__add_debug(struct mw_elf *e, const char *debug_path);

/* Adopts, when @e has no .symtab, the symbols of its build-id debug file
 * (the first candidate of debugfile.h whose build-id matches); @root is
 * the target's "/proc/PID/root", or NULL. */
void elfsym__adopt_debug(struct mw_elf *e, const char *root);

#endif
