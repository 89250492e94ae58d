/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach.h - attach every probe of a probe table to one target pid (never
 * system-wide), and detach them all. Where the kernel has multi-uprobe
 * links, probes are grouped into them: one link per object and program,
 * so attaching and detaching cost one round of kernel synchronisation,
 * not one per probe; else a perf-event uprobe is a link.
 */
#ifndef MW_ATTACH_H
#define MW_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "memwatch.h"
#include "probes/kernel.h"
#include "probes/probes.h"

struct memwatch_bpf;

/* What a link holds, so that part of a target's probes can go (the
 * overhead budget): a structure's id (>= 0), or one of these. */
#define MW_LINK_OTHER	(-1)	/* the loader's hook, exception handlers */
#define MW_LINK_HEAP	(-2)	/* the allocator's entry points */

/* The entry offsets of one object's probes, kept for attach__scrub. */
struct mw_link_group {
	char *path;
	__u64 *offsets;
	__u32 cnt;
	int what;		/* MW_LINK_*, or a structure id */
};

struct mw_links {
	int *fd;		/* link file descriptors */
	int *what;		/* what each holds: MW_LINK_*, or a structure id */
	size_t n, cap;
	struct mw_link_group *groups;	/* one per entry link */
	size_t ngroups;
	size_t probes;		/* uprobes they hold */
	size_t unplaced;	/* moved probes put back at their entry: places map full */
};

/* The entry states of moved probes, as the places map holds them; one per
 * skeleton, shared by every target. v[0] is the entry itself. */
struct mw_places {
	struct mw_place v[MW_MAX_PLACES];
	uint32_t n;
	bool warned_full;
};

/* Sets the programs up for the links kernel @k has, and loads only those
 * it uses there; before the object loads, after rodata's solo is set. */
void attach__prepare(struct memwatch_bpf *skel, const struct mw_kernel *k);
/* Attaches @tab for @pid (with empty programs if @floor: the cost of
 * the probes alone, for the benchmark). 0, or -1 after one message. */
int attach__table(struct memwatch_bpf *skel, struct mw_places *places, pid_t pid,
		  uint32_t slot, const struct mw_probe_table *tab,
		  struct mw_links *links, bool floor);
void attach__destroy(struct mw_links *links);
/* The same in the background, for the links of a process that is gone
 * (none of their probes can fire again): each link's release waits for
 * the kernel, and a pool of threads shares those waits. */
void attach__release(struct mw_links *links);
/* Waits until every link attach__release took is closed, then removes
 * the shared events (at exit: no process may be probed after it). */
void attach__release_wait(void);
/* Detaches the links of @links that hold @what (MW_LINK_HEAP, or a
 * structure id): their probes leave the target at once. Returns how many
 * probes went. */
size_t attach__close(struct mw_links *links, int what);

/*
 * Takes @pid's breakpoints out of the processes it forked that nobody
 * watches: a child inherits them (they are in its copy of the pages),
 * traps on every call and is observed by no program. The kernel removes
 * a uprobe's breakpoints from every process no remaining consumer's
 * filter accepts when a consumer goes, so one short-lived link of empty
 * programs on the same offsets, for @pid, does it; @pid and every other
 * watched process keep theirs. One link per object, closed by the
 * closers' threads: the breakpoints go as the close begins, and the
 * kernel synchronisation that ends it (~28 ms here, a link after
 * another: 6 of them kept a forked child trapping for 40-150 ms) is not
 * waited for. Failures only leave the children slow.
 */
void attach__scrub(struct memwatch_bpf *skel, const struct mw_links *links, pid_t pid);

#endif
