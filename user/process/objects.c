// SPDX-License-Identifier: GPL-2.0
/* objects.c - open the target's mapped ELF objects once, for all lookups. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "process/objects.h"

static int open_object(const struct mw_target *t, const struct mw_mapping *m,
		       struct mw_object *o)
{
	char path[PATH_MAX];
	size_t n;

	target__object_path(t, m, path, sizeof(path));
	if (elfsym__open(path, &o->elf))
		return -1;
	elfsym__adopt_debug(o->elf, t->root);
	n = elfsym__count(o->elf);
	o->path = strdup(path);
	o->shown = strdup(m->path);
	o->names = calloc(n ? n : 1, sizeof(*o->names));
	if (!o->path || !o->shown || !o->names) {
		elfsym__close(o->elf);
		free(o->path);
		free(o->shown);
		free(o->names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		symname__init(&o->names[i], elfsym__at(o->elf, i)->name);
	return 0;
}

int objects__open(const struct mw_target *t, const struct mw_maps *maps,
		  struct mw_objects *out)
{
	out->v = calloc(maps->n ? maps->n : 1, sizeof(*out->v));
	out->n = 0;
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < maps->n; i++) {
		const struct mw_mapping *m = &maps->v[i];
		int err;

		/* the first mapping of each file only */
		if (m->path[0] != '/' || !m->inode ||
		    procmaps__find_path(maps, m->path) != m)
			continue;
		err = open_object(t, m, &out->v[out->n]);
		if (err == -ENOMEM) {
			objects__close(out);
			return err;
		}
		if (!err)
			out->n++;
	}
	return 0;
}

void objects__close(struct mw_objects *o)
{
	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < elfsym__count(o->v[i].elf); j++)
			symname__free(&o->v[i].names[j]);
		free(o->v[i].names);
		elfsym__close(o->v[i].elf);
		free(o->v[i].path);
		free(o->v[i].shown);
	}
	free(o->v);
	o->v = NULL;
	o->n = 0;
}

const struct mw_object *objects__find(const struct mw_objects *o, const char *path)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].shown, path))
			return &o->v[i];
	return NULL;
}
