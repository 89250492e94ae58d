/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inlined.h - where DWARF says the compiler copied a function into its
 * callers (DW_TAG_inlined_subroutine): calls there run no probe. Read
 * with elfutils' libdw, from the object's own DWARF or its build-id
 * debug file.
 */
#ifndef MW_INLINED_H
#define MW_INLINED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "memwatch.h"

/* One copy of an inlined function, where a probe can count its calls. */
struct mw_inlined_copy {
	uint64_t entry;		/* link-time address of its first instruction */
	char origin[256];	/* the function copied: linkage name, or name */
	char caller[256];	/* the out-of-line function it sits in: same */
	int8_t arg[MW_NARGS];	/* enum mw_reg of parameter n + 1 at entry;
				 * -1 where DWARF gives no register */
};

/*
 * The functions that hold an inlined copy of the function named @name
 * (its DW_AT_name, or for C++ and Rust its DW_AT_linkage_name) in the
 * object at @path, as "a, b, c" in @buf (the nearest enclosing function
 * of each copy, each named once; at most a few, then "and N more").
 * Returns how many, 0 when there is no DWARF or no copy, or -1 when the
 * DWARF cannot be read.
 */
int inlined__callers(const char *path, const char *name, char *buf, size_t len);

/*
 * Every inlined copy, in the object at @path, of a function @want accepts
 * by its linkage name (or its name when it has none), into a new array
 * *@out (free() it). The entry is DW_AT_entry_pc, else DW_AT_low_pc, else
 * the start of the first range listed, as gdb takes it. Returns how
 * many: 0 with no DWARF or no copy, -1 out of memory.
 */
long inlined__copies(const char *path, bool (*want)(const char *name, void *ctx), void *ctx,
		     struct mw_inlined_copy **out);

#endif
