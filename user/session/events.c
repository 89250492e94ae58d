// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - process events from the BPF ring buffer, acted on at once:
 * an execve (a new image to probe, or in follow mode a process that now
 * matches or no longer does), a fork (a child to follow, or breakpoints
 * to scrub from it), the loader's hook (objects mapped), a cgroup move.
 */
#include <errno.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "session/events.h"
#include "session/image.h"
#include "session/watchlist.h"

/* Watches @pid, found matching: probes its image now, or once its
 * loader has mapped its startup objects (image__begin). A process that
 * cannot be probed (it exited meanwhile, a symbol is missing) is not
 * watched; memwatch goes on. */
static int follow_pid(struct mw_session *s, pid_t pid)
{
	struct mw_watched *w;
	int r;

	if (watchlist__find(s, pid))
		return 0;
	r = watchlist__open(s, pid, &w);
	if (r)
		return r < 0 && !target__gone(pid) ? -1 : 0;
	w->followed = true;
	if (image__begin(s, w)) {
		watchlist__drop(s, w);
		return 0;
	}
	mw_debug("following pid %d (%s)", (int)pid, w->target.comm);
	return 0;
}

int events__follow_found(void *ctx, pid_t pid)
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
	w->scrub = true;	/* once per batch of events: events__take */
	return 0;
}

/* A followed process that matches no more (@how: what it did) is
 * dropped, said once on stderr. True when it was. */
static bool unmatched(struct mw_session *s, struct mw_watched *w, const char *how)
{
	if (!w->followed || follow__matches(&s->follow, w->target.pid))
		return false;
	mw_err("pid %d %s: not watched any more", (int)w->target.pid, how);
	watchlist__drop(s, w);
	return true;
}

int events__on_event(void *ctx, void *data, size_t len)
{
	struct mw_session *s = ctx;
	const struct mw_event *e = data;
	struct mw_watched *w;
	int r = 0;

	if (len < sizeof(*e))
		return 0;
	w = watchlist__at(s, e->slot, e->kind == MW_EV_FORK ? e->ppid : e->pid);
	mw_debug("event %u pid %u ppid %u slot %u%s", e->kind, e->pid, e->ppid, e->slot,
		 w ? "" : " (not watched)");
	if (!w && (e->kind == MW_EV_EXEC || e->kind == MW_EV_MOVED) && s->follows)
		return follow_new(s, (pid_t)e->pid);
	if (!w)
		return 0;
	switch (e->kind) {
	case MW_EV_EXEC:
		if (unmatched(s, w, "executed a program that no longer matches"))
			return 0;
		r = image__new(s, w);
		break;
	case MW_EV_LOADED:
		r = image__loaded(s, w);
		break;
	case MW_EV_FORK:
		return forked(s, w, (pid_t)e->pid);
	case MW_EV_MOVED:
		unmatched(s, w, "moved out of the cgroups it was followed in");
		return 0;
	}
	if (r && w->followed) {		/* one process memwatch could not probe */
		watchlist__drop(s, w);
		return 0;
	}
	return r;
}

int events__take(struct mw_session *s)
{
	int n = ring_buffer__consume(s->events);

	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (watched__in_use(w) && w->scrub && !w->target.exited)
			attach__scrub(s->skel, &w->links, w->target.pid);
		w->scrub = false;
	}
	if (n == -EINTR)
		return 0;
	return n < 0 ? -1 : 0;
}
