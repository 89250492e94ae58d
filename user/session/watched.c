// SPDX-License-Identifier: GPL-2.0
/*
 * watched.c - a watched process's record: its lifecycle's moves, the set
 * of objects its probes cover (so that a library loaded later is probed
 * once), and the freeing of what the record holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "session/watched.h"

/* The moves of watched.h's lifecycle, [from][to]. */
static const bool moves[MW_STAGE__COUNT][MW_STAGE__COUNT] = {
	[MW_STAGE_FREE] = { [MW_STAGE_FREE] = true, [MW_STAGE_OPEN] = true },
	[MW_STAGE_OPEN] = { [MW_STAGE_FREE] = true, [MW_STAGE_OPEN] = true,
			    [MW_STAGE_LOADING] = true, [MW_STAGE_PROBED] = true },
	[MW_STAGE_LOADING] = { [MW_STAGE_FREE] = true, [MW_STAGE_OPEN] = true,
			       [MW_STAGE_LOADING] = true },
	[MW_STAGE_PROBED] = { [MW_STAGE_FREE] = true, [MW_STAGE_OPEN] = true,
			      [MW_STAGE_PROBED] = true },
};

static const char *const stage_names[MW_STAGE__COUNT] = {
	"free", "open", "loading", "probed",
};

int watched__enter(struct mw_watched *w, enum mw_stage to)
{
	if (w->stage >= MW_STAGE__COUNT || to >= MW_STAGE__COUNT || !moves[w->stage][to]) {
		mw_err("internal error: pid %d cannot go from %s to %s; please report it",
		       (int)w->target.pid, w->stage < MW_STAGE__COUNT ? stage_names[w->stage] : "?",
		       to < MW_STAGE__COUNT ? stage_names[to] : "?");
		return -EINVAL;
	}
	w->stage = to;
	return 0;
}

bool watched__seen(const struct mw_watched *w, const char *path)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i], path))
			return true;
	return false;
}

int watched__remember(struct mw_watched *w, const struct mw_objects *objs)
{
	char **nv = realloc(w->seen, (w->nseen + objs->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	w->seen = nv;
	for (size_t i = 0; i < objs->n; i++)
		if (!watched__seen(w, objs->v[i].shown) &&
		    !(w->seen[w->nseen++] = strdup(objs->v[i].shown)))
			return -ENOMEM;
	return 0;
}

int watched__unseen_maps(const struct mw_watched *w, const struct mw_maps *maps,
			 struct mw_maps *out)
{
	out->v = calloc(maps->n ? maps->n : 1, sizeof(*out->v));
	out->n = 0;
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < maps->n; i++)
		if (!watched__seen(w, maps->v[i].path))
			out->v[out->n++] = maps->v[i];
	return 0;
}

void watched__forget_objects(struct mw_watched *w)
{
	for (size_t i = 0; i < w->nseen; i++)
		free(w->seen[i]);
	free(w->seen);
	w->seen = NULL;
	w->nseen = 0;
}

void watched__forget_reads(struct mw_watched *w)
{
	free(w->reads);
	w->reads = NULL;
}

void watched__free(struct mw_watched *w)
{
	watched__forget_reads(w);
	target__close(&w->target);
	sites__free(&w->sites);
	glibcview__close(w->glibc);
	w->glibc = NULL;
	w->glibc_pending = false;
	watched__forget_objects(w);
}
