// SPDX-License-Identifier: GPL-2.0
/*
 * interval.c - one interval: each watched process's snapshot read from
 * the BPF maps (rebased after a re-attach), its overhead estimated, its
 * sites and glibc's view read, warnings said once; then the outputs, and
 * a new image for a process whose execve this row counted. A process
 * that exits gets a final row, then its record goes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "memwatch.h"
#include "memwatch.skel.h"
#include "export/fields.h"
#include "process/procmaps.h"
#include "sample/calls.h"
#include "session/budget.h"
#include "session/events.h"
#include "session/image.h"
#include "session/interval.h"
#include "session/publish.h"
#include "session/reads.h"
#include "session/watchlist.h"
#include "symbols/runtime.h"

/* A structure whose functions never fire while the heap keeps moving is
 * most likely probed on a function the compiler inlined. */
#define MW_SILENT_AFTER_S	10.0
#define MW_SILENT_HEAP_CALLS	1000

/* glibc's own figures (mallinfo2, arenas) read from outside: needs the
 * libc's debug file. Without it memwatch goes on without these figures. */
static void open_glibc_view(struct mw_watched *w, const struct mw_maps *maps)
{
	const struct mw_target *t = &w->target;
	const struct mw_mapping *libc = procmaps__find_libc(maps);
	uint64_t base = 0;
	int err;

	glibcview__close(w->glibc);
	w->glibc = NULL;
	if (!libc) {
		mw_err("pid %d does not use glibc: no glibc_* figures", (int)t->pid);
		return;
	}
	for (size_t i = 0; i < maps->n; i++)
		if (!strcmp(maps->v[i].path, libc->path) && maps->v[i].offset == 0) {
			base = maps->v[i].start;
			break;
		}
	err = glibcview__open(&w->glibc, t->pid, t->root, libc->path, base);
	if (err == -ENOENT)
		mw_err("pid %d: no debug file for its libc; install libc6-dbg (the same version) for the glibc_* figures",
		       (int)t->pid);
	else if (err == -ESTALE)
		mw_err("pid %d: its libc was replaced on disk since it started: no glibc_* figures", (int)t->pid);
	else if (err)
		mw_err("pid %d: cannot read glibc's allocator state: %s; no glibc_* figures",
		       (int)t->pid, strerror(-err));
	if (err)
		w->glibc = NULL;
}

static void warn_inexact(struct mw_watched *w)
{
	const struct mw_snapshot *snap = &w->last;
	uint64_t full = snap->c[MW_C_LOST_TABLE_FULL];
	uint64_t stacks = snap->c[MW_C_LOST_STACKS];
	uint64_t other = fields__lost(snap) - full - stacks;

	/* a block without its stack still counts, at its site */
	if (stacks && !w->warned.lost_stacks) {
		w->warned.lost_stacks = true;
		mw_err("pid %d: %llu allocation stacks could not be recorded (the stack table's slot was taken, or it is full): their blocks count at their sites without a stack, and the heap and structure figures stay exact; see lost_stacks",
		       (int)snap->pid, (unsigned long long)stacks);
	}

	if (snap->c[MW_C_LOST_EVENTS] && !w->warned.lost_events) {
		w->warned.lost_events = true;
		mw_err("pid %d: %llu of its exec, fork or library-load events were lost (memwatch's ring buffer was full): a new image, child or library of it may be unprobed; see lost_events",
		       (int)snap->pid, (unsigned long long)snap->c[MW_C_LOST_EVENTS]);
	}
	other -= snap->c[MW_C_LOST_EVENTS];
	if (w->warned.inexact || (!full && !other))
		return;
	w->warned.inexact = true;
	if (full)
		mw_err("pid %d: the live-block table is full, %llu blocks not recorded; figures are no longer exact (raise --max-live-blocks)",
		       (int)snap->pid, (unsigned long long)full);
	else
		mw_err("pid %d: %llu probe events could not be paired or were skipped; figures are no longer exact (see the lost_* columns)",
		       (int)snap->pid, (unsigned long long)other);
}

static void warn_silent(struct mw_session *s, struct mw_watched *w)
{
	const struct mw_snapshot *snap = &w->last;

	if (!s->layout.heap || session__now() - s->started < MW_SILENT_AFTER_S ||
	    snap->c[MW_C_ALLOC_CALLS] < MW_SILENT_HEAP_CALLS)
		return;
	for (int k = 0; k < snap->nstructs; k++) {
		if (w->warned.silent[k] || snap->s[k].insert_calls ||
		    snap->s[k].remove_calls)
			continue;
		w->warned.silent[k] = true;
		mw_err("pid %d: no function of structure %s has run in %.0f s while the heap made %llu allocations; if they were inlined, name a function that exists out of line",
		       (int)snap->pid, s->layout.structs[k].name, session__now() - s->started,
		       (unsigned long long)snap->c[MW_C_ALLOC_CALLS]);
	}
}

/* @w's figures from the BPF maps, and what memwatch knows of its probes. */
static int read_maps(struct mw_session *s, struct mw_watched *w)
{
	struct mw_snapshot *o = &w->last;
	int err = sampler__read(&s->sampler, &w->target, &s->layout, o);

	if (w->rebased)
		sampler__rebase(o, &w->heap_base);
	o->probes_single_stepped = w->stepped;
	o->heap_attached = s->layout.heap && !w->heap_detached;
	o->heap_since = w->heap_since;
	for (int k = 0; k < o->nstructs; k++)
		o->s[k].detached = w->structs_detached >> k & 1;
	o->overhead_percent = w->overhead.percent;
	return err;
}

/* What @w's probes cost it over the interval that just ended. */
static void estimate(struct mw_session *s, struct mw_watched *w)
{
	struct mw_hits h = { .nstructs = w->last.nstructs };

	for (int k = 0; k < MW_HIT__COUNT; k++)
		h.heap[k] = w->last.c[MW_C_HITS + k];
	for (int i = 0; i < h.nstructs; i++)
		memcpy(h.structs[i], w->last.s[i].hits, sizeof(h.structs[i]));
	overhead__update(&w->overhead, &s->costs, &h, session__now());
	w->last.overhead_percent = w->overhead.percent;
}

/* One interval of @w: its snapshot from the BPF maps, glibc's view and
 * its sites, and what it warrants saying once. 0, or -1 after a message. */
static int sample_watched(struct mw_session *s, struct mw_watched *w)
{
	int err = read_maps(s, w);

	if (err) {
		mw_err("cannot read the BPF maps: %s", strerror(-err));
		return -1;
	}
	w->sampled = true;
	estimate(s, w);
	reads__sample(s, w);
	/* a held program whose library-load event was lost to a full ring
	 * buffer waits stopped at its loader's hook: probe what it mapped
	 * and let it go, as the event would have (an execve is seen by its
	 * counter, after this row) */
	if (w->held && (w->stage == MW_STAGE_PROBED || w->stage == MW_STAGE_LOADING) &&
	    !w->last.c[MW_C_EXECS] &&
	    w->last.c[MW_C_LOST_EVENTS] > w->lost_seen && target__stopped(&w->target)) {
		w->lost_seen = w->last.c[MW_C_LOST_EVENTS];
		if (image__loaded(s, w))
			return -1;
	}
	if (w->glibc_pending) {
		struct mw_maps maps;

		w->glibc_pending = false;
		if (!procmaps__load(w->target.pid, &maps)) {	/* else it has exited */
			open_glibc_view(w, &maps);
			procmaps__free(&maps);
		}
	}
	w->last.has_glibc = w->glibc && !glibcview__read(w->glibc, &w->last.glibc);
	if (s->layout.sites) {
		err = sites__sample(&w->sites, s->skel, w->target.slot);
		if (err) {
			mw_err("cannot read the allocation sites: %s", strerror(-err));
			return -1;
		}
		w->last.sites = &w->sites;
		if (w->sites.short_stacks && !w->warned.short_stacks) {
			char exe[64];

			w->warned.short_stacks = true;
			snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)w->target.pid);
			if (s->skel->rodata->want_unwind)
				mw_err("pid %d: %zu allocation stacks are truncated, most at 2 frames or fewer: code the stacks go through has no unwind table memwatch could read (.eh_frame), so --stacks cannot walk past it; sites keep their bytes, and stacks_truncated counts them",
				       (int)w->target.pid, w->sites.truncated);
			else
				mw_err("pid %d: %zu allocation stacks are truncated, most at 2 frames or fewer: its code seems built without frame pointers (%s), so the frame-pointer walk (MEMWATCH_FP_STACKS) cannot go past it; sites keep their bytes, and stacks_truncated counts them",
				       (int)w->target.pid, w->sites.truncated,
				       runtime__frame_pointer_flag(exe));
		}
	}
	if (w->last.c[MW_C_EXECS])
		w->exec_seen = true;
	warn_inexact(w);
	warn_silent(s, w);
	return s->hist ? publish__keep_row(s, w) : 0;
}

/* Writes every output: rows for the @nfresh just sampled, and every
 * sampled target's latest for the exporter; then re-attaches those that
 * ran execve. */
static int write_outputs(struct mw_session *s, const struct mw_snapshot *const *fresh,
			 int nfresh)
{
	const struct mw_snapshot *all[MW_MAX_TARGETS];
	int nall = 0;

	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]) && s->watched[i].sampled)
			all[nall++] = &s->watched[i].last;
	if (publish__outputs(s, fresh, nfresh, all, nall))
		return -1;
	/* an exec counted in this row has its event waiting: act on it */
	if (events__take(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		/* an exec whose event was lost (the ring buffer was full) */
		if (watched__in_use(w) && w->exec_seen && !w->target.exited && image__new(s, w))
			return -1;
	}
	return 0;
}

/* A final row for @w, which just exited. */
static int emit_one(struct mw_session *s, struct mw_watched *w)
{
	const struct mw_snapshot *fresh[1] = { &w->last };

	return sample_watched(s, w) ? -1 : write_outputs(s, fresh, 1);
}

/* One row for every watched process still running. */
static int emit_all(struct mw_session *s)
{
	const struct mw_snapshot *fresh[MW_MAX_TARGETS];
	int nfresh = 0;

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!watched__in_use(w) || w->target.exited || !watched__probed(w))
			continue;
		if (sample_watched(s, w))
			return -1;
		fresh[nfresh++] = &w->last;
	}
	return write_outputs(s, fresh, nfresh);
}

int interval__http_first(struct mw_session *s)
{
	const struct mw_snapshot *all[MW_MAX_TARGETS];
	int n = 0;

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!watched__in_use(w) || !watched__probed(w))
			continue;
		if (read_maps(s, w))
			return -1;
		w->sampled = true;
		all[n++] = &w->last;
	}
	return publish__metrics(s, all, n);
}

int interval__write(struct mw_session *s)
{
	uint64_t lost;

	if (events__take(s) || emit_all(s))
		return -1;
	/* the calls array's indices held by threads that died inside a call */
	calls__sweep(&s->calls);
	/* processes not watched: no row to count them in */
	lost = s->skel->bss->lost_unwatched_events;
	if (lost > s->lost_unwatched) {
		mw_err("%llu execve or cgroup-move events of processes not watched were lost (memwatch's ring buffer was full): processes that matched then are not followed",
		       (unsigned long long)(lost - s->lost_unwatched));
		s->lost_unwatched = lost;
	}
	budget__keep(s);
	s->rows++;
	return 0;
}

int interval__reap(struct mw_session *s)
{
	int left = 0;

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];
		struct mw_target *t = &w->target;

		if (!watched__in_use(w))
			continue;
		if (!t->exited && target__has_exited(t)) {
			if (watched__probed(w) && emit_one(s, w))
				return -1;
			if (!w->launched) {
				if (!w->followed)
					mw_err("pid %d exited", (int)t->pid);
				watchlist__drop(s, w);
				continue;
			}
		}
		left += !t->exited;
	}
	if (s->follows)
		return s->child && s->child->target.exited;
	return left == 0 || (s->child && s->child->target.exited);
}
