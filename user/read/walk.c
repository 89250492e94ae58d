// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - a plan over the target's memory: each step of the path, each
 * pointer read anew, the wrappers' states, then the end: an integer read,
 * a container's header read whole in one call and walked (elements.h), or a
 * struct read whole and its fields walked. Every address is checked
 * against the user range before it is read; the top header is read again
 * after the walk and must not have changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "process/memory.h"
#include "read/decode.h"
#include "read/elements.h"
#include "read/walk.h"

static int process_read(const struct mw_mem *m, uint64_t addr, void *buf, size_t len)
{
	return memory__read(m->pid, addr, buf, len);
}

void walk__process(struct mw_mem *m, pid_t pid)
{
	memset(m, 0, sizeof(*m));
	m->read = process_read;
	m->pid = pid;
}

static int rd(const struct mw_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (!memory__range_ok(addr, len))
		return -EFAULT;
	return m->read(m, addr, buf, len);
}

/* Whether the EMPTY_IF step @st holds at @addr. */
static int empty_if(const struct mw_mem *m, const struct mw_plan_step *st, uint64_t addr,
		    bool *empty)
{
	uint64_t v = 0;
	bool in = false;
	int err = rd(m, addr + (uint64_t)st->n, &v, st->size);

	if (err)
		return err;
	v &= st->mask;
	for (int i = 0; i < st->nvalues; i++)
		in |= st->values[i] == v;
	*empty = in != st->unless;
	return 0;
}

/* The path's steps from @addr: where the structure is, or @empty. */
static int path(const struct mw_mem *m, const struct mw_plan *p, uint64_t *addr, bool *empty,
		struct mw_reading *out)
{
	int err;

	*empty = false;
	for (int i = 0; i < p->nsteps && !*empty; i++) {
		const struct mw_plan_step *st = &p->step[i];

		switch (st->op) {
		case MW_PLAN_ADD:
			*addr += (uint64_t)st->n;
			continue;
		case MW_PLAN_EMPTY_IF:
			err = empty_if(m, st, *addr, empty);
			if (err)
				return err;
			continue;
		case MW_PLAN_DEREF:
		case MW_PLAN_OWN:
			err = rd(m, *addr, addr, sizeof(*addr));
			if (err)
				return err;
			if (st->op == MW_PLAN_OWN) {
				*empty = !*addr;	/* a null unique_ptr */
				out->retained += *addr ? (uint64_t)st->n : 0;
			}
			continue;
		}
	}
	return 0;
}

/* A struct at the path's end: read whole, its fields walked. */
static int whole(struct mw_deep *d, const struct mw_mem *m, const struct mw_shape *s,
		 uint64_t addr)
{
	uint8_t *val = malloc(s->elem_size ? s->elem_size : 1);
	int err;

	if (!val)
		return -ENOMEM;
	err = rd(m, addr, val, s->elem_size);
	if (!err)
		err = elements__value(d, s->elem_prog, val, addr);
	free(val);
	return err;
}

/* One try: 0, or an error walk__run returns. */
static int walk_once(const struct mw_mem *m, const struct mw_plan *p, uint64_t start,
		     uint64_t limit, struct mw_reading *out)
{
	const struct mw_shape *s = &p->shape;
	uint8_t hdr[MW_SHAPE_SPAN_MAX], again[MW_SHAPE_SPAN_MAX];
	struct mw_deep d;
	uint64_t addr = start, n = 0;
	bool empty;
	int err;

	memset(out, 0, sizeof(*out));
	out->length_known = s->kind != MW_SHAPE_VALUE;
	err = path(m, p, &addr, &empty, out);
	if (err || empty)
		return err;
	if (s->kind == MW_SHAPE_INTEGER) {
		err = rd(m, addr, hdr, s->int_size);
		if (!err)
			out->length = decode__integer(s, hdr);
		return err;
	}
	elements__init(&d, m, p, limit);
	if (s->kind == MW_SHAPE_VALUE) {
		err = whole(&d, m, s, addr);
	} else if (!s->span || s->span > MW_SHAPE_SPAN_MAX) {
		err = -EAGAIN;
	} else {
		err = rd(m, addr, hdr, s->span);
		if (!err)
			err = elements__container(&d, s, hdr, addr, &n);
		/* the same header once more: a writer was not halfway through it */
		if (!err)
			err = rd(m, addr, again, s->span);
		if (!err && memcmp(hdr, again, s->span))
			err = -EAGAIN;
	}
	out->length = (int64_t)n;
	out->retained += d.retained;
	out->visited = d.visits;
	elements__free(&d);
	return err;
}

int walk__run(const struct mw_mem *m, const struct mw_plan *p, uint64_t start, uint64_t limit,
	      struct mw_reading *out)
{
	int err = -EFAULT;

	for (int i = 0; i < MW_WALK_TRIES && (err == -EFAULT || err == -EAGAIN); i++)
		err = walk_once(m, p, start, limit, out);
	return err;
}
