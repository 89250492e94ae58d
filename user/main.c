// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - memwatch's steps: parse options, check privileges, open the
 * targets, load the BPF object, resolve the probe table, attach, then
 * sample every interval and write the feed until the count is reached, a
 * signal arrives, or every target has exited. One cleanup path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "probes/allocator.h"
#include "web/api.h"
#include "probes/attach.h"
#include "probes/calibrate.h"
#include "cli.h"
#include "export/expo.h"
#include "export/feed.h"
#include "export/fields.h"
#include "web/http.h"
#include "web/webconfig.h"
#include "process/launch.h"
#include "process/loader.h"
#include "process/follow.h"
#include "sample/history.h"
#include <sys/resource.h>
#include "log.h"
#include "memwatch.skel.h"
#include "privs.h"
#include "probes/probes.h"
#include "process/procmaps.h"
#include "sample/sampler.h"
#include "export/atomicfile.h"
#include "export/folded.h"
#include "export/profiles.h"
#include "probes/oom.h"
#include "sample/overhead.h"
#include "probes/structs.h"
#include "process/target.h"
#include "probes/unwind.h"
#include "sample/watched.h"

struct mw_session {
	struct mw_options opts;
	struct memwatch_bpf *skel;
	struct mw_watched *watched;	/* opts.max_targets records, index = slot */
	int nwatched;			/* slots used so far (in_use or not) */
	struct mw_follow follow;	/* --exe, --comm, --cgroup */
	bool follows;
	bool warned_full;		/* more matches than --max-targets */
	struct bpf_link *exec_link, *fork_link, *move_link;
	struct ring_buffer *events;	/* process events (memwatch.h) */
	struct mw_launch launch;	/* launch mode: the program memwatch runs */
	struct mw_watched *child;	/* its record, once it is watched */
	struct mw_places places;	/* moved probes' entry states, all targets */
	struct mw_hit_costs costs;	/* what a probe hit costs here (calibrated) */
	bool reattach;			/* SIGUSR1: the detached heap probes go back */
	struct mw_sampler sampler;
	struct mw_layout layout;
	struct mw_feed feed;
	struct mw_http *http;
	struct mw_webconfig *web;	/* --web-config, loaded before anything */
	struct mw_hist *hist;		/* with --listen: the rows the page draws */
	struct mw_api *api;
	int sigfd;
	uint64_t rows;			/* intervals written */
	uint64_t lost_unwatched;	/* BPF's lost_unwatched_events, said so far */
	double started;			/* monotonic seconds at attach */
};

/* A structure whose functions never fire while the heap keeps moving is
 * most likely probed on a function the compiler inlined. */
#define MW_SILENT_AFTER_S	10.0
#define MW_SILENT_HEAP_CALLS	1000

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's own lines are for debugging; memwatch reports failures */
	if (getenv("MEMWATCH_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int register_target(struct mw_session *s, struct mw_watched *w);
static double now_s(void);

/* The record of @pid if it is watched. */
static struct mw_watched *find_pid(struct mw_session *s, pid_t pid)
{
	for (int i = 0; i < s->nwatched; i++)
		if (s->watched[i].in_use && s->watched[i].target.pid == pid)
			return &s->watched[i];
	return NULL;
}

/* A free slot, or NULL once --max-targets are watched (said once). */
static struct mw_watched *free_slot(struct mw_session *s, pid_t pid)
{
	for (int i = 0; i < s->nwatched; i++)
		if (!s->watched[i].in_use)
			return &s->watched[i];
	if ((uint32_t)s->nwatched < s->opts.max_targets)
		return &s->watched[s->nwatched++];
	if (!s->warned_full)
		mw_err("pid %d and later processes are not watched: %u already are; raise --max-targets (at most %d)",
		       (int)pid, s->opts.max_targets, MW_MAX_TARGETS);
	s->warned_full = true;
	return NULL;
}

/* Opens @pid into a free slot, registered with the BPF side once it is
 * loaded. 0, 1 when no slot is free, or -1 after a message. */
static int open_target(struct mw_session *s, pid_t pid, struct mw_watched **out)
{
	struct mw_watched *w = free_slot(s, pid);
	uint32_t slot;

	if (!w)
		return 1;
	slot = (uint32_t)(w - s->watched);
	memset(w, 0, sizeof(*w));
	if (target__open(&w->target, pid, slot))
		return -1;
	w->in_use = true;
	if (sites__init(&w->sites, &w->target, s->opts.leak_intervals)) {
		mw_err("out of memory");
		return -1;
	}
	if (s->skel && register_target(s, w))
		return -1;
	if (out)
		*out = w;
	return 0;
}

/* The --pid targets, then the launched program (held until attached). */
static int open_targets(struct mw_session *s)
{
	s->watched = calloc(s->opts.max_targets, sizeof(*s->watched));
	if (!s->watched) {
		mw_err("out of memory");
		return -1;
	}
	for (int i = 0; i < s->opts.npids; i++)
		if (open_target(s, s->opts.pids[i], NULL))
			return -1;
	if (s->launch.pid) {
		if (open_target(s, s->launch.pid, &s->child))
			return -1;
		s->child->launched = s->child->held = true;
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t len);
static int follow_found(void *ctx, pid_t pid);
static int write_loader(struct mw_session *s, const struct mw_watched *w);
static void forget_seen(struct mw_watched *w);

/* Tells the BPF side @w's pid is in its slot. 0, or -1 after a message. */
static int register_target(struct mw_session *s, struct mw_watched *w)
{
	__u32 tgid = (__u32)w->target.pid, slot = w->target.slot;
	int err;

	/* a slot's entries were purged when it was last dropped */
	err = bpf_map__update_elem(s->skel->maps.slots, &tgid, sizeof(tgid),
					   &slot, sizeof(slot), BPF_ANY);
	if (!err)
		err = write_loader(s, w);
	if (err) {
		mw_err("cannot register pid %d: %s", (int)tgid, strerror(-err));
		return -1;
	}
	return 0;
}

/* Stops watching @w: its probes, its slot's entries in every map (a
 * week-long run reuses slots and leaks nothing), its records. */
static void drop_target(struct mw_session *s, struct mw_watched *w)
{
	__u32 tgid = (__u32)w->target.pid;

	/* a process that is gone fires no probe again: its links can wait */
	if (w->target.exited)
		attach__release(&w->links);
	else
		attach__destroy(&w->links);
	if (s->skel) {
		bpf_map__delete_elem(s->skel->maps.slots, &tgid, sizeof(tgid), 0);
		sampler__reset(&s->sampler, &w->target, s->layout.nstructs);
	}
	target__close(&w->target);
	sites__free(&w->sites);
	glibcview__close(w->glibc);
	w->glibc = NULL;
	w->glibc_pending = false;
	forget_seen(w);
	if (s->hist)
		history__drop(s->hist, (int)w->target.slot);
	w->in_use = w->sampled = false;
}

/* What a probe hit costs a process here, measured with slot 0 before any
 * target is registered in it; then the slot is emptied. */
static int calibrate(struct mw_session *s)
{
	const struct mw_target none = { .slot = 0 };

	if (calibrate__run(s->skel, &s->places, 0, &s->costs))
		return -1;
	if (sampler__reset(&s->sampler, &none, 1)) {
		mw_err("cannot empty the BPF maps after measuring what a probe costs");
		return -1;
	}
	if (getenv("MEMWATCH_DEBUG"))
		mw_err("a probe hit costs %.0f ns emulated, %.0f ns single-stepped, %.0f ns more with its return",
		       s->costs.ns[MW_HIT_EMULATED], s->costs.ns[MW_HIT_STEPPED],
		       s->costs.ns[MW_HIT_RETURN]);
	return 0;
}

static int load_bpf(struct mw_session *s)
{
	int err;

	s->skel = memwatch_bpf__open();
	if (!s->skel) {
		mw_err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(s->skel->maps.live, s->opts.max_live_blocks);
	bpf_map__set_max_entries(s->skel->maps.slots, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.loaders, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.stats, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.struct_stats, s->opts.max_targets * MW_MAX_STRUCTS);
	s->skel->rodata->report_execs = s->follows;
	s->skel->rodata->report_forks = true;	/* children to follow or to unprobe */
	s->skel->rodata->report_moves = s->opts.ncgroups > 0;
	/* a kernel without that tracepoint still runs memwatch without --cgroup */
	bpf_program__set_autoload(s->skel->progs.target_moved, s->opts.ncgroups > 0);
	attach__prepare(s->skel);
	s->skel->rodata->have_structs = s->opts.nstructs > 0;
	s->skel->rodata->want_sites = s->layout.sites;
	s->skel->rodata->want_stacks = s->layout.sites && s->opts.stacks;
	err = memwatch_bpf__load(s->skel);
	if (err) {
		mw_err("cannot load the BPF programs: %s; memwatch needs Linux 6.12 or later with BTF (/sys/kernel/btf/vmlinux); MEMWATCH_DEBUG=1 shows the verifier log",
		       strerror(-err));
		return -1;
	}
	if (sampler__init(&s->sampler, s->skel)) {
		mw_err("out of memory");
		return -1;
	}
	if (calibrate(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++)
		if (s->watched[i].in_use && register_target(s, &s->watched[i]))
			return -1;
	s->events = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_event, s, NULL);
	if (!s->events) {
		mw_err("cannot read the BPF ring buffer: %s", strerror(errno));
		return -1;
	}
	s->exec_link = bpf_program__attach(s->skel->progs.target_exec);
	if (!s->exec_link) {
		mw_err("cannot watch for execve (tp_btf/sched_process_exec): %s", strerror(errno));
		return -1;
	}
	s->fork_link = bpf_program__attach(s->skel->progs.target_fork);
	if (!s->fork_link) {
		mw_err("cannot watch for fork (tp_btf/sched_process_fork): %s", strerror(errno));
		return -1;
	}
	if (s->opts.ncgroups && !(s->move_link = bpf_program__attach(s->skel->progs.target_moved))) {
		mw_err("cannot watch for processes moved between cgroups (tp_btf/cgroup_attach_task): %s",
		       strerror(errno));
		return -1;
	}
	return 0;
}

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

/*
 * A throwing operator new must not keep a return probe on a call that
 * fails: its exception would unwind through the kernel's trampoline and
 * abort the target. Requests no allocation of @t can reach are known at
 * entry; where smaller ones can fail too, say so once.
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
	if (throwing && why && unwind__runtime(objs))
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

/* Whether @w's probes already cover the object mapped from @path. */
static bool seen(const struct mw_watched *w, const char *path)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i], path))
			return true;
	return false;
}

static void forget_seen(struct mw_watched *w)
{
	for (size_t i = 0; i < w->nseen; i++)
		free(w->seen[i]);
	free(w->seen);
	w->seen = NULL;
	w->nseen = 0;
}

static int remember(struct mw_watched *w, const struct mw_objects *objs)
{
	char **nv = realloc(w->seen, (w->nseen + objs->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	w->seen = nv;
	for (size_t i = 0; i < objs->n; i++)
		if (!seen(w, objs->v[i].shown) && !(w->seen[w->nseen++] = strdup(objs->v[i].shown)))
			return -ENOMEM;
	return 0;
}

/* The mappings of objects @w's probes do not cover yet (the paths are
 * @maps's: free only the array). */
static int unseen_maps(const struct mw_watched *w, const struct mw_maps *maps,
		       struct mw_maps *out)
{
	out->v = calloc(maps->n ? maps->n : 1, sizeof(*out->v));
	out->n = 0;
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < maps->n; i++)
		if (!seen(w, maps->v[i].path))
			out->v[out->n++] = maps->v[i];
	return 0;
}

/* What the BPF side knows of @w's loader, its hold and its generation. */
static int write_loader(struct mw_session *s, const struct mw_watched *w)
{
	__u32 slot = w->target.slot;
	struct mw_loader l = { .r_debug = w->r_debug, .hold = w->held, .gen = w->gen };

	return bpf_map__update_elem(s->skel->maps.loaders, &slot, sizeof(slot), &l, sizeof(l),
				    BPF_ANY);
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
	err = write_loader(s, w);
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
		else if ((p->prog == MW_PROG_STRUCT || p->prog == MW_PROG_STRUCT_EXIT) &&
			 MW_SF_ID(p->cookie) < MW_MAX_STRUCTS)
			w->struct_stepped[MW_SF_ID(p->cookie)]++;
	}
}

/* Attaches @tab for @w and says what stays single-stepped. */
static int attach_probes(struct mw_session *s, struct mw_watched *w,
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
	if (getenv("MEMWATCH_DEBUG"))
		for (size_t i = 0; i < tab->n; i++)
			mw_err("probe %s at %s+0x%llx%s", tab->v[i].what, tab->v[i].path,
			       (unsigned long long)tab->v[i].offset, tab->v[i].retprobe ? " (+return)" : "");
	if (remember(w, objs)) {
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
	overhead__start(&w->overhead, &none, now_s());
}

/* Resolves and attaches every probe of @w's image: the allocator, the
 * structures (a symbol in no object: @missing), the loader's hook. */
static int attach_target(struct mw_session *s, struct mw_watched *w, enum mw_missing missing)
{
	const struct mw_target *t = &w->target;
	struct mw_probe_table tab = { .at_entry = s->opts.probe_entry };
	struct mw_objects objs = { 0 };
	struct mw_loader_info li;
	struct mw_maps maps;
	int err = -1, n;

	if (procmaps__load(t->pid, &maps)) {
		mw_err("cannot read /proc/%d/maps: %s; the process may have exited", (int)t->pid, strerror(errno));
		return -1;
	}
	if (objects__open(t, &maps, &objs)) {
		mw_err("out of memory");
		goto out;
	}
	if (!s->opts.no_heap && !w->heap_detached &&
	    allocator__resolve(t, &objs, s->opts.allocator, &tab) < 0)
		goto out;
	n = (int)tab.n;
	if (structs__resolve(t, &objs, &s->opts, missing, &tab) < 0 ||
	    add_loader_hook(s, w, &maps, &objs, &tab, &li))
		goto out;
	probes__drop_structs(&tab, w->structs_detached);
	guard_throwing_new(s, t, &tab, &objs);
	w->stepped = w->heap_stepped = 0;
	memset(w->struct_stepped, 0, sizeof(w->struct_stepped));
	err = attach_probes(s, w, &tab, &objs);
	if (!err) {
		w->attached = true;
		started_counting(s, w);
	}
	/* glibc's own view reads the libc's debug file (~0.1 s the first
	 * time): at the next sample, not here, where other processes found
	 * at exec may be queued for their probes */
	if (!err) {
		glibcview__close(w->glibc);
		w->glibc = NULL;
		w->glibc_pending = true;
	}
	if (!err && getenv("MEMWATCH_DEBUG"))
		mw_err("pid %d: %d allocator and %zu other probes attached, %zu moved past single-stepped code",
		       (int)t->pid, n, tab.n - (size_t)n, tab.shifted);
out:
	probes__free(&tab);
	objects__close(&objs);
	procmaps__free(&maps);
	return err;
}

/* @w's loader mapped objects (dlopen): probes the structures' functions
 * in those memwatch has not seen; their allocator calls are probed
 * already. */
static int attach_loaded(struct mw_session *s, struct mw_watched *w)
{
	const struct mw_target *t = &w->target;
	struct mw_probe_table tab = { .at_entry = s->opts.probe_entry };
	struct mw_objects objs = { 0 };
	struct mw_maps maps, fresh = { 0 };
	int err = -1;

	if (procmaps__load(t->pid, &maps))
		return target__has_exited(&w->target) ? 0 : -1;
	if (unseen_maps(w, &maps, &fresh) || objects__open(t, &fresh, &objs)) {
		mw_err("out of memory");
		goto out;
	}
	if (!objs.n) {
		err = 0;
		goto out;
	}
	if (structs__resolve(t, &objs, &s->opts, MW_MISSING_QUIET, &tab) < 0)
		goto out;
	probes__drop_structs(&tab, w->structs_detached);
	err = attach_probes(s, w, &tab, &objs);
	if (!err && tab.n)
		mw_err("pid %d loaded %zu object%s: %zu structure probe%s attached", (int)t->pid,
		       objs.n, objs.n == 1 ? "" : "s", tab.n, tab.n == 1 ? "" : "s");
out:
	probes__free(&tab);
	objects__close(&objs);
	free(fresh.v);
	procmaps__free(&maps);
	return err;
}

/* Lets a held process go on (launch mode: it stopped at execve or at its
 * loader's hook). */
static void release(struct mw_watched *w)
{
	if (w->held && !w->target.exited)
		kill(w->target.pid, SIGCONT);
}

/*
 * @w runs a new image (execve, or the launched program's first): the
 * probes and live blocks belonged to the old one. Forgets them, then
 * probes the new image once its loader has mapped the startup objects:
 * now if it has, else at the loader's hook, probed first. Figures
 * restart from zero, as at a first attach.
 */
static int begin_image(struct mw_session *s, struct mw_watched *w)
{
	struct mw_target *t = &w->target;
	struct mw_probe_table tab = { .at_entry = s->opts.probe_entry };
	struct mw_objects objs = { 0 };
	struct mw_loader_info li = { 0 };
	struct mw_maps maps;
	int err = -1;

	w->exec_seen = false;
	target__read_comm(t);
	attach__destroy(&w->links);
	forget_seen(w);
	w->hooked = w->attached = w->awaiting_loader = false;
	w->lost_seen = 0;		/* its counters restart below */
	/* the old image's glibc: its addresses mean nothing in the new one */
	glibcview__close(w->glibc);
	w->glibc = NULL;
	w->glibc_pending = false;
	sites__free(&w->sites);		/* the old image's names and history */
	w->gen++;
	w->r_debug = 0;
	if (sites__init(&w->sites, t, s->opts.leak_intervals) || write_loader(s, w) ||
	    sampler__reset(&s->sampler, t, s->layout.nstructs)) {
		mw_err("pid %d: cannot reset its figures after execve", (int)t->pid);
		return -1;
	}
	if (procmaps__load(t->pid, &maps))
		return target__has_exited(t) ? 0 : -1;
	if (objects__open(t, &maps, &objs)) {
		mw_err("out of memory");
		goto out;
	}
	if (add_loader_hook(s, w, &maps, &objs, &tab, &li))
		goto out;
	if (getenv("MEMWATCH_DEBUG"))
		mw_err("pid %d: new image, %zu objects, loader %s%s, r_debug 0x%llx", (int)t->pid,
		       objs.n, li.obj ? li.obj->shown : "none", li.dynamic ? " (interpreter)" : "",
		       (unsigned long long)li.r_debug);
	if (li.obj && li.dynamic && tab.n && !loader__consistent(t, li.r_debug)) {
		/* the loader's hook first: then nothing is missed between
		 * this look at r_debug and the hook */
		if (attach__table(s->skel, &s->places, t->pid, t->slot, &tab, &w->links, false))
			goto out;
		w->hooked = true;
		w->awaiting_loader = !loader__consistent(t, li.r_debug);
	}
	err = 0;
out:
	probes__free(&tab);
	objects__close(&objs);
	procmaps__free(&maps);
	if (!err && !w->awaiting_loader)
		err = attach_target(s, w, w->launched || w->followed ? MW_MISSING_WAITS : MW_MISSING_FAILS);
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

static int setup_signals(struct mw_session *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);	/* re-attach detached heap probes */
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is a write error */
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		mw_err("cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void warn_inexact(struct mw_watched *w)
{
	const struct mw_snapshot *snap = &w->last;
	uint64_t full = snap->c[MW_C_LOST_TABLE_FULL];
	uint64_t other = fields__lost(snap) - full;

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

	if (!s->layout.heap || now_s() - s->started < MW_SILENT_AFTER_S ||
	    snap->c[MW_C_ALLOC_CALLS] < MW_SILENT_HEAP_CALLS)
		return;
	for (int k = 0; k < snap->nstructs; k++) {
		if (w->warned.silent[k] || snap->s[k].insert_calls ||
		    snap->s[k].remove_calls)
			continue;
		w->warned.silent[k] = true;
		mw_err("pid %d: no function of structure %s has run in %.0f s while the heap made %llu allocations; if they were inlined, name a function that exists out of line",
		       (int)snap->pid, s->layout.structs[k].name, now_s() - s->started,
		       (unsigned long long)snap->c[MW_C_ALLOC_CALLS]);
	}
}

/* @w ran execve: a new image to probe. */
static int new_image(struct mw_session *s, struct mw_watched *w)
{
	bool again = w->attached;

	if (begin_image(s, w))
		return -1;
	w->reexec = again;
	if (w->attached && w->reexec) {
		say_reattached(w);
		w->reexec = false;
	}
	release(w);
	return 0;
}

/* @w's loader is consistent: its startup objects, or a dlopen's. */
static int loaded(struct mw_session *s, struct mw_watched *w)
{
	int err;

	if (w->awaiting_loader) {
		w->awaiting_loader = false;
		err = attach_target(s, w, w->launched || w->followed ? MW_MISSING_WAITS : MW_MISSING_FAILS);
		if (!err && w->reexec) {
			say_reattached(w);
			w->reexec = false;
		}
	} else {
		err = attach_loaded(s, w);
	}
	/* a launched program whose first attach failed stays held, before
	 * its own code, for the failure to end it; anyone else goes on */
	if (!err || !w->launched || w->attached)
		release(w);
	return err;
}

/* Watches @pid, found matching: probes its image now, or once its
 * loader has mapped its startup objects (begin_image). A process that
 * cannot be probed (it exited meanwhile, a symbol is missing) is not
 * watched; memwatch goes on. */
static int follow_pid(struct mw_session *s, pid_t pid)
{
	struct mw_watched *w;
	int r;

	if (find_pid(s, pid))
		return 0;
	r = open_target(s, pid, &w);
	if (r)
		return r < 0 && !target__gone(pid) ? -1 : 0;
	w->followed = true;
	if (begin_image(s, w)) {
		drop_target(s, w);
		return 0;
	}
	if (getenv("MEMWATCH_DEBUG"))
		mw_err("following pid %d (%s)", (int)pid, w->target.comm);
	return 0;
}

static int follow_found(void *ctx, pid_t pid)
{
	return follow_pid(ctx, pid);
}

/* An execve, or a move to another cgroup, by a process not watched:
 * followed if it now matches. */
static int follow_new(struct mw_session *s, pid_t pid)
{
	return follow__matches(&s->follow, pid) ? follow_pid(s, pid) : 0;
}

/* @w forked @pid: in follow mode the child is followed too; otherwise it
 * must not pay for the breakpoints it inherited. */
static int forked(struct mw_session *s, struct mw_watched *w, pid_t pid)
{
	if (s->follows && (w->followed || follow__matches(&s->follow, pid)))
		return follow_pid(s, pid);
	w->scrub = true;	/* once per batch of events: take_events */
	return 0;
}

static struct mw_watched *watched_at(struct mw_session *s, __u32 slot, __u32 pid)
{
	if (slot >= (__u32)s->nwatched || !s->watched[slot].in_use ||
	    s->watched[slot].target.pid != (pid_t)pid || s->watched[slot].target.exited)
		return NULL;
	return &s->watched[slot];
}

/* A followed process that matches no more (@how: what it did) is
 * dropped, said once on stderr. True when it was. */
static bool unmatched(struct mw_session *s, struct mw_watched *w, const char *how)
{
	if (!w->followed || follow__matches(&s->follow, w->target.pid))
		return false;
	mw_err("pid %d %s: not watched any more", (int)w->target.pid, how);
	drop_target(s, w);
	return true;
}

/* One event from the BPF side (ring_buffer__consume's callback). */
static int on_event(void *ctx, void *data, size_t len)
{
	struct mw_session *s = ctx;
	const struct mw_event *e = data;
	struct mw_watched *w;
	int r = 0;

	if (len < sizeof(*e))
		return 0;
	w = watched_at(s, e->slot, e->kind == MW_EV_FORK ? e->ppid : e->pid);
	if (getenv("MEMWATCH_DEBUG"))
		mw_err("event %u pid %u ppid %u slot %u%s", e->kind, e->pid, e->ppid, e->slot,
		       w ? "" : " (not watched)");
	if (!w && (e->kind == MW_EV_EXEC || e->kind == MW_EV_MOVED) && s->follows)
		return follow_new(s, (pid_t)e->pid);
	if (!w)
		return 0;
	switch (e->kind) {
	case MW_EV_EXEC:
		if (unmatched(s, w, "executed a program that no longer matches"))
			return 0;
		r = new_image(s, w);
		break;
	case MW_EV_LOADED:
		r = loaded(s, w);
		break;
	case MW_EV_FORK:
		return forked(s, w, (pid_t)e->pid);
	case MW_EV_MOVED:
		unmatched(s, w, "moved out of the cgroups it was followed in");
		return 0;
	}
	if (r && w->followed) {		/* one process memwatch could not probe */
		drop_target(s, w);
		return 0;
	}
	return r;
}

/* Acts on every event waiting. 0, or -1 after a message. */
static int take_events(struct mw_session *s)
{
	int n = ring_buffer__consume(s->events);

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (w->in_use && w->scrub && !w->target.exited)
			attach__scrub(s->skel, &w->links, w->target.pid);
		w->scrub = false;
	}
	if (n == -EINTR)
		return 0;
	return n < 0 ? -1 : 0;
}

/* Serves the profiles, with the structures' names for ?struct=. */
static int enable_profiles(struct mw_session *s)
{
	const char *names[MW_MAX_STRUCTS];

	for (int i = 0; i < s->layout.nstructs && i < MW_MAX_STRUCTS; i++)
		names[i] = s->layout.structs[i].name;
	if (http__enable_profiles(s->http, names, s->layout.nstructs)) {
		mw_err("out of memory");
		return -1;
	}
	return 0;
}

/* Whether (@pid, 0: every target) has its heap probes detached, so that
 * it has no profile for that reason rather than for want of a sample. */
static bool heap_detached(const struct mw_snapshot *const *all, int nall, int pid)
{
	bool any = false;

	for (int i = 0; i < nall; i++) {
		if (pid && all[i]->pid != pid)
			continue;
		if (all[i]->heap_attached)
			return false;
		any = true;
	}
	return any;
}

/* Adds the profiles of (@pid, @sid) to @v (room is made by the caller):
 * a copy of @same's when given (the same samples), else built; an entry
 * without a body when the heap probes are detached. */
static int add_profile(struct mw_http_profile *v, int *n, const struct mw_snapshot *const *all,
		       int nall, int pid, int sid, const struct mw_http_profile *same)
{
	struct mw_http_profile *p = &v[*n];
	int err = 0;

	*p = (struct mw_http_profile){ .pid = pid, .sid = sid };
	if (same && same->detached) {
		p->detached = true;
	} else if (same) {
		for (int k = 0; k < MW_PPROF__KINDS && !err; k++) {
			p->len[k] = same->len[k];
			p->body[k] = malloc(same->len[k] ? same->len[k] : 1);
			if (p->body[k])
				memcpy(p->body[k], same->body[k], same->len[k]);
			else
				err = -ENOMEM;
		}
	} else {
		err = profiles__build(all, nall, pid, sid, p->body, p->len);
	}
	if (err == -ENOENT && heap_detached(all, nall, pid)) {
		p->detached = true;
		err = 0;
	}
	if (err) {
		free(p->body[0]);
		free(p->body[1]);
		return err == -ENOENT ? 0 : err;	/* no sites read yet */
	}
	(*n)++;
	return 0;
}

/*
 * The heap profiles of every target together and of each, of all blocks
 * and of each structure's, both kinds: the whole one written to --pprof,
 * all served over HTTP. With one target, its own are copies of the
 * whole ones. 0, or -1 after one message.
 */
static int write_profiles(struct mw_session *s, const struct mw_snapshot *const *all, int n)
{
	int nstructs = s->http ? s->layout.nstructs : 0, np = 0, err = 0;
	size_t cap = (size_t)(n + 1) * (size_t)(nstructs + 1);
	struct mw_http_profile *v = calloc(cap, sizeof(*v));

	if (!v) {
		mw_err("out of memory");
		return -1;
	}
	for (int sid = -1; sid < nstructs && !err; sid++) {
		int whole = np;

		err = add_profile(v, &np, all, n, 0, sid, NULL);
		for (int i = 0; i < n && s->http && !err; i++)
			err = add_profile(v, &np, all, n, all[i]->pid, sid,
					  n == 1 && np > whole ? &v[whole] : NULL);
	}
	if (err)
		mw_err("cannot build the heap profiles: %s", strerror(-err));
	if (!err && np && !v[0].detached && s->opts.pprof &&
	    (err = atomicfile__replace(s->opts.pprof, (const char *)v[0].body[MW_PPROF_HEAP],
				       v[0].len[MW_PPROF_HEAP])))
		mw_err("cannot write %s: %s", s->opts.pprof, strerror(-err));
	/* no target has its heap probes (--max-overhead): no stale profile */
	if (!err && (!np || v[0].detached) && s->opts.pprof && unlink(s->opts.pprof) && errno != ENOENT)
		mw_err("cannot remove the stale %s: %s", s->opts.pprof, strerror(errno));
	if (!err && s->http) {
		http__publish_profiles(s->http, v, np);	/* taken over */
		return 0;
	}
	for (int i = 0; i < np; i++) {
		free(v[i].body[0]);
		free(v[i].body[1]);
	}
	free(v);
	return err ? -1 : 0;
}

/* Renders the latest snapshots in both exposition formats for HTTP. */
static int publish(struct mw_session *s, const struct mw_snapshot *const *all, int n)
{
	char *body[2] = { 0 };
	size_t len[2] = { 0 };
	int err = 0;

	for (int fmt = 0; fmt < 2 && !err; fmt++) {
		FILE *mem = open_memstream(&body[fmt], &len[fmt]);

		err = mem ? expo__write(mem, (enum mw_expo)fmt, &s->layout, all, n) : -ENOMEM;
		if (mem)
			fclose(mem);
	}
	if (!err)
		err = http__publish(s->http, body[0], len[0], body[1], len[1]);
	free(body[0]);
	free(body[1]);
	if (err)
		mw_err("cannot render the metrics: %s", strerror(-err));
	else if ((err = api__publish(s->api, all, n)))
		mw_err("cannot write the JSON for /api/: %s", strerror(-err));
	return err ? -1 : 0;
}

/* @w's new row, kept for the page (the CSV feed's row, as numbers). */
static int keep_row(struct mw_session *s, struct mw_watched *w)
{
	struct mw_row row;
	int err;

	row__fill(&s->layout, &w->last, &row);
	err = history__add(s->hist, (int)w->target.slot, w->target.pid, &row);
	if (err)
		mw_err("cannot keep the history: %s", strerror(-err));
	return err ? -1 : 0;
}

/* One interval of @w: its snapshot from the BPF maps, glibc's view and
 * its sites, and what it warrants saying once. 0, or -1 after a message. */
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
	overhead__update(&w->overhead, &s->costs, &h, now_s());
	w->last.overhead_percent = w->overhead.percent;
}

static int sample_watched(struct mw_session *s, struct mw_watched *w)
{
	int err = read_maps(s, w);

	if (err) {
		mw_err("cannot read the BPF maps: %s", strerror(-err));
		return -1;
	}
	w->sampled = true;
	estimate(s, w);
	/* a held program whose library-load event was lost to a full ring
	 * buffer waits stopped at its loader's hook: probe what it mapped
	 * and let it go, as the event would have (an execve is seen by its
	 * counter, after this row) */
	if (w->held && (w->attached || w->awaiting_loader) && !w->last.c[MW_C_EXECS] &&
	    w->last.c[MW_C_LOST_EVENTS] > w->lost_seen && target__stopped(&w->target)) {
		w->lost_seen = w->last.c[MW_C_LOST_EVENTS];
		if (loaded(s, w))
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
			w->warned.short_stacks = true;
			mw_err("pid %d: most allocation stacks have at most 2 frames: its code seems built without frame pointers (-fno-omit-frame-pointer), so --stacks sees short stacks",
			       (int)w->target.pid);
		}
	}
	if (w->last.c[MW_C_EXECS])
		w->exec_seen = true;
	warn_inexact(w);
	warn_silent(s, w);
	return s->hist ? keep_row(s, w) : 0;
}

/* Writes the feed and the HTTP exposition: rows for the @nfresh just
 * sampled, and every sampled target's latest for the exporter; then
 * re-attaches those that ran execve. */
static int write_outputs(struct mw_session *s, const struct mw_snapshot *const *fresh,
			 int nfresh)
{
	const struct mw_snapshot *all[MW_MAX_TARGETS];
	int nall = 0;

	for (int i = 0; i < s->nwatched; i++)
		if (s->watched[i].in_use && s->watched[i].sampled)
			all[nall++] = &s->watched[i].last;
	if (feed__write(&s->feed, fresh, nfresh, all, nall))
		return -1;
	if (s->opts.folded && folded__write(s->opts.folded, all, nall))
		return -1;
	if (s->http && publish(s, all, nall))
		return -1;
	if (s->layout.sites && (s->http || s->opts.pprof) && write_profiles(s, all, nall))
		return -1;
	/* an exec counted in this row has its event waiting: act on it */
	if (take_events(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		/* an exec whose event was lost (the ring buffer was full) */
		if (w->in_use && w->exec_seen && !w->target.exited && new_image(s, w))
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

		if (!w->in_use || w->target.exited || !w->attached)
			continue;
		if (sample_watched(s, w))
			return -1;
		fresh[nfresh++] = &w->last;
	}
	return write_outputs(s, fresh, nfresh);
}

/* The exporter answers from the first moment, with the figures at attach. */
static int emit_http_first(struct mw_session *s)
{
	const struct mw_snapshot *all[MW_MAX_TARGETS];
	int n = 0;

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!w->in_use || !w->attached)
			continue;
		if (read_maps(s, w))
			return -1;
		w->sampled = true;
		all[n++] = &w->last;
	}
	return publish(s, all, n);
}

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

/* What --max-overhead calls for, for every target just sampled. */
static void keep_budget(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched && s->opts.max_overhead > 0; i++) {
		struct mw_watched *w = &s->watched[i];
		int sid = -1;

		if (!w->in_use || w->target.exited || !w->attached)
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
	struct mw_probe_table tab = { .at_entry = s->opts.probe_entry };
	struct mw_target *t = &w->target;
	struct mw_objects objs = { 0 };
	struct mw_snapshot raw;
	struct mw_maps maps;
	int err = -1;

	if (procmaps__load(t->pid, &maps))
		return target__has_exited(t) ? 0 : -1;
	if (objects__open(t, &maps, &objs)) {
		mw_err("out of memory");
		goto out;
	}
	if (allocator__resolve(t, &objs, s->opts.allocator, &tab) < 0)
		goto out;
	w->gen++;	/* calls open since before are not this attach's */
	sites__free(&w->sites);
	if (write_loader(s, w) || sampler__forget_heap(&s->sampler, t) ||
	    sampler__read(&s->sampler, t, &s->layout, &raw) ||
	    sites__init(&w->sites, t, s->opts.leak_intervals)) {
		mw_err("pid %d: cannot reset its heap figures", (int)t->pid);
		goto out;
	}
	sampler__base(&w->heap_base, &raw);
	w->rebased = true;
	err = attach_probes(s, w, &tab, &objs);
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
	probes__free(&tab);
	objects__close(&objs);
	procmaps__free(&maps);
	return err;
}

/* SIGUSR1 came: every detached heap goes back in. */
static int reattach_all(struct mw_session *s)
{
	int n = 0;

	s->reattach = false;
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!w->in_use || w->target.exited || !w->heap_detached)
			continue;
		n++;
		if (!w->attached) {
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

/* One row for every target still running, after the events waiting;
 * then what the budget calls for. */
static int write_interval(struct mw_session *s)
{
	uint64_t lost;

	if (take_events(s) || emit_all(s))
		return -1;
	/* processes not watched: no row to count them in */
	lost = s->skel->bss->lost_unwatched_events;
	if (lost > s->lost_unwatched) {
		mw_err("%llu execve or cgroup-move events of processes not watched were lost (memwatch's ring buffer was full): processes that matched then are not followed",
		       (unsigned long long)(lost - s->lost_unwatched));
		s->lost_unwatched = lost;
	}
	keep_budget(s);
	s->rows++;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Writes a final row for each target that exited since the last poll,
 * and drops it (its series leave the exporter). Returns 1 once no target
 * is left (never in follow mode), or the launched program exited. */
static int reap_targets(struct mw_session *s)
{
	int left = 0;

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];
		struct mw_target *t = &w->target;

		if (!w->in_use)
			continue;
		if (!t->exited && target__has_exited(t)) {
			if (w->attached && emit_one(s, w))
				return -1;
			if (!w->launched) {
				if (!w->followed)
					mw_err("pid %d exited", (int)t->pid);
				drop_target(s, w);
				continue;
			}
		}
		left += !t->exited;
	}
	if (s->follows)
		return s->child && s->child->target.exited;
	return left == 0 || (s->child && s->child->target.exited);
}

/*
 * SIGINT or SIGTERM: ends the run, or in launch mode is passed on to the
 * program (whose exit ends it). A signal the kernel sent to the whole
 * foreground process group (^C at a terminal) reached the program too.
 * Returns true when the run ends now.
 */
static bool on_signal(struct mw_session *s)
{
	struct signalfd_siginfo si;
	bool ends = false;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		pid_t pid = s->launch.pid;

		if (si.ssi_signo == SIGUSR1) {
			s->reattach = true;	/* memwatch's own: not passed on */
			continue;
		}
		if (!s->child || s->child->target.exited) {
			ends = true;
			continue;
		}
		if (si.ssi_code != SI_KERNEL || getpgid(pid) != getpgrp())
			kill(pid, (int)si.ssi_signo);
	}
	return ends;
}

/* Polls memwatch's signals, the targets' exits and the BPF events for
 * up to @wait seconds. Returns 1 on SIGINT/SIGTERM that ends the run,
 * 0 otherwise, -1 on failure. */
static int wait_events(struct mw_session *s, double wait)
{
	struct pollfd pfd[MW_MAX_TARGETS + 2];
	struct timespec ts;
	int n = 0, r;

	if (wait < 0)
		wait = 0;
	ts.tv_sec = (time_t)wait;
	ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
	pfd[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->events), .events = POLLIN };
	for (int i = 0; i < s->nwatched; i++)
		if (s->watched[i].in_use && !s->watched[i].target.exited)
			pfd[n++] = (struct pollfd){ .fd = s->watched[i].target.pidfd, .events = POLLIN };
	r = ppoll(pfd, (nfds_t)n, &ts, NULL);
	if (r < 0 && errno != EINTR) {
		mw_err("poll failed: %s", strerror(errno));
		return -1;
	}
	if (r > 0 && (pfd[1].revents & POLLIN) && take_events(s))
		return -1;
	if (r > 0 && (pfd[0].revents & POLLIN) && on_signal(s))
		return 1;
	if (s->reattach && reattach_all(s))
		return -1;
	return 0;
}

/* Samples every interval until the count, a signal, or no target left
 * (or the launched program's exit). 0 for a normal end, -1 on failure. */
static int run(struct mw_session *s)
{
	double interval = s->opts.interval_s, next = now_s() + interval;

	for (;;) {
		int r = wait_events(s, next - now_s());

		if (r)
			return r < 0 ? -1 : write_interval(s);	/* SIGINT/SIGTERM */
		r = reap_targets(s);
		if (r)
			return r < 0 ? -1 : 0;
		if (now_s() < next)
			continue;
		if (write_interval(s))
			return -1;
		if (s->opts.count && s->rows >= s->opts.count)
			return 0;
		next += interval;
		if (next < now_s())	/* fell behind (stopped, swapped): skip */
			next = now_s() + interval;
	}
}

/* Launch mode, before the feed starts: lets the program execute the
 * command and waits until its image is probed (it is held meanwhile).
 * 0, or the exit code after a message. */
static int start_program(struct mw_session *s)
{
	int code = launch__exec(&s->launch, s->opts.command[0]);

	if (code) {
		s->child->target.exited = true;
		return code;
	}
	while (!s->child->attached) {
		int r = wait_events(s, 1.0);

		if (r < 0)
			return MW_EXIT_LAUNCH_FAIL;
		/* attached and let go in that call, it may have ended already:
		 * its final row comes from the run */
		if (!s->child->attached && target__has_exited(&s->child->target)) {
			launch__reap(&s->launch, true);
			mw_err("'%s' exited before memwatch could attach", s->opts.command[0]);
			return launch__exit_code(s->launch.status);
		}
	}
	return 0;
}

/* Every target's links closed, from the closers' threads at once. */
static void destroy_links(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched; i++)
		attach__release(&s->watched[i].links);
	attach__release_wait();
}

/* No more probes in any target, and the launched program is let go. */
static void detach_all(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!w->in_use)
			continue;
		w->held = false;
		if (s->skel)
			write_loader(s, w);
	}
	destroy_links(s);
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (w->in_use && w->launched && !w->target.exited)
			kill(w->target.pid, SIGCONT);	/* if it was held */
	}
}

/* Launch mode, once memwatch is done observing: waits for the program,
 * passing SIGINT and SIGTERM on, and returns the exit code it calls for. */
static int wait_program(struct mw_session *s)
{
	while (!launch__reap(&s->launch, false)) {
		struct pollfd pfd[2] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = s->child->target.pidfd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			on_signal(s);
	}
	if (!launch__reap(&s->launch, true))
		return MW_EXIT_LAUNCH_FAIL;
	return launch__exit_code(s->launch.status);
}

static void cleanup(struct mw_session *s)
{
	destroy_links(s);
	ring_buffer__free(s->events);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->move_link);
	sampler__free(&s->sampler);
	memwatch_bpf__destroy(s->skel);
	for (int i = 0; i < s->nwatched; i++) {
		if (!s->watched[i].in_use)
			continue;
		target__close(&s->watched[i].target);
		sites__free(&s->watched[i].sites);
		glibcview__close(s->watched[i].glibc);
		forget_seen(&s->watched[i]);
	}
	free(s->watched);
	follow__free(&s->follow);
	http__stop(s->http);
	webconfig__free(s->web);
	api__free(s->api);
	history__free(s->hist);
	feed__close(&s->feed);
	cli__free(&s->opts);
	if (s->sigfd >= 0)
		close(s->sigfd);
}

/* Each watched process holds a pidfd and a link per object and program:
 * the soft limit on open files goes up to what --max-targets needs (the
 * launched program was forked before, with the limit it had). */
static void raise_nofile(struct mw_session *s)
{
	/* and each structure its own links (entry, return probes, returns) */
	rlim_t want = (rlim_t)s->opts.max_targets * (24 + 4 * (rlim_t)s->opts.nstructs) + 256;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= want)
		return;
	if (r.rlim_max < want) {
		struct rlimit up = { want, want };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
		mw_err("can open only %llu files (RLIMIT_NOFILE), not the %llu that --max-targets %u may need",
		       (unsigned long long)r.rlim_max, (unsigned long long)want, s->opts.max_targets);
	}
	r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &r);
}

/* The page's history and JSON API, served from now on. 0 or -1. */
static int start_api(struct mw_session *s)
{
	struct mw_json_meta meta = { .interval_s = s->opts.interval_s,
				     .history = s->opts.history };

	s->hist = history__new(&s->layout, s->opts.history, MW_HISTORY_TOTAL_BYTES,
			       (int)s->opts.max_targets);
	s->api = s->hist ? api__new(&s->layout, &meta, s->hist) : NULL;
	if (!s->api) {
		mw_err("out of memory");
		return -1;
	}
	http__set_api(s->http, s->api);
	return 0;
}

/* Steps 2 and 3 of main: probes in, privileges down, then the exporter
 * and the header. 0, or -1 after a message. */
static int start(struct mw_session *s)
{
	/* 2. load the programs and attach every probe */
	if (load_bpf(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++)
		if (s->watched[i].in_use && !s->watched[i].launched &&
		    attach_target(s, &s->watched[i], MW_MISSING_FAILS))
			return -1;
	/* then every process that matches (execs from now on are events) */
	if (s->follows && follow__scan(&s->follow, follow_found, s) < 0)
		return -1;
	/* 3. no more privileges than the loop needs; then the exporter's
	 * thread (capabilities are per thread), then the header: it says
	 * everything is ready */
	if (privs__drop(s->opts.listen != NULL))
		return -1;
	if (s->opts.listen && (http__start(&s->http, s->opts.listen, s->web) || start_api(s)))
		return -1;
	if (s->http && s->layout.sites && enable_profiles(s))
		return -1;
	return 0;
}

/* The feed's output; a launched program keeps stdout, so with --listen
 * alone there is none. 0, or -1 after one message. */
static int open_feed(struct mw_session *s)
{
	if (s->child && !s->opts.output) {
		feed__open_none(&s->feed, &s->layout);
		return 0;
	}
	return feed__open(&s->feed, s->opts.format, s->opts.output, &s->layout);
}

int main(int argc, char **argv)
{
	static struct mw_session s = { .sigfd = -1 };
	int err, code = MW_EXIT_FAIL;

	err = cli__parse(argc, argv, &s.opts);
	if (err)
		return err > 0 ? MW_EXIT_OK : MW_EXIT_USAGE;
	/* a bad web config is a usage error, found before anything starts */
	if (s.opts.web_config && webconfig__load(&s.web, s.opts.web_config))
		return MW_EXIT_USAGE;
	s.layout = (struct mw_layout){
		.structs = s.opts.structs, .nstructs = s.opts.nstructs,
		.heap = !s.opts.no_heap, .top = s.opts.top,
		/* sites cost a stack read per call: only when asked for */
		.sites = !s.opts.no_heap && (s.opts.top_given || s.opts.folded ||
					     s.opts.pprof || s.opts.stacks ||
					     s.opts.format == MW_FORMAT_TABLE),
	};
	libbpf_set_print(libbpf_quiet);

	/* 1. privileges, the program to launch (forked while memwatch has
	 * them all), targets and output, before touching the kernel */
	if (privs__check())
		goto cleanup;
	if (s.opts.command) {
		code = MW_EXIT_LAUNCH_FAIL;
		err = launch__spawn(&s.launch, s.opts.command, s.opts.user);
		if (err) {
			code = err == -2 ? MW_EXIT_USAGE : MW_EXIT_LAUNCH_FAIL;
			goto cleanup;
		}
	}
	s.follows = cli__follows(&s.opts);
	if (s.follows && follow__init(&s.follow, &s.opts)) {
		code = MW_EXIT_USAGE;
		goto cleanup;
	}
	raise_nofile(&s);
	if (setup_signals(&s) || open_targets(&s) || open_feed(&s) || start(&s))
		goto cleanup;
	if (s.child && (err = start_program(&s))) {
		code = err;
		goto cleanup;
	}
	/* from here a launched program runs its own code: a failure
	 * detaches and waits for it, it never kills it */
	err = (s.http && emit_http_first(&s)) || feed__start(&s.feed) ? -1 : 0;
	if (!err) {
		s.started = now_s();
		err = run(&s);
	}
	if (!s.child) {
		code = err ? MW_EXIT_FAIL : MW_EXIT_OK;
		goto cleanup;
	}
	/* launch mode: the program goes on without memwatch's probes (count
	 * reached, or memwatch failed), and its exit is memwatch's */
	detach_all(&s);
	feed__close(&s.feed);
	http__stop(s.http);
	s.http = NULL;
	code = wait_program(&s);
	if (err)
		code = MW_EXIT_LAUNCH_FAIL;
	goto out;
cleanup:
	/* a failure before the program ran any of its own code ends it */
	if (s.launch.pid && !s.launch.reaped)
		launch__abort(&s.launch);
out:
	cleanup(&s);
	return code;
}
