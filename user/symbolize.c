// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize.c - name code addresses of a running target. An address is
 * found in /proc/PID/maps (read again when a new object appeared), its
 * file offset looked up among the object's function symbols (demangled:
 * C++ and Rust names read as their users wrote them). Each address is
 * named once and cached; a site's name never changes while it lives.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym.h"
#include "procmaps.h"
#include "symbolize.h"
#include "symmatch.h"

#define MW_NAME_MAX 384

struct cached {
	uint64_t addr;
	char *name;		/* "func+0x1a (obj)" */
	char *frame;		/* "obj`func" */
};

struct opened {
	char *path;		/* as the target maps it */
	struct mw_elf *elf;	/* NULL: could not be read */
};

struct mw_symbolizer {
	const struct mw_target *t;
	struct mw_maps maps;
	struct opened *objs;
	size_t nobjs;
	struct cached *cache;
	size_t ncache, capcache;
};

int symbolizer__new(struct mw_symbolizer **out, const struct mw_target *t)
{
	struct mw_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->t = t;
	*out = s;
	return 0;
}

void symbolizer__free(struct mw_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++) {
		elfsym__close(s->objs[i].elf);
		free(s->objs[i].path);
	}
	for (size_t i = 0; i < s->ncache; i++) {
		free(s->cache[i].name);
		free(s->cache[i].frame);
	}
	procmaps__free(&s->maps);
	free(s->objs);
	free(s->cache);
	free(s);
}

static const struct mw_mapping *mapping_of(struct mw_symbolizer *s, uint64_t addr,
					   bool reload)
{
	if (reload) {
		procmaps__free(&s->maps);
		if (procmaps__load(s->t->pid, &s->maps))
			return NULL;
	}
	for (size_t i = 0; i < s->maps.n; i++)
		if (addr >= s->maps.v[i].start && addr < s->maps.v[i].end)
			return &s->maps.v[i];
	return NULL;
}

static struct mw_elf *elf_of(struct mw_symbolizer *s, const struct mw_mapping *m)
{
	char path[PATH_MAX];
	struct opened *nv;

	for (size_t i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i].path, m->path))
			return s->objs[i].elf;
	nv = realloc(s->objs, (s->nobjs + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->objs = nv;
	nv = &s->objs[s->nobjs];
	nv->path = strdup(m->path);
	nv->elf = NULL;
	if (!nv->path)
		return NULL;
	target__object_path(s->t, m, path, sizeof(path));
	elfsym__open(path, &nv->elf);	/* NULL stays: unreadable */
	s->nobjs++;
	return nv->elf;
}

/* Names @addr into @name and @frame. */
static void resolve(struct mw_symbolizer *s, uint64_t addr, char *name,
		    char *frame, size_t len)
{
	const struct mw_mapping *m = mapping_of(s, addr, false);
	const struct mw_sym *sym = NULL;
	const char *base;
	struct mw_symname sn;
	struct mw_elf *elf;
	uint64_t into = 0;

	if (!m)
		m = mapping_of(s, addr, true);	/* a newly loaded object */
	snprintf(name, len, "0x%" PRIx64, addr);
	snprintf(frame, len, "0x%" PRIx64, addr);
	if (!m || m->path[0] != '/')
		return;
	base = strrchr(m->path, '/') + 1;
	elf = elf_of(s, m);
	if (elf)
		sym = elfsym__at_offset(elf, addr - m->start + m->offset, &into);
	if (!sym) {
		snprintf(name, len, "0x%" PRIx64 " (%s)", addr - m->start + m->offset, base);
		snprintf(frame, len, "%s`0x%" PRIx64, base, addr - m->start + m->offset);
		return;
	}
	symname__init(&sn, sym->name);
	snprintf(name, len, "%s+0x%" PRIx64 " (%s)", sn.bare ? sn.bare : sym->name, into, base);
	snprintf(frame, len, "%s`%s", base, sn.bare ? sn.bare : sym->name);
	symname__free(&sn);
	/* folded stacks split frames on ';' and the count on the last space */
	for (char *p = frame; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

static struct cached *lookup(struct mw_symbolizer *s, uint64_t addr)
{
	char name[MW_NAME_MAX], frame[MW_NAME_MAX];
	struct cached *c;

	for (size_t i = 0; i < s->ncache; i++)
		if (s->cache[i].addr == addr)
			return &s->cache[i];
	if (s->ncache == s->capcache) {
		size_t ncap = s->capcache ? s->capcache * 2 : 64;
		struct cached *nv = realloc(s->cache, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->cache = nv;
		s->capcache = ncap;
	}
	resolve(s, addr, name, frame, sizeof(name));
	c = &s->cache[s->ncache];
	c->addr = addr;
	c->name = strdup(name);
	c->frame = strdup(frame);
	if (!c->name || !c->frame) {
		free(c->name);
		free(c->frame);
		return NULL;
	}
	s->ncache++;
	return c;
}

const char *symbolizer__name(struct mw_symbolizer *s, uint64_t addr)
{
	struct cached *c = lookup(s, addr);

	return c ? c->name : "?";
}

const char *symbolizer__frame(struct mw_symbolizer *s, uint64_t addr)
{
	struct cached *c = lookup(s, addr);

	return c ? c->frame : "?";
}
