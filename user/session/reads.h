/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reads.h - the structures read from outside (--read): for each watched
 * process, each structure's plan (plan.h) resolved against its image at
 * attach, and walked every interval into its snapshot. No probe: the
 * target pays nothing for them.
 */
#ifndef MW_READS_H
#define MW_READS_H

#include "probes/structs.h"
#include "session/image.h"
#include "session/session.h"

/* Resolves the --read of every structure of @w not resolved yet against
 * the objects of @sc (the executable first: its variables win, as the
 * dynamic linker's do). A root in no object: an error after one line,
 * said and waited for, or nothing, as @missing says. 0, or -1. */
int reads__resolve(struct mw_session *s, struct mw_watched *w, const struct mw_scan *sc,
		   enum mw_missing missing);
/* Walks each resolved structure of @w into its snapshot (w->last). */
void reads__sample(struct mw_session *s, struct mw_watched *w);

#endif
