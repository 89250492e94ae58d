// SPDX-License-Identifier: GPL-2.0
/*
 * structs.c - find each structure function in the objects the target maps
 * (executable first, then libraries in load order) and add its probe. A
 * return probe is attached only where the BPF side needs one: to read a
 * return value, or to close the scope that charges allocations.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym.h"
#include "log.h"
#include "memwatch.h"
#include "structs.h"

#define MW_MAX_OBJECTS 512

struct objects {
	struct mw_elf *elf[MW_MAX_OBJECTS];
	char *path[MW_MAX_OBJECTS];
	size_t n;
};

/* Opens every distinct file the target maps (unreadable ones skipped). */
static void open_objects(const struct mw_target *t, const struct mw_maps *maps,
			 struct objects *o)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < maps->n && o->n < MW_MAX_OBJECTS; i++) {
		const struct mw_mapping *m = &maps->v[i];

		/* the first mapping of each file only */
		if (m->path[0] != '/' || !m->inode ||
		    procmaps__find_path(maps, m->path) != m)
			continue;
		target__object_path(t, m, path, sizeof(path));
		if (elfsym__open(path, &o->elf[o->n]))
			continue;
		o->path[o->n++] = strdup(path);
	}
}

static void close_objects(struct objects *o)
{
	for (size_t i = 0; i < o->n; i++) {
		elfsym__close(o->elf[i]);
		free(o->path[i]);
	}
}

static uint64_t cookie_of(const struct mw_func_spec *f, bool heap)
{
	uint64_t c = (uint64_t)f->struct_id | ((uint64_t)f->delta << 16);

	if (f->remove)
		c |= MW_SF_REMOVE;
	if (f->delta == MW_DELTA_RET || (heap && !f->remove))
		c |= MW_SF_RETPROBE;
	return c;
}

/* Adds the probes of one --insert/--remove. */
static int resolve_func(const struct mw_func_spec *f, struct objects *o,
			bool heap, struct mw_probe_table *tab)
{
	uint64_t cookie = cookie_of(f, heap);

	for (size_t i = 0; i < o->n; i++) {
		const struct mw_sym *s = elfsym__find(o->elf[i], f->symbol);

		if (!s)
			continue;
		if (probes__add(tab, o->path[i], s->offset, cookie, MW_PROG_STRUCT,
				cookie & MW_SF_RETPROBE, f->symbol) < 0) {
			mw_err("out of memory");
			return -1;
		}
		return 1;
	}
	mw_err("symbol '%s' not found in the executable or libraries of the target", f->symbol);
	return -1;
}

int structs__resolve(const struct mw_target *t, const struct mw_maps *maps,
		     const struct mw_options *opts, struct mw_probe_table *tab)
{
	struct objects o = { 0 };
	int n = 0, r = 0;

	if (!opts->nfuncs)
		return 0;
	open_objects(t, maps, &o);
	for (int i = 0; i < opts->nfuncs && r >= 0; i++) {
		r = resolve_func(&opts->funcs[i], &o, !opts->no_heap, tab);
		n += r;
	}
	close_objects(&o);
	return r < 0 ? -1 : n;
}
