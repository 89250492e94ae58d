// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - a process image's probes. One scan (the mappings, then the
 * ELF objects they come from) feeds every step: the first attach (the
 * allocator, the structures, the loader's hook), a library loaded later
 * (its structure functions), and a new image after execve, probed once
 * its dynamic loader has mapped the startup objects. What stays
 * single-stepped is said once and counted for the feed and the budget.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "memwatch.h"
#include "memwatch.skel.h"
#include "probes/allocator.h"
#include "probes/oom.h"
#include "probes/unwind.h"
#include "process/loader.h"
#include "session/image.h"
#include "session/reads.h"
#include "session/watchlist.h"

/*
 * A throwing operator new must not keep a return probe on a call that
 * fails: its exception would unwind through the kernel's trampoline and
 * abort the target. Requests no allocation of @t can reach are known at
 * entry; where smaller ones can fail too, say so once. A kernel without
 * uprobe sessions cannot decline a return probe: every call keeps one,
 * said once.
 */
static void guard_throwing_new(struct mw_session *s, const struct mw_target *t,
			       const struct mw_probe_table *tab,
			       const struct mw_objects *objs)
{
	struct mw_fits *fits = &s->skel->data->never_fits[t->slot];
	const char *why = oom__never_fits(t->pid, fits);
	bool throwing = false;

	for (size_t i = 0; i < tab->n && !throwing; i++)
		throwing = tab->v[i].prog == MW_PROG_ALLOC_SESSION;
	if (throwing && !s->kernel.session && unwind__runtime(objs))
		mw_err("pid %d: Linux %s has no uprobe sessions (6.12), so the allocator's own operator new keeps its return probe: should it throw std::bad_alloc (an allocation that fails), the target would abort under memwatch",
		       (int)t->pid, s->kernel.release);
	else if (throwing && why && unwind__runtime(objs))
		mw_err("pid %d: %s, so an allocation smaller than %llu MiB can fail: should the allocator's own operator new then throw std::bad_alloc, the target would abort under memwatch",
		       (int)t->pid, why, (unsigned long long)(fits->any >> 20));
}

/*
 * One line per function whose probe stays on an instruction the kernel
 * single-steps (~45x an emulated hit here), with why; the count goes in
 * the feed. A function's return-instruction probes make one line.
 */
static void warn_stepped(struct mw_session *s, struct mw_watched *w,
			 const struct mw_probe_table *tab)
{
	double us = s->costs.ns[MW_HIT_STEPPED] / 1000;
	char why[256];

	w->stepped += tab->stepped;
	for (size_t i = 0; i < tab->n; i++) {
		const struct mw_probe *p = &tab->v[i];
		bool said = false;

		if (!p->at.stepped || p->at.why == MW_STEP_ASKED)
			continue;
		for (size_t j = 0; j < i && !said; j++)
			said = tab->v[j].at.stepped && !strcmp(tab->v[j].what, p->what) &&
			       tab->v[j].prog == p->prog;
		if (said)
			continue;
		if (p->prog == MW_PROG_STRUCT_EXIT)
			mw_err("pid %d: %s: its return instructions are probed for --delta ret, and the kernel single-steps ret (~%.1f us a call here)",
			       (int)w->target.pid, p->what, us);
		else
			mw_err("pid %d: %s stays single-stepped (~%.1f us a call here): %s",
			       (int)w->target.pid, p->what, us,
			       placement__why(&p->at, why, sizeof(why)));
	}
}

/* Adds the loader's hook to @tab, once per image, and tells the BPF side
 * where the loader's r_debug is and whether @w is held. */
static int add_loader_hook(struct mw_session *s, struct mw_watched *w,
			   const struct mw_maps *maps, const struct mw_objects *objs,
			   struct mw_probe_table *tab, struct mw_loader_info *li)
{
	int err = loader__find(&w->target, maps, objs, li);

	if (err) {
		mw_err("pid %d: cannot read /proc/%d/auxv: %s", (int)w->target.pid,
		       (int)w->target.pid, strerror(-err));
		return -1;
	}
	if (!li->obj || w->hooked)
		return 0;
	w->r_debug = li->r_debug;
	err = watchlist__write_loader(s, w);
	if (!err)
		err = probes__add(tab, li->obj->path, li->hook_offset, 0, 0, MW_PROG_LOADER,
				  false, NULL, "_dl_debug_state");
	if (err < 0) {
		mw_err("cannot probe pid %d's dynamic loader: %s", (int)w->target.pid, strerror(-err));
		return -1;
	}
	return 0;
}

/* Which of @w's probes left single-stepped are the allocator's, and
 * each structure's: they go with their probes (--max-overhead). */
static void count_stepped(struct mw_watched *w, const struct mw_probe_table *tab)
{
	for (size_t i = 0; i < tab->n; i++) {
		const struct mw_probe *p = &tab->v[i];

		if (!p->at.stepped)
			continue;
		if (p->prog == MW_PROG_ALLOC || p->prog == MW_PROG_ALLOC_SESSION)
			w->heap_stepped++;
		else if ((p->prog == MW_PROG_STRUCT || p->prog == MW_PROG_STRUCT_EXIT ||
			  p->prog == MW_PROG_ROOT_DROP) &&
			 MW_SF_ID(p->cookie) < MW_MAX_STRUCTS)
			w->struct_stepped[MW_SF_ID(p->cookie)]++;
	}
}

int image__scan(struct mw_session *s, struct mw_watched *w, bool only_new, struct mw_scan *sc)
{
	const struct mw_target *t = &w->target;
	struct mw_maps fresh = { 0 };
	int err;

	memset(sc, 0, sizeof(*sc));
	sc->tab.at_entry = s->opts.probe_entry;
	err = procmaps__load(t->pid, &sc->maps);
	if (err) {
		if (target__has_exited(&w->target))
			return 1;
		mw_err("cannot read /proc/%d/maps: %s; the process may have exited", (int)t->pid,
		       strerror(-err));
		return -1;
	}
	if (only_new && watched__unseen_maps(w, &sc->maps, &fresh)) {
		mw_err("out of memory");
		return -1;
	}
	err = objects__open(t, only_new ? &fresh : &sc->maps, &sc->objs);
	free(fresh.v);	/* its paths are sc->maps's */
	if (err) {
		mw_err("out of memory");
		return -1;
	}
	return 0;
}

void image__scan_free(struct mw_scan *sc)
{
	roots__free(&sc->roots);
	probes__free(&sc->tab);
	objects__close(&sc->objs);
	procmaps__free(&sc->maps);
}

int image__attach_probes(struct mw_session *s, struct mw_watched *w,
			 struct mw_probe_table *tab, const struct mw_objects *objs)
{
	const struct mw_target *t = &w->target;
	size_t unplaced = w->links.unplaced;
	int err = attach__table(s->skel, &s->places, t->pid, t->slot, tab, &w->links, s->opts.floor);

	if (err)
		return -1;
	for (size_t i = 0; i < tab->n; i++)
		w->hooked |= tab->v[i].prog == MW_PROG_LOADER;
	warn_stepped(s, w, tab);
	count_stepped(w, tab);
	w->stepped += w->links.unplaced - unplaced;
	for (size_t i = 0; i < tab->n; i++)
		mw_debug("probe %s at %s+0x%llx%s", tab->v[i].what, tab->v[i].path,
			 (unsigned long long)tab->v[i].offset, tab->v[i].retprobe ? " (+return)" : "");
	if (watched__remember(w, objs)) {
		mw_err("out of memory");
		return -1;
	}
	return 0;
}

/* @w's probes are in, its counters at zero: its figures and the estimate
 * of its overhead count from now. */
static void started_counting(struct mw_session *s, struct mw_watched *w)
{
	struct mw_hits none = { .nstructs = s->layout.nstructs };

	w->rebased = false;
	clock_gettime(CLOCK_REALTIME, &w->heap_since);
	overhead__start(&w->overhead, &none, session__now());
}

int image__attach(struct mw_session *s, struct mw_watched *w, enum mw_missing missing)
{
	const struct mw_target *t = &w->target;
	struct mw_loader_info li;
	struct mw_scan sc;
	int err = image__scan(s, w, false, &sc), n;

	if (err > 0)
		mw_err("pid %d exited before memwatch could probe it", (int)t->pid);
	if (err) {
		err = -1;
		goto out;
	}
	err = -1;
	if (!s->opts.no_heap && !w->heap_detached &&
	    allocator__resolve(t, &sc.objs, s->opts.allocator, &sc.tab) < 0)
		goto out;
	n = (int)sc.tab.n;
	if (structs__resolve(t, &sc.objs, &s->opts, missing, &sc.roots, &sc.tab) < 0 ||
	    reads__resolve(s, w, &sc, missing) < 0 ||
	    add_loader_hook(s, w, &sc.maps, &sc.objs, &sc.tab, &li))
		goto out;
	probes__drop_structs(&sc.tab, w->structs_detached);
	guard_throwing_new(s, t, &sc.tab, &sc.objs);
	w->stepped = w->heap_stepped = 0;
	memset(w->struct_stepped, 0, sizeof(w->struct_stepped));
	err = image__attach_probes(s, w, &sc.tab, &sc.objs);
	if (!err && s->skel->rodata->want_unwind)
		err = tables__target(&s->unwind, t->pid, t->slot, true, &sc.maps, &sc.objs);
	if (err)
		goto out;
	watched__enter(w, MW_STAGE_PROBED);
	started_counting(s, w);
	/* glibc's own view reads the libc's debug file (~0.1 s the first
	 * time): at the next sample, not here, where other processes found
	 * at exec may be queued for their probes */
	glibcview__close(w->glibc);
	w->glibc = NULL;
	w->glibc_pending = true;
	mw_debug("pid %d: %d allocator and %zu other probes attached, %zu moved past single-stepped code",
		 (int)t->pid, n, sc.tab.n - (size_t)n, sc.tab.shifted);
out:
	image__scan_free(&sc);
	return err;
}

/* @w's loader mapped objects (dlopen): probes the structures' functions
 * in those memwatch has not seen; their allocator calls are probed
 * already. */
static int attach_loaded(struct mw_session *s, struct mw_watched *w)
{
	struct mw_scan sc;
	int err = image__scan(s, w, true, &sc);

	if (err || !sc.objs.n) {
		image__scan_free(&sc);
		return err < 0 ? -1 : 0;
	}
	err = -1;
	if (structs__resolve(&w->target, &sc.objs, &s->opts, MW_MISSING_QUIET, &sc.roots,
			     &sc.tab) < 0 ||
	    reads__resolve(s, w, &sc, MW_MISSING_QUIET) < 0)
		goto out;
	probes__drop_structs(&sc.tab, w->structs_detached);
	err = image__attach_probes(s, w, &sc.tab, &sc.objs);
	if (!err && s->skel->rodata->want_unwind)
		err = tables__target(&s->unwind, w->target.pid, w->target.slot, false, &sc.maps,
				     &sc.objs);
	if (!err && sc.tab.n)
		mw_err("pid %d loaded %zu object%s: %zu structure probe%s attached",
		       (int)w->target.pid, sc.objs.n, sc.objs.n == 1 ? "" : "s", sc.tab.n,
		       sc.tab.n == 1 ? "" : "s");
out:
	image__scan_free(&sc);
	return err;
}

/* Lets a held process go on (launch mode: it stopped at execve or at its
 * loader's hook). */
static void release(struct mw_watched *w)
{
	if (w->held && !w->target.exited)
		kill(w->target.pid, SIGCONT);
}

/* Forgets @w's old image: its probes, objects, glibc's view, sites and
 * counters; its figures restart from zero. 0, or -1 after a message. */
static int forget_image(struct mw_session *s, struct mw_watched *w)
{
	struct mw_target *t = &w->target;

	w->exec_seen = false;
	target__read_comm(t);
	attach__destroy(&w->links);
	watched__forget_objects(w);
	watched__forget_reads(w);
	w->hooked = false;
	watched__enter(w, MW_STAGE_OPEN);
	w->lost_seen = 0;		/* its counters restart below */
	/* the old image's glibc: its addresses mean nothing in the new one */
	glibcview__close(w->glibc);
	w->glibc = NULL;
	w->glibc_pending = false;
	sites__free(&w->sites);		/* the old image's names and history */
	w->gen++;
	w->r_debug = 0;
	if (sites__init(&w->sites, t, s->opts.leak_intervals) || watchlist__write_loader(s, w) ||
	    sampler__reset(&s->sampler, t, s->layout.nstructs)) {
		mw_err("pid %d: cannot reset its figures after execve", (int)t->pid);
		return -1;
	}
	return 0;
}

/*
 * @w runs a new image (execve, or the launched program's first): the
 * probes and live blocks belonged to the old one. Forgets them, then
 * probes the new image once its loader has mapped the startup objects:
 * now if it has, else at the loader's hook, probed first. Figures
 * restart from zero, as at a first attach.
 */
int image__begin(struct mw_session *s, struct mw_watched *w)
{
	struct mw_target *t = &w->target;
	struct mw_loader_info li = { 0 };
	struct mw_scan sc;
	int err;

	if (forget_image(s, w))
		return -1;
	err = image__scan(s, w, false, &sc);
	if (err) {
		image__scan_free(&sc);
		return err < 0 ? -1 : 0;
	}
	err = -1;
	if (add_loader_hook(s, w, &sc.maps, &sc.objs, &sc.tab, &li))
		goto out;
	mw_debug("pid %d: new image, %zu objects, loader %s%s, r_debug 0x%llx", (int)t->pid,
		 sc.objs.n, li.obj ? li.obj->shown : "none", li.dynamic ? " (interpreter)" : "",
		 (unsigned long long)li.r_debug);
	if (li.obj && li.dynamic && sc.tab.n && !loader__consistent(t, li.r_debug)) {
		/* the loader's hook first: then nothing is missed between
		 * this look at r_debug and the hook */
		if (attach__table(s->skel, &s->places, t->pid, t->slot, &sc.tab, &w->links, false))
			goto out;
		w->hooked = true;
		if (!loader__consistent(t, li.r_debug))
			watched__enter(w, MW_STAGE_LOADING);
	}
	err = 0;
out:
	image__scan_free(&sc);
	if (!err && w->stage != MW_STAGE_LOADING)
		err = image__attach(s, w, w->launched || w->followed ? MW_MISSING_WAITS : MW_MISSING_FAILS);
	return err;
}

/* The target ran execve: says so once its new image is probed. */
static void say_reattached(const struct mw_watched *w)
{
	char exe[PATH_MAX] = "?", link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)w->target.pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 1] = '\0';
	mw_err("pid %d executed a new program (%s): re-attached, figures restart from zero",
	       (int)w->target.pid, exe);
}

int image__new(struct mw_session *s, struct mw_watched *w)
{
	bool again = watched__probed(w);

	if (image__begin(s, w))
		return -1;
	w->reexec = again;
	if (watched__probed(w) && w->reexec) {
		say_reattached(w);
		w->reexec = false;
	}
	release(w);
	return 0;
}

int image__loaded(struct mw_session *s, struct mw_watched *w)
{
	int err;

	if (w->stage == MW_STAGE_LOADING) {
		watched__enter(w, MW_STAGE_OPEN);
		err = image__attach(s, w, w->launched || w->followed ? MW_MISSING_WAITS : MW_MISSING_FAILS);
		if (!err && w->reexec) {
			say_reattached(w);
			w->reexec = false;
		}
	} else {
		err = attach_loaded(s, w);
	}
	/* a launched program whose first attach failed stays held, before
	 * its own code, for the failure to end it; anyone else goes on */
	if (!err || !w->launched || watched__probed(w))
		release(w);
	return err;
}
