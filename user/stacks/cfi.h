/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi.h - an object's unwind table, built from its call-frame information
 * (.eh_frame, found through PT_GNU_EH_FRAME's search table; .debug_frame
 * in an object that has no .eh_frame): for each
 * range of instruction addresses, where the caller's frame is. What a
 * stack walk needs on x86-64, and nothing more: the canonical frame
 * address (CFA) as %rsp or %rbp plus an offset (or the PLT's rule), the
 * return address at CFA-8, and where the caller's %rbp was saved. Read
 * with elfutils' libdw (dwarf_cfi_addrframe), which interprets the CFI
 * programs; the table is ours, compact and sorted, so that a walker (user
 * space here, BPF next) finds a row by binary search.
 */
#ifndef MW_CFI_H
#define MW_CFI_H

#include <stddef.h>
#include <stdint.h>

enum mw_cfa {
	MW_CFA_NONE,	/* no CFI covers these addresses: the walk stops */
	MW_CFA_RSP,	/* CFA = %rsp + off */
	MW_CFA_RBP,	/* CFA = %rbp + off */
	MW_CFA_PLT,	/* a PLT entry: %rsp + off, 8 more once %rip & 15
			 * reaches plt (its push has run) */
	MW_CFA_END,	/* the return address is undefined: the outermost
			 * frame (_start, a thread's start) */
	MW_CFA_OTHER,	/* a rule a walker cannot follow (an expression) */
};

struct mw_cfi_row {
	uint64_t pc;		/* link-time address where the row starts; it
				 * ends where the next row starts */
	int32_t off;		/* CFA's offset */
	int16_t rbp;		/* the caller's %rbp is saved at CFA + rbp;
				 * 0: %rbp is the caller's own */
	uint8_t kind;		/* enum mw_cfa */
	uint8_t plt;		/* MW_CFA_PLT: the %rip & 15 from which the
				 * push has run */
};

struct mw_cfi {
	struct mw_cfi_row *rows;	/* sorted by pc, none the same as the one before */
	size_t n;
};

/* Builds the table of the ELF file at @path. 0, -ENOENT when it has no
 * .eh_frame search table and no .debug_frame, -ENOTSUP for a search table encoded otherwise
 * than every linker writes it, -ENOMEM, or -EINVAL for a malformed file. */
int cfi__build(const char *path, struct mw_cfi *out);
void cfi__free(struct mw_cfi *t);
/* The row that covers link-time address @pc; NULL when none does (or it
 * is a MW_CFA_NONE gap). */
const struct mw_cfi_row *cfi__find(const struct mw_cfi *t, uint64_t pc);

#endif
