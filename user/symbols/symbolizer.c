// SPDX-License-Identifier: GPL-2.0
/*
 * symbolizer.c - name code addresses of a running target. An address is
 * found in /proc/PID/maps (read again when a new object appeared), its
 * file offset looked up among the object's function symbols (demangled:
 * C++ and Rust names read as their users wrote them), and its source line
 * read from DWARF with elfutils' libdwfl where debug information exists
 * (in the object or its build-id debug file). Each address is named once
 * and cached; a site's name never changes while it lives.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/dwarfopen.h"
#include "symbols/elfsym.h"
#include "process/objects.h"
#include "process/procmaps.h"
#include "symbols/symbolizer.h"
#include "symbols/symmatch.h"

#define MW_NAME_MAX 384

struct cached {
	uint64_t addr;
	char *name;		/* "func+0x1a (obj)" */
	char *frame;		/* "obj`func" */
	struct mw_where where;	/* its strings owned, but object (the map's) */
	char *object, *build_id, *function, *file;
};

struct opened {
	char *path;		/* as the target maps it */
	struct mw_elf *elf;	/* NULL: could not be read */
	Dwfl *dwfl;		/* its DWARF, NULL: none found */
	Dwfl_Module *mod;
};

struct mw_symbolizer {
	const struct mw_target *t;
	struct mw_maps maps;
	struct opened *objs;
	size_t nobjs;
	struct cached *cache;
	size_t ncache, capcache;
	size_t *slots;		/* hash of addresses: cache index + 1; 0: free */
	size_t nslots;		/* a power of two, over twice ncache */
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
		if (s->objs[i].dwfl)
			dwfl_end(s->objs[i].dwfl);
		free(s->objs[i].path);
	}
	for (size_t i = 0; i < s->ncache; i++) {
		free(s->cache[i].name);
		free(s->cache[i].frame);
		free(s->cache[i].object);
		free(s->cache[i].build_id);
		free(s->cache[i].function);
		free(s->cache[i].file);
	}
	procmaps__free(&s->maps);
	free(s->objs);
	free(s->cache);
	free(s->slots);
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

/* The object's DWARF, for source lines; left NULL when there is none. */
static void open_dwarf(struct opened *o, const char *path)
{
	if (dwarfopen__object(path, o->path, &o->dwfl, &o->mod) <= 0)
		o->dwfl = NULL;
}

/* " file.c:123" for link-time address @vaddr, or "" without DWARF; the
 * whole file name and the line into *@path and *@lineno. */
static void source_line(const struct opened *o, uint64_t vaddr, char *buf, size_t len,
			const char **path, int *lineno)
{
	Dwarf_Addr start = 0, a;
	const char *file, *base;
	Dwfl_Line *line;

	buf[0] = '\0';
	*path = NULL;
	*lineno = 0;
	if (!o->mod || !vaddr)
		return;
	dwfl_module_info(o->mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	line = dwfl_module_getsrc(o->mod, start + vaddr);
	file = line ? dwfl_lineinfo(line, &a, lineno, NULL, NULL, NULL) : NULL;
	if (!file || *lineno <= 0) {
		*lineno = 0;
		return;
	}
	*path = file;
	base = strrchr(file, '/');
	snprintf(buf, len, " %s:%d", base ? base + 1 : file, *lineno);
}

static struct opened *opened_of(struct mw_symbolizer *s, const struct mw_mapping *m)
{
	for (size_t i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i].path, m->path))
			return &s->objs[i];
	return NULL;
}

static struct mw_elf *elf_of(struct mw_symbolizer *s, const struct mw_mapping *m)
{
	char path[PATH_MAX];
	struct opened *nv;

	if (opened_of(s, m))
		return opened_of(s, m)->elf;
	nv = realloc(s->objs, (s->nobjs + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->objs = nv;
	nv = &s->objs[s->nobjs];
	nv->path = strdup(m->path);
	nv->elf = NULL;
	nv->dwfl = NULL;
	nv->mod = NULL;
	if (!nv->path)
		return NULL;
	target__object_path(s->t, m, path, sizeof(path));
	elfsym__open(path, &nv->elf);	/* NULL stays: unreadable */
	if (nv->elf) {
		elfsym__adopt_debug(nv->elf, s->t->root);	/* names of local functions */
		open_dwarf(nv, path);
	}
	s->nobjs++;
	return nv->elf;
}

/* Names @addr into @name and @frame, and says where it is in @c. */
static void resolve(struct mw_symbolizer *s, uint64_t addr, char *name,
		    char *frame, size_t len, struct cached *c)
{
	const char *file = NULL;
	char id[128];
	int lineno = 0;
	const struct mw_mapping *m = mapping_of(s, addr, false);
	const struct mw_sym *sym = NULL;
	const char *base;
	struct mw_symname sn;
	struct mw_elf *elf;
	uint64_t into = 0;
	char line[128];

	if (!m)
		m = mapping_of(s, addr, true);	/* a newly loaded object */
	snprintf(name, len, "0x%" PRIx64, addr);
	snprintf(frame, len, "0x%" PRIx64, addr);
	if (!m || m->path[0] != '/')
		return;
	c->where.map_start = m->start;
	c->where.map_limit = m->end;
	c->where.map_offset = m->offset;
	c->object = strdup(m->path);
	base = strrchr(m->path, '/') + 1;
	elf = elf_of(s, m);
	if (elf && !elfsym__build_id(elf, id, sizeof(id)))
		c->build_id = strdup(id);
	if (elf)
		sym = elfsym__at_offset(elf, addr - m->start + m->offset, &into);
	if (!sym) {
		snprintf(name, len, "0x%" PRIx64 " (%s)", addr - m->start + m->offset, base);
		snprintf(frame, len, "%s`0x%" PRIx64, base, addr - m->start + m->offset);
		return;
	}
	/* a return address follows the call: its line is the byte before */
	source_line(opened_of(s, m), elfsym__offset_to_vaddr(elf, addr - m->start + m->offset) - 1,
		    line, sizeof(line), &file, &lineno);
	symname__init(&sn, sym->name);
	c->function = strdup(sn.bare ? sn.bare : sym->name);
	c->file = file ? strdup(file) : NULL;
	c->where.line = lineno;
	snprintf(name, len, "%s+0x%" PRIx64 " (%s)%s", sn.bare ? sn.bare : sym->name, into,
		 base, line);
	snprintf(frame, len, "%s`%s", base, sn.bare ? sn.bare : sym->name);
	symname__free(&sn);
	/* folded stacks split frames on ';' and the count on the last space */
	for (char *p = frame; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

/* Sites are named every interval, 10,000 of them on a busy node: the
 * cache is found by hashing the address, not by a walk. */
static size_t slot_of(const struct mw_symbolizer *s, uint64_t addr)
{
	addr ^= addr >> 33;
	addr *= 0xff51afd7ed558ccdull;	/* murmur3's finalizer */
	addr ^= addr >> 33;
	return (size_t)addr & (s->nslots - 1);
}

static int rehash(struct mw_symbolizer *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 256, *v = calloc(n, sizeof(*v)), *old = s->slots;

	if (!v)
		return -ENOMEM;
	s->slots = v;
	s->nslots = n;
	for (size_t i = 0; i < s->ncache; i++) {
		size_t h = slot_of(s, s->cache[i].addr);

		while (v[h])
			h = (h + 1) & (n - 1);
		v[h] = i + 1;
	}
	free(old);
	return 0;
}

static struct cached *lookup(struct mw_symbolizer *s, uint64_t addr)
{
	char name[MW_NAME_MAX], frame[MW_NAME_MAX];
	struct cached *c;
	size_t h;

	if ((s->ncache + 1) * 2 > s->nslots && rehash(s))
		return NULL;
	for (h = slot_of(s, addr); s->slots[h]; h = (h + 1) & (s->nslots - 1))
		if (s->cache[s->slots[h] - 1].addr == addr)
			return &s->cache[s->slots[h] - 1];
	if (s->ncache == s->capcache) {
		size_t ncap = s->capcache ? s->capcache * 2 : 64;
		struct cached *nv = realloc(s->cache, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->cache = nv;
		s->capcache = ncap;
	}
	c = &s->cache[s->ncache];
	memset(c, 0, sizeof(*c));
	resolve(s, addr, name, frame, sizeof(name), c);
	c->addr = addr;
	c->name = strdup(name);
	c->frame = strdup(frame);
	if (!c->name || !c->frame) {
		free(c->name);
		free(c->frame);
		free(c->object);
		free(c->build_id);
		free(c->function);
		free(c->file);
		return NULL;
	}
	/* a field whose copy failed is left unknown */
	c->where.object = c->object;
	c->where.build_id = c->build_id ? c->build_id : "";
	c->where.function = c->function;
	c->where.file = c->file;
	if (!c->object)
		c->where.map_start = c->where.map_limit = c->where.map_offset = 0;
	s->slots[h] = ++s->ncache;
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

int symbolizer__where(struct mw_symbolizer *s, uint64_t addr, struct mw_where *out)
{
	struct cached *c = lookup(s, addr);

	memset(out, 0, sizeof(*out));
	out->build_id = "";
	if (!c)
		return -ENOMEM;
	*out = c->where;
	return 0;
}
