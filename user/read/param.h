/* SPDX-License-Identifier: GPL-2.0 */
/*
 * param.h - a --read root that is a parameter of the structure's insert
 * or remove function ('self.dag'): the function's DWARF subprogram, found
 * by its address, and the parameter by its name: which integer register
 * it arrives in at the entry (where the probe reads it), and the type it
 * points at (whose drop ends an instance).
 */
#ifndef MW_PARAM_H
#define MW_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

struct mw_param {
	int argno;		/* 1 to 6: System V's rdi, rsi, rdx, rcx, r8, r9 */
	Dwarf_Die die;		/* the formal parameter (valid while the
				 * Dwfl it came from is open) */
	char pointee[256];	/* the type it points at, qualified as the
				 * demangler writes it ("node::State") */
};

/* Whether @name can be a parameter's name: one identifier, no path. */
bool param__is_name(const char *name);

/*
 * Finds the parameter @name of the function at link-time address @vaddr
 * in @mod: 1 with @out filled; 0 if the function has none of that name
 * (or no DWARF); -1 with why in @err: it has, but not as a pointer or
 * reference arriving in a register memwatch can read at the entry.
 */
int param__lookup(Dwfl_Module *mod, uint64_t vaddr, const char *name, struct mw_param *out,
		  char *err, size_t len);

/* The same, opening the object at @path for it. */
int param__find(const char *path, uint64_t vaddr, const char *name, struct mw_param *out,
		char *err, size_t len);

#endif
