/* SPDX-License-Identifier: GPL-2.0 */
/*
 * publish.h - a session's outputs over its snapshots: the feed, the
 * folded stacks, the exporter's two formats, the heap profiles, and the
 * page's history and JSON API.
 */
#ifndef MW_PUBLISH_H
#define MW_PUBLISH_H

#include "session/session.h"

/* The rows of the @nfresh just sampled, and every sampled target's
 * latest (@all) for the exporter and the profiles. 0, or -1. */
int publish__outputs(struct mw_session *s, const struct mw_snapshot *const *fresh, int nfresh,
		     const struct mw_snapshot *const *all, int nall);
/* The exporter's metrics and the JSON API alone (before the first row). */
int publish__metrics(struct mw_session *s, const struct mw_snapshot *const *all, int n);
/* @w's new row, kept for the page. 0, or -1 after a message. */
int publish__keep_row(struct mw_session *s, struct mw_watched *w);
/* The page's history and JSON API, served from now on. 0 or -1. */
int publish__start_api(struct mw_session *s);
/* Serves the profiles, with the structures' names for ?struct=. */
int publish__enable_profiles(struct mw_session *s);

#endif
