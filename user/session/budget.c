// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the overhead budget acted on: overhead.c judges each
 * interval's estimate, this file detaches what it names (the allocator's
 * links, or one structure's, for good) and, on SIGUSR1, re-attaches the
 * allocator's probes with the heap figures counting from that moment.
 */
#include <string.h>
#include <time.h>
#include "log.h"
#include "probes/allocator.h"
#include "session/budget.h"
#include "session/image.h"
#include "session/watchlist.h"

/* @w's allocator probes leave it (--max-overhead): its heap figures are
 * empty from the next row, its structures' counts go on. */
static void detach_heap(struct mw_session *s, struct mw_watched *w)
{
	attach__close(&w->links, MW_LINK_HEAP);
	w->heap_detached = true;
	/* nobody reads its blocks and sites now: room for the others' */
	if (sampler__forget_heap(&s->sampler, &w->target))
		mw_err("pid %d: cannot forget its live blocks; they hold room in the tables until it exits",
		       (int)w->target.pid);
	w->stepped -= w->heap_stepped <= w->stepped ? w->heap_stepped : w->stepped;
	w->heap_stepped = 0;
	mw_err("pid %d: the allocator's probes cost it ~%.2f%% of a CPU for %d intervals in a row, over --max-overhead %g%%: detached; its structures' counts and glibc's view go on, its heap figures stop (SIGUSR1 re-attaches)",
	       (int)w->target.pid, w->overhead.heap_percent, MW_OVER_BUDGET_INTERVALS,
	       s->opts.max_overhead);
}

/* Structure @sid's probes leave @w, for good (its counts could not be
 * trusted again): its figures are empty from the next row. */
static void detach_struct(struct mw_session *s, struct mw_watched *w, int sid)
{
	attach__close(&w->links, sid);
	w->structs_detached |= 1ull << sid;
	w->stepped -= w->struct_stepped[sid] <= w->stepped ? w->struct_stepped[sid] : w->stepped;
	w->struct_stepped[sid] = 0;
	mw_err("pid %d: structure %s's probes cost it ~%.2f%% of a CPU, and memwatch's probes ~%.2f%% in all for %d intervals in a row, over --max-overhead %g%%: its probes are detached, its figures stop",
	       (int)w->target.pid, s->layout.structs[sid].name, w->overhead.struct_percent[sid],
	       w->overhead.percent, MW_OVER_BUDGET_INTERVALS, s->opts.max_overhead);
}

void budget__keep(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched && s->opts.max_overhead > 0; i++) {
		struct mw_watched *w = &s->watched[i];
		int sid = -1;

		if (!watched__in_use(w) || w->target.exited || !watched__probed(w))
			continue;
		switch (overhead__judge(&w->overhead, s->opts.max_overhead,
					s->layout.heap && !w->heap_detached,
					w->structs_detached, &sid)) {
		case MW_BUDGET_DETACH_HEAP:
			detach_heap(s, w);
			break;
		case MW_BUDGET_DETACH_STRUCT:
			detach_struct(s, w, sid);
			break;
		case MW_BUDGET_NONE:
			break;
		}
	}
}

/*
 * SIGUSR1: @w's allocator probes go back in. Its old blocks and sites
 * are forgotten (their frees count as untracked), and its heap figures
 * count from this moment, heap_since; its structures' counts go on.
 */
static int reattach_heap(struct mw_session *s, struct mw_watched *w)
{
	struct mw_target *t = &w->target;
	struct mw_snapshot raw;
	struct mw_scan sc;
	int err = image__scan(s, w, false, &sc);

	if (err) {
		image__scan_free(&sc);
		return err < 0 ? -1 : 0;
	}
	err = -1;
	if (allocator__resolve(t, &sc.objs, s->opts.allocator, &sc.tab) < 0)
		goto out;
	w->gen++;	/* calls open since before are not this attach's */
	sites__free(&w->sites);
	if (watchlist__write_loader(s, w) || sampler__forget_heap(&s->sampler, t) ||
	    sampler__read(&s->sampler, t, &s->layout, &raw) ||
	    sites__init(&w->sites, t, s->opts.leak_intervals)) {
		mw_err("pid %d: cannot reset its heap figures", (int)t->pid);
		goto out;
	}
	sampler__base(&w->heap_base, &raw);
	w->rebased = true;
	err = image__attach_probes(s, w, &sc.tab, &sc.objs);
	if (err) {
		attach__close(&w->links, MW_LINK_HEAP);	/* none half in */
		goto out;
	}
	w->heap_detached = false;
	w->overhead.over = 0;
	clock_gettime(CLOCK_REALTIME, &w->heap_since);
	mw_err("pid %d: the allocator's probes are back (SIGUSR1): its heap figures count from now",
	       (int)t->pid);
out:
	image__scan_free(&sc);
	return err;
}

int budget__reattach_all(struct mw_session *s)
{
	int n = 0;

	s->reattach = false;
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!watched__in_use(w) || w->target.exited || !w->heap_detached)
			continue;
		n++;
		if (!watched__probed(w)) {
			/* a new image, probed once its loader is done: with them */
			w->heap_detached = false;
			mw_err("pid %d: the allocator's probes go back with its new image (SIGUSR1)",
			       (int)w->target.pid);
			continue;
		}
		/* one target that cannot be probed again ends nothing */
		if (reattach_heap(s, w) && !w->target.exited)
			mw_err("pid %d: its allocator probes stay detached", (int)w->target.pid);
	}
	if (!n)
		mw_err("SIGUSR1: no process has its allocator probes detached");
	return 0;
}
