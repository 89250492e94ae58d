/* SPDX-License-Identifier: GPL-2.0 */
/*
 * structs.h - symbol resolution for user-named structures: each --insert
 * and --remove symbol is found in the target's executable or a library it
 * maps, and added to the probe table with its structure's cookie.
 */
#ifndef MW_STRUCTS_H
#define MW_STRUCTS_H

#include <stdbool.h>
#include "cli.h"
#include "probes/probes.h"
#include "probes/roots.h"
#include "process/objects.h"
#include "process/target.h"

/* What a symbol found in none of the objects means: an error; a line
 * saying it is probed once a library that defines it is loaded (memwatch
 * sees every object the loader maps); or nothing, for objects loaded
 * later (dlopen), which need not define every symbol. */
enum mw_missing { MW_MISSING_FAILS, MW_MISSING_WAITS, MW_MISSING_QUIET };

/* A function a SYMBOL names: its object, symbol and names. */
struct mw_match {
	const struct mw_object *obj;
	const struct mw_sym *sym;
	const struct mw_symname *name;
};

/* Every function @pattern matches, one per address: a name found in both
 * .symtab and .dynsym, or under two aliases, is one function. Their count;
 * free() *@out. */
size_t structs__matches(const char *pattern, const struct mw_objects *o,
			struct mw_match **out);
/* The same; and unless a glob, or the executable defines a function of
 * that name whole, every function whose demangled path ends in @pattern
 * at a "::" too; *@by_suffix when none is named whole. How --insert and
 * --remove names are looked up: several functions are refused by the
 * caller, whichever way each was named. */
size_t structs__find(const char *pattern, const struct mw_objects *o,
		     struct mw_match **out, bool *by_suffix);

/* Adds every structure probe, and the drops of the types of --read roots
 * that are parameters, found into @roots. Probes added, or -1 after one
 * message. */
int structs__resolve(const struct mw_target *t, const struct mw_objects *objs,
		     const struct mw_options *opts, enum mw_missing missing,
		     struct mw_root_fns *roots, struct mw_probe_table *tab);

#endif
