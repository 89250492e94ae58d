// SPDX-License-Identifier: GPL-2.0
/*
 * watchlist.c - the session's records of watched processes: a record per
 * BPF slot, found by pid, opened into the first free slot, registered in
 * the BPF side's slots and loaders maps, and dropped with every trace of
 * its slot (so that a week-long run reuses slots and leaks nothing).
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "memwatch.h"
#include "memwatch.skel.h"
#include "session/watchlist.h"

struct mw_watched *watchlist__find(struct mw_session *s, pid_t pid)
{
	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]) && s->watched[i].target.pid == pid)
			return &s->watched[i];
	return NULL;
}

struct mw_watched *watchlist__at(struct mw_session *s, __u32 slot, __u32 pid)
{
	if (slot >= (__u32)s->nwatched || !watched__in_use(&s->watched[slot]) ||
	    s->watched[slot].target.pid != (pid_t)pid || s->watched[slot].target.exited)
		return NULL;
	return &s->watched[slot];
}

/* A free slot, or NULL once --max-targets are watched (said once). */
static struct mw_watched *free_slot(struct mw_session *s, pid_t pid)
{
	for (int i = 0; i < s->nwatched; i++)
		if (!watched__in_use(&s->watched[i]))
			return &s->watched[i];
	if ((uint32_t)s->nwatched < s->opts.max_targets)
		return &s->watched[s->nwatched++];
	if (!s->warned_full)
		mw_err("pid %d and later processes are not watched: %u already are; raise --max-targets (at most %d)",
		       (int)pid, s->opts.max_targets, MW_MAX_TARGETS);
	s->warned_full = true;
	return NULL;
}

int watchlist__open(struct mw_session *s, pid_t pid, struct mw_watched **out)
{
	struct mw_watched *w = free_slot(s, pid);
	uint32_t slot;

	if (!w)
		return 1;
	slot = (uint32_t)(w - s->watched);
	memset(w, 0, sizeof(*w));
	if (target__open(&w->target, pid, slot))
		return -1;
	watched__enter(w, MW_STAGE_OPEN);
	if (sites__init(&w->sites, &w->target, s->opts.leak_intervals)) {
		mw_err("out of memory");
		return -1;
	}
	if (s->skel && watchlist__register(s, w))
		return -1;
	if (out)
		*out = w;
	return 0;
}

int watchlist__open_all(struct mw_session *s)
{
	s->watched = calloc(s->opts.max_targets, sizeof(*s->watched));
	if (!s->watched) {
		mw_err("out of memory");
		return -1;
	}
	for (int i = 0; i < s->opts.npids; i++)
		if (watchlist__open(s, s->opts.pids[i], NULL))
			return -1;
	if (s->launch.pid) {
		if (watchlist__open(s, s->launch.pid, &s->child))
			return -1;
		s->child->launched = s->child->held = true;
	}
	return 0;
}

int watchlist__register(struct mw_session *s, struct mw_watched *w)
{
	__u32 tgid = (__u32)w->target.pid, slot = w->target.slot;
	int err;

	/* a slot's entries were purged when it was last dropped */
	err = bpf_map__update_elem(s->skel->maps.slots, &tgid, sizeof(tgid), &slot, sizeof(slot),
				   BPF_ANY);
	if (!err)
		err = watchlist__write_loader(s, w);
	if (err) {
		mw_err("cannot register pid %d: %s", (int)tgid, strerror(-err));
		return -1;
	}
	return 0;
}

int watchlist__write_loader(struct mw_session *s, const struct mw_watched *w)
{
	__u32 slot = w->target.slot;
	struct mw_loader l = { .r_debug = w->r_debug, .hold = w->held, .gen = w->gen };

	return bpf_map__update_elem(s->skel->maps.loaders, &slot, sizeof(slot), &l, sizeof(l),
				    BPF_ANY);
}

void watchlist__drop(struct mw_session *s, struct mw_watched *w)
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
	watched__free(w);
	if (s->hist)
		history__drop(s->hist, (int)w->target.slot);
	w->sampled = false;
	watched__enter(w, MW_STAGE_FREE);
}
