/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watched.h - one record per watched process: what memwatch holds for it
 * between intervals (its probes, its sites, glibc's view of it, its last
 * snapshot) and the warnings it was given once. The main loop turns each
 * into one snapshot per interval; every writer reads the snapshots.
 */
#ifndef MW_WATCHED_H
#define MW_WATCHED_H

#include <stdbool.h>
#include "attach.h"
#include "glibcview.h"
#include "memwatch.h"
#include "sites.h"
#include "snapshot.h"
#include "target.h"

struct mw_watched {
	struct mw_target target;	/* slot = its index in the BPF maps */
	bool in_use;			/* the slot holds a watched process */
	bool followed;			/* matched by --exe, --comm, --cgroup */
	bool scrub;			/* it forked a child not watched */
	struct mw_links links;		/* its probes */
	struct mw_sites sites;		/* with site tracking */
	struct mw_glibcview *glibc;	/* NULL: glibc's view not available */
	struct mw_snapshot last;	/* the latest sample */
	bool sampled;			/* last holds one */
	bool exec_seen;			/* it ran execve: re-attach after this row */
	bool launched;			/* memwatch started it (launch mode) */
	bool held;			/* it stops at execve and at its loader's
					 * hook until memwatch has attached */
	bool hooked;			/* its loader's hook is probed */
	uint64_t r_debug;		/* its loader's r_debug (mw_loader) */
	uint32_t gen;			/* its attach generation (mw_loader) */
	bool awaiting_loader;		/* a new image: probed once its loader
					 * has mapped the startup objects */
	bool attached;			/* its image's probes are in */
	bool reexec;			/* say so once the new image is probed */
	char **seen;			/* objects probed (as the target maps them) */
	size_t nseen;
	uint64_t stepped;		/* its probes left single-stepped */
	struct {			/* said once on stderr */
		bool short_stacks, inexact, silent[MW_MAX_STRUCTS];
	} warned;
};

#endif
