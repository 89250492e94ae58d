// SPDX-License-Identifier: GPL-2.0
/*
 * publish.c - every output of a session over the same snapshots: the
 * feed (csv, openmetrics or table, feed.c), --folded, the exporter's
 * Prometheus and OpenMetrics bodies, the heap profiles (--pprof, and per
 * process and structure over HTTP), and the rows the live page draws.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "export/atomicfile.h"
#include "export/expo.h"
#include "export/folded.h"
#include "export/profiles.h"
#include "export/row.h"
#include "session/publish.h"

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

/* The latest snapshots in both exposition formats for HTTP, and the
 * JSON API's. */
int publish__metrics(struct mw_session *s, const struct mw_snapshot *const *all, int n)
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

/* The CSV feed's row, as numbers. */
int publish__keep_row(struct mw_session *s, struct mw_watched *w)
{
	struct mw_row row;
	int err;

	row__fill(&s->layout, &w->last, &row);
	err = history__add(s->hist, (int)w->target.slot, w->target.pid, &row);
	if (err)
		mw_err("cannot keep the history: %s", strerror(-err));
	return err ? -1 : 0;
}

int publish__start_api(struct mw_session *s)
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

int publish__enable_profiles(struct mw_session *s)
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

int publish__outputs(struct mw_session *s, const struct mw_snapshot *const *fresh, int nfresh,
		     const struct mw_snapshot *const *all, int nall)
{
	if (feed__write(&s->feed, fresh, nfresh, all, nall))
		return -1;
	if (s->opts.folded && folded__write(s->opts.folded, all, nall))
		return -1;
	if (s->http && publish__metrics(s, all, nall))
		return -1;
	if (s->layout.sites && (s->http || s->opts.pprof) && write_profiles(s, all, nall))
		return -1;
	return 0;
}
