/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watched.h - one record per watched process: what memwatch holds for it
 * between intervals (its probes, its sites, glibc's view of it, its last
 * snapshot) and the warnings it was given once. The session turns each
 * into one snapshot per interval; every writer reads the snapshots.
 */
#ifndef MW_WATCHED_H
#define MW_WATCHED_H

#include <stdbool.h>
#include "memwatch.h"
#include "probes/attach.h"
#include "process/procmaps.h"
#include "process/objects.h"
#include "process/target.h"
#include "read/plan.h"
#include "sample/glibcview.h"
#include "sample/overhead.h"
#include "sample/sampler.h"
#include "sample/sites.h"
#include "sample/snapshot.h"

/*
 * Where a record is in its life. watched__enter() makes every move, and
 * allows only these:
 *   FREE    -> OPEN     opened into a slot (watchlist__open)
 *   OPEN    -> LOADING  a new image whose loader has not mapped its
 *                       startup objects yet: only its hook is probed
 *   OPEN    -> PROBED   every probe of its image is in (image__attach)
 *   LOADING -> OPEN     its loader is done, the image is probed next
 *   PROBED  -> OPEN     a new image (execve): the old probes went
 *   any     -> FREE     dropped (watchlist__drop)
 * and staying where it is.
 */
/* A structure read from outside (--read), in this process's image. */
struct mw_read {
	bool planned;		/* its root was found: plan holds */
	struct mw_plan plan;
	uint64_t bias;		/* where the root's object is loaded */
	uint64_t errors;	/* walks that failed, since attach */
	bool failed;		/* a root failed this interval */
	bool seen;		/* a parameter root: a call has shown one */
	unsigned lost_said;	/* the roots table was full: said */
	unsigned limit_said;	/* a walk stopped at --read-limit: said */
};

enum mw_stage {
	MW_STAGE_FREE,
	MW_STAGE_OPEN,
	MW_STAGE_LOADING,
	MW_STAGE_PROBED,
	MW_STAGE__COUNT,
};

struct mw_watched {
	struct mw_target target;	/* slot = its index in the BPF maps */
	enum mw_stage stage;
	bool followed;			/* matched by --exe, --comm, --cgroup */
	bool scrub;			/* it forked a child not watched */
	struct mw_links links;		/* its probes */
	struct mw_sites sites;		/* with site tracking */
	struct mw_glibcview *glibc;	/* NULL: glibc's view not available */
	bool glibc_pending;		/* a new image: open the view at the next sample */
	struct mw_snapshot last;	/* the latest sample */
	bool sampled;			/* last holds one */
	bool exec_seen;			/* it ran execve: re-attach after this row */
	bool launched;			/* memwatch started it (launch mode) */
	bool held;			/* it stops at execve and at its loader's
					 * hook until memwatch has attached */
	bool hooked;			/* its loader's hook is probed */
	uint64_t lost_seen;		/* its lost_events already acted on */
	uint64_t r_debug;		/* its loader's r_debug (mw_loader) */
	uint32_t gen;			/* its attach generation (mw_loader) */
	bool reexec;			/* say so once the new image is probed */
	struct mw_read *reads;		/* one per structure; NULL: none has --read */
	char **seen;			/* objects probed (as the target maps them) */
	size_t nseen;
	uint64_t stepped;		/* its probes left single-stepped */
	uint64_t heap_stepped;		/* of which the allocator's */
	uint32_t struct_stepped[MW_MAX_STRUCTS];	/* and each structure's */
	struct mw_overhead overhead;	/* what its probes cost it */
	bool heap_detached;		/* its allocator probes went (--max-overhead) */
	struct timespec heap_since;	/* when they last went in (CLOCK_REALTIME) */
	struct mw_heap_base heap_base;	/* its heap counters then, once re-attached */
	bool rebased;			/* heap_base applies */
	uint64_t structs_detached;	/* a bit per structure whose probes went */
	struct {			/* said once on stderr */
		bool short_stacks, inexact, lost_events, lost_stacks;
		bool silent[MW_MAX_STRUCTS];
	} warned;
};


/* Moves @w to @to: 0, or -EINVAL after one line for a move the
 * lifecycle above does not have (@w stays where it was). */
int watched__enter(struct mw_watched *w, enum mw_stage to);

/* The slot holds a watched process. */
static inline bool watched__in_use(const struct mw_watched *w)
{
	return w->stage != MW_STAGE_FREE;
}

/* Its image's probes are in. */
static inline bool watched__probed(const struct mw_watched *w)
{
	return w->stage == MW_STAGE_PROBED;
}

/* Whether @w's probes already cover the object mapped from @path. */
bool watched__seen(const struct mw_watched *w, const char *path);
/* Notes that @w's probes now cover @objs. 0 or -ENOMEM. */
int watched__remember(struct mw_watched *w, const struct mw_objects *objs);
/* The mappings of objects @w's probes do not cover yet (the paths are
 * @maps's: free only the array). 0 or -ENOMEM. */
int watched__unseen_maps(const struct mw_watched *w, const struct mw_maps *maps,
			 struct mw_maps *out);
/* Forgets which objects @w's probes covered (a new image). */
void watched__forget_objects(struct mw_watched *w);
/* Forgets @w's --read plans: they belong to an image. */
void watched__forget_reads(struct mw_watched *w);
/* Frees what @w holds: its target, sites, glibc's view, objects, plans.
 * Its links and its slot's BPF entries are the session's to close. */
void watched__free(struct mw_watched *w);

#endif
