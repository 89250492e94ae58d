/* SPDX-License-Identifier: GPL-2.0 */
/*
 * image.h - the probes of a process image: resolved from the objects it
 * maps (allocator, structures, exception handlers, the loader's hook) and
 * attached; again for a new image (execve) and for libraries loaded later.
 */
#ifndef MW_IMAGE_H
#define MW_IMAGE_H

#include "probes/probes.h"
#include "probes/structs.h"
#include "process/objects.h"
#include "process/procmaps.h"
#include "session/session.h"

/* What a process maps now: its mappings, the objects opened from them,
 * and a probe table to fill. */
struct mw_scan {
	struct mw_maps maps;
	struct mw_objects objs;
	struct mw_probe_table tab;
	struct mw_root_fns roots;	/* --read roots that are parameters */
};

/* Reads @w's mappings and opens their objects (only those @w's probes do
 * not cover yet, if @only_new). 0, 1 if the process is gone, -1 after a
 * message. image__scan_free frees @sc in every case. */
int image__scan(struct mw_session *s, struct mw_watched *w, bool only_new, struct mw_scan *sc);
void image__scan_free(struct mw_scan *sc);
/* Attaches @tab for @w and says what stays single-stepped. */
int image__attach_probes(struct mw_session *s, struct mw_watched *w,
			 struct mw_probe_table *tab, const struct mw_objects *objs);
/* Resolves and attaches every probe of @w's image: the allocator, the
 * structures (a symbol in no object: @missing), the loader's hook. */
int image__attach(struct mw_session *s, struct mw_watched *w, enum mw_missing missing);
/* @w runs a new image (execve, or the launched program's first): probes
 * it now, or once its loader has mapped the startup objects. */
int image__begin(struct mw_session *s, struct mw_watched *w);
/* @w ran execve: a new image to probe, said once it is. */
int image__new(struct mw_session *s, struct mw_watched *w);
/* @w's loader is consistent: its startup objects, or a dlopen's. */
int image__loaded(struct mw_session *s, struct mw_watched *w);

#endif
