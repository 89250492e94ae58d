// SPDX-License-Identifier: GPL-2.0
/* probes.c - the probe table: a growing array with one entry per address. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "placement.h"
#include "probes.h"

static bool is_alloc(enum mw_prog prog)
{
	return prog == MW_PROG_ALLOC || prog == MW_PROG_ALLOC_SESSION;
}

int probes__add(struct mw_probe_table *t, const char *path, uint64_t offset,
		uint64_t size, uint64_t cookie, enum mw_prog prog, bool retprobe,
		const char *what)
{
	struct mw_probe *p;
	size_t shift;

	shift = t->at_entry ? 0 : placement__shift_file(path, offset, size);
	offset += shift;
	/* allocator aliases are one probe; the same function may serve two
	 * structures, with two cookies */
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].offset == offset &&
		    (is_alloc(prog) ? is_alloc(t->v[i].prog) :
		     t->v[i].prog == prog && t->v[i].cookie == cookie) &&
		    !strcmp(t->v[i].path, path))
			return 0;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		struct mw_probe *nv = realloc(t->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = ncap;
	}
	p = &t->v[t->n];
	p->path = strdup(path);
	p->what = strdup(what);
	if (!p->path || !p->what) {
		free(p->path);
		free(p->what);
		return -ENOMEM;
	}
	p->offset = offset;
	p->cookie = cookie;
	t->shifted += shift != 0;
	p->prog = prog;
	p->retprobe = retprobe;
	t->n++;
	return 1;
}

void probes__free(struct mw_probe_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].what);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
