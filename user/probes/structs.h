/* SPDX-License-Identifier: GPL-2.0 */
/*
 * structs.h - symbol resolution for user-named structures: each --insert
 * and --remove symbol is found in the target's executable or a library it
 * maps, and added to the probe table with its structure's cookie.
 */
#ifndef MW_STRUCTS_H
#define MW_STRUCTS_H

#include <stdbool.h>
#include "options.h"
#include "probes/probes.h"
#include "probes/roots.h"
#include "process/objects.h"
#include "process/target.h"

/* What a symbol found in none of the objects means: an error; a line
 * saying it is probed once a library that defines it is loaded (memwatch
 * sees every object the loader maps); or nothing, for objects loaded
 * later (dlopen), which need not define every symbol. */
enum mw_missing { MW_MISSING_FAILS, MW_MISSING_WAITS, MW_MISSING_QUIET };

/* Adds every structure probe, and the drops of the types of --read roots
 * that are parameters, found into @roots. Probes added, or -1 after one
 * message. */
int structs__resolve(const struct mw_target *t, const struct mw_objects *objs,
		     const struct mw_options *opts, enum mw_missing missing,
		     struct mw_root_fns *roots, struct mw_probe_table *tab);

#endif
