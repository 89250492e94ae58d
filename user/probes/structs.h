/* SPDX-License-Identifier: GPL-2.0 */
/*
 * structs.h - symbol resolution for user-named structures: each --insert
 * and --remove symbol is found in the target's executable or a library it
 * maps, and added to the probe table with its structure's cookie.
 */
#ifndef MW_STRUCTS_H
#define MW_STRUCTS_H

#include "cli.h"
#include "probes.h"
#include "objects.h"
#include "target.h"

/* Adds every structure probe. Probes added, or -1 after one message. */
int structs__resolve(const struct mw_target *t, const struct mw_objects *objs,
		     const struct mw_options *opts, struct mw_probe_table *tab);

#endif
