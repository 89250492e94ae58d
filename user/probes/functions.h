/* SPDX-License-Identifier: GPL-2.0 */
/*
 * functions.h - the functions a SYMBOL (a raw, demangled or glob name:
 * symbols/symmatch.h) names in the objects a target maps.
 */
#ifndef MW_FUNCTIONS_H
#define MW_FUNCTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "process/objects.h"

/* A function a SYMBOL names: its object, symbol and names. */
struct mw_match {
	const struct mw_object *obj;
	const struct mw_sym *sym;
	const struct mw_symname *name;
};

/* Every function @pattern matches, one per address: a name found in both
 * .symtab and .dynsym, or under two aliases, is one function. Their count;
 * free() *@out. */
size_t functions__named(const char *pattern, const struct mw_objects *o,
			struct mw_match **out);
/* The same; and unless a glob, or the executable defines a function of
 * that name whole, every function whose demangled path ends in @pattern
 * at a "::" too; *@by_suffix when none is named whole. How --insert and
 * --remove names are looked up: several functions are refused by the
 * caller, whichever way each was named. */
size_t functions__find(const char *pattern, const struct mw_objects *o,
		       struct mw_match **out, bool *by_suffix);

#endif
