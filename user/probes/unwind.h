/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.h - what memwatch knows of the target's exception runtime: its
 * personality routines, probed to learn which frame handles an exception
 * (the scopes below it are unwound), and whether the target can unwind at
 * all (a frame with a return probe must then never be crossed).
 */
#ifndef MW_UNWIND_H
#define MW_UNWIND_H

#include <stdbool.h>
#include "process/objects.h"
#include "probes/probes.h"

/* Adds a probe on every personality routine the target's objects define
 * (C++, Rust, C, Ada, D, Objective-C). Returns how many, or -ENOMEM. */
int unwind__resolve(const struct mw_objects *o, struct mw_probe_table *tab);
/* True if the target maps an unwinder: a C++ exception, a Rust panic or a
 * thread's cancellation can then unwind its frames. */
bool unwind__runtime(const struct mw_objects *o);

#endif
