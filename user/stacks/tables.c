// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - the unwind tables written into the BPF maps. An object's
 * table is built once (cfi.c) and its rows appended to unwind_rows, where
 * every process that maps the same file (path and inode) finds them; a
 * process's entry lists its executable mappings, sorted, each with its
 * load bias and its object's rows. The rows' room is bounded
 * (MW_UNWIND_ROWS, 16 bytes each); an object that does not fit is said
 * once, and walks end at its frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "log.h"
#include "stacks/cfi.h"
#include "stacks/tables.h"

void tables__init(struct mw_unwind_tables *t, int rows_fd, int procs_fd, uint32_t limit)
{
	memset(t, 0, sizeof(*t));
	t->rows_fd = rows_fd;
	t->procs_fd = procs_fd;
	t->limit = limit;
}

void tables__free(struct mw_unwind_tables *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Appends @c's rows to unwind_rows: 0, or -ENOSPC, or a write's error. */
static int write_rows(struct mw_unwind_tables *t, const struct mw_cfi *c, uint32_t *first)
{
	if (c->n > t->limit - t->used)
		return -ENOSPC;
	*first = t->used;
	for (size_t i = 0; i < c->n; i++) {
		struct mw_unwind_row r = {
			.pc = c->rows[i].pc, .off = c->rows[i].off, .rbp = c->rows[i].rbp,
			.kind = c->rows[i].kind, .plt = c->rows[i].plt,
		};
		uint32_t key = t->used + (uint32_t)i;

		if (bpf_map_update_elem(t->rows_fd, &key, &r, BPF_ANY))
			return -errno;
	}
	t->used += (uint32_t)c->n;
	return 0;
}

/* The object @o (mapped from @m): its rows, built and written the first
 * time any process maps it. NULL out of memory. */
static struct mw_unwind_object *object(struct mw_unwind_tables *t, const struct mw_object *o,
				       const struct mw_mapping *m)
{
	struct mw_unwind_object *u;
	struct mw_cfi c;
	int err;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].inode == m->inode && !strcmp(t->v[i].path, m->path))
			return &t->v[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct mw_unwind_object *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	u = &t->v[t->n];
	*u = (struct mw_unwind_object){ .path = strdup(m->path), .inode = m->inode, .none = true };
	if (!u->path)
		return NULL;
	t->n++;
	err = cfi__build(o->path, &c);
	if (err == -ENOMEM)
		return NULL;
	if (err)
		return u;	/* no table: walks end at its frames */
	err = write_rows(t, &c, &u->first);
	if (!err) {
		u->count = (uint32_t)c.n;
		u->none = false;
	} else if (!t->said_full) {
		t->said_full = true;
		mw_err("the unwind tables' room (%u rows) is full at %s: stacks through it and the objects after it end there",
		       t->limit, o->shown);
	}
	cfi__free(&c);
	return u;
}

static int by_start(const void *a, const void *b)
{
	const struct mw_unwind_map *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The object of @objs mapped at @m; NULL if not among them. */
static const struct mw_object *opened(const struct mw_objects *objs, const struct mw_mapping *m)
{
	for (size_t i = 0; i < objs->n; i++)
		if (!strcmp(objs->v[i].shown, m->path))
			return &objs->v[i];
	return NULL;
}

int tables__target(struct mw_unwind_tables *t, pid_t pid, uint32_t slot, bool fresh,
		   const struct mw_maps *maps, const struct mw_objects *objs)
{
	struct mw_unwind_proc p = { 0 };

	if (!fresh)
		bpf_map_lookup_elem(t->procs_fd, &slot, &p);
	for (size_t i = 0; i < maps->n && p.n < MW_UNWIND_MAPS; i++) {
		const struct mw_mapping *m = &maps->v[i];
		const struct mw_object *o;
		struct mw_unwind_object *u;
		uint64_t bias;
		bool ok;

		if (!strchr(m->perms, 'x') || m->path[0] != '/' || !(o = opened(objs, m)))
			continue;
		u = object(t, o, m);
		if (!u) {
			mw_err("out of memory");
			return -1;
		}
		bias = elfsym__bias(o->elf, m->start, m->offset, &ok);
		if (u->none || !ok)
			continue;
		p.m[p.n++] = (struct mw_unwind_map){ m->start, m->end, bias, u->first, u->count };
	}
	qsort(p.m, p.n, sizeof(p.m[0]), by_start);
	p.version = ++t->version;	/* rows the walk cached before are not these */
	if (fresh)
		mw_err("pid %d: stacks walked by unwind tables: %u mappings; the tables hold %u rows of %u (%.1f of %.0f MiB), shared by every process",
		       (int)pid, p.n, t->used, t->limit, t->used * 16.0 / (1 << 20),
		       t->limit * 16.0 / (1 << 20));
	if (bpf_map_update_elem(t->procs_fd, &slot, &p, BPF_ANY)) {
		mw_err("pid %d: cannot write its unwind tables: %s", (int)pid, strerror(errno));
		return -1;
	}
	return 0;
}
