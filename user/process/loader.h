/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loader.h - a process's dynamic loader, as memwatch uses it: the hook
 * it calls once objects are mapped (glibc's _dl_debug_state, where
 * debuggers break), and where its struct r_debug says what it is doing.
 * The loader is the interpreter at the auxiliary vector's AT_BASE, or the
 * executable itself (a static program, or ld.so run as a command).
 */
#ifndef MW_LOADER_H
#define MW_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include "process/objects.h"
#include "process/procmaps.h"
#include "process/target.h"

struct mw_loader_info {
	const struct mw_object *obj;	/* holds the hook; NULL: none found */
	uint64_t hook_offset;		/* file offset of _dl_debug_state */
	uint64_t r_debug;		/* run-time address of _r_debug, 0: unknown */
	bool dynamic;			/* an interpreter was mapped (AT_BASE) */
};

/* Finds @t's loader hook in @objs. 0 (obj is NULL when there is no hook:
 * not a glibc-style loader), or -errno when the auxv is unreadable. */
int loader__find(const struct mw_target *t, const struct mw_maps *maps,
		 const struct mw_objects *objs, struct mw_loader_info *out);

/* Whether @t's loader is done loading its startup objects: r_debug is
 * initialised and RT_CONSISTENT, and @t maps more files than the
 * executable and the loader. False when unreadable. */
bool loader__consistent(const struct mw_target *t, uint64_t r_debug);

#endif
