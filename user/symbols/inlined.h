/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inlined.h - where DWARF says the compiler copied a function into its
 * callers (DW_TAG_inlined_subroutine): calls there run no probe. Read
 * with elfutils' libdw, from the object's own DWARF or its build-id
 * debug file.
 */
#ifndef MW_INLINED_H
#define MW_INLINED_H

#include <stddef.h>

/*
 * The functions that hold an inlined copy of the function named @name
 * (its DW_AT_name, or for C++ and Rust its DW_AT_linkage_name) in the
 * object at @path, as "a, b, c" in @buf (the nearest enclosing function
 * of each copy, each named once; at most a few, then "and N more").
 * Returns how many, 0 when there is no DWARF or no copy, or -1 when the
 * DWARF cannot be read.
 */
int inlined__callers(const char *path, const char *name, char *buf, size_t len);

#endif
