/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copies.h - structure functions the compiler copied into their callers
 * (DW_TAG_inlined_subroutine): a probe at each copy's entry, as DWARF
 * gives it, so calls there count as calls of the function do.
 */
#ifndef MW_COPIES_H
#define MW_COPIES_H

#include <stdbool.h>
#include <stddef.h>
#include "options.h"
#include "probes/probes.h"
#include "process/objects.h"
#include "process/target.h"

struct mw_match;

/*
 * Probes the inlined copies, in @obj, of the function @m names (@n of
 * its symbols: the function and its clones), or, with no symbol (@m
 * NULL), of the one function --insert/--remove @f names by the rules of
 * symmatch.h. What counts there: calls, and the delta one or argN where
 * DWARF gives the argument's register at the copy's entry; never ret,
 * and never a scope (bytes are not charged). Says on stderr what it
 * probed. Returns how many copies, 0 if none, -1 after one message.
 */
int copies__probe(const struct mw_target *t, const struct mw_func_spec *f,
		  const struct mw_object *obj, const struct mw_match *m, size_t n, bool heap,
		  struct mw_probe_table *tab);

#endif
