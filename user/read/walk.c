// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - a plan's steps over the target's memory, with process_vm_readv
 * (process/memory.h): each deref reads one pointer, the end one header,
 * whole, in one call. Every address is checked against the user range
 * before it is read, and every figure against the others before it is
 * believed: the target is running and owes memwatch no consistency.
 */
#include <errno.h>
#include <string.h>
#include "process/memory.h"
#include "read/walk.h"

#define MW_PTR_BYTES	8
#define MW_HASH_GROUP	16	/* hashbrown's Group::WIDTH with SSE2 */
#define MW_STRING_LOCAL	16	/* libstdc++ string's local buffer, bytes */

static uint64_t at(const struct mw_shape *s, const uint8_t *hdr, enum mw_shape_field f)
{
	uint64_t v;

	memcpy(&v, hdr + s->f[f], sizeof(v));
	return v;
}

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return a ? (n + a - 1) / a * a : n;
}

/* Whether @n elements of @size bytes can be in an address space. */
static bool fits(uint64_t n, uint64_t size)
{
	return !size || n <= MW_USER_ADDR_END / size;
}

/* The figures of the header @hdr, read at @addr; the first byte of a
 * buffer they claim into @probe (0: none), for the caller to prove it is
 * mapped. 0, or -EAGAIN when the fields do not hold together. */
static int decode(const struct mw_shape *s, const uint8_t *hdr, uint64_t addr,
		  struct mw_reading *out, uint64_t *probe)
{
	uint64_t es = s->elem_size, n, cap, ptr, bytes = 0;

	*probe = 0;
	switch (s->kind) {
	case MW_SHAPE_INTEGER: {
		uint64_t u = 0;

		memcpy(&u, hdr, s->int_size);	/* little-endian */
		if (s->is_signed && s->int_size < 8 && (u >> (s->int_size * 8 - 1) & 1))
			u |= ~0ull << (s->int_size * 8);
		out->length = (int64_t)u;
		out->retained_known = true;
		return 0;
	}
	case MW_SHAPE_RUST_VEC:
		n = at(s, hdr, MW_SH_LEN);
		cap = at(s, hdr, MW_SH_CAP);
		ptr = at(s, hdr, MW_SH_PTR);
		if (es && (n > cap || !fits(cap, es)))
			return -EAGAIN;
		if (!es && n > MW_USER_ADDR_END)
			return -EAGAIN;
		if (es && cap) {
			bytes = cap * es;
			*probe = ptr;
		}
		break;
	case MW_SHAPE_RUST_DEQUE: {
		uint64_t head = at(s, hdr, MW_SH_HEAD);

		cap = at(s, hdr, MW_SH_CAP);
		ptr = at(s, hdr, MW_SH_PTR);
		if (!es) {
			n = s->f[MW_SH_LEN] >= 0 ? at(s, hdr, MW_SH_LEN) : 0;
			if (n > MW_USER_ADDR_END)
				return -EAGAIN;
			break;
		}
		if (!fits(cap, es) || (cap ? head >= cap : head != 0))
			return -EAGAIN;
		if (s->f[MW_SH_LEN] >= 0) {	/* head and len */
			n = at(s, hdr, MW_SH_LEN);
			if (n > cap)
				return -EAGAIN;
		} else {			/* tail and head, cap a power of two */
			uint64_t tail = at(s, hdr, MW_SH_TAIL);

			if (!cap || (cap & (cap - 1)) || tail >= cap)
				return -EAGAIN;
			n = (head - tail) & (cap - 1);
		}
		if (cap) {
			bytes = cap * es;
			*probe = ptr;
		}
		break;
	}
	case MW_SHAPE_RUST_HASH: {
		uint64_t mask = at(s, hdr, MW_SH_CAP), buckets, align, ctrl_off;

		n = at(s, hdr, MW_SH_LEN);
		ptr = at(s, hdr, MW_SH_PTR);
		if (!mask) {		/* the shared empty singleton: no allocation */
			if (n)
				return -EAGAIN;
			break;
		}
		buckets = mask + 1;
		if ((buckets & mask) || n > buckets || !fits(buckets, es + 1))
			return -EAGAIN;
		align = s->elem_align > MW_HASH_GROUP ? s->elem_align : MW_HASH_GROUP;
		ctrl_off = align_up(buckets * es, align);
		if (ptr < ctrl_off)
			return -EAGAIN;
		bytes = ctrl_off + buckets + MW_HASH_GROUP;
		*probe = ptr - ctrl_off;	/* the buckets lie below the control bytes */
		break;
	}
	case MW_SHAPE_RUST_BTREE:
		n = at(s, hdr, MW_SH_LEN);
		if (n > MW_USER_ADDR_END)
			return -EAGAIN;
		out->length = (int64_t)n;
		out->retained_known = false;	/* its nodes: the deep walk */
		return 0;
	case MW_SHAPE_CXX_VECTOR: {
		uint64_t end = at(s, hdr, MW_SH_END), store = at(s, hdr, MW_SH_STORE_END);

		ptr = at(s, hdr, MW_SH_PTR);
		if (!ptr) {
			if (end || store)
				return -EAGAIN;
			n = 0;
			break;
		}
		if (!es || end < ptr || store < end || (end - ptr) % es || (store - ptr) % es)
			return -EAGAIN;
		n = (end - ptr) / es;
		bytes = store - ptr;
		*probe = bytes ? ptr : 0;
		break;
	}
	case MW_SHAPE_CXX_STRING:
		ptr = at(s, hdr, MW_SH_PTR);
		n = at(s, hdr, MW_SH_LEN);
		if (!es)
			return -EAGAIN;
		if (ptr == addr + (uint64_t)s->f[MW_SH_LOCAL]) {	/* short: inside */
			if (n >= MW_STRING_LOCAL / es)
				return -EAGAIN;
			break;
		}
		cap = at(s, hdr, MW_SH_CAP);
		if (n > cap || cap >= MW_USER_ADDR_END || !fits(cap + 1, es))
			return -EAGAIN;
		bytes = (cap + 1) * es;
		*probe = ptr;
		break;
	case MW_SHAPE_CXX_HASH: {
		uint64_t nb = at(s, hdr, MW_SH_CAP);

		n = at(s, hdr, MW_SH_LEN);
		ptr = at(s, hdr, MW_SH_PTR);
		if (!nb || !fits(n, s->node_size) || !fits(nb, MW_PTR_BYTES))
			return -EAGAIN;
		if (ptr == addr + (uint64_t)s->f[MW_SH_LOCAL]) {	/* its one inline bucket */
			if (nb != 1)
				return -EAGAIN;
		} else {
			bytes = nb * MW_PTR_BYTES;
			*probe = ptr;
		}
		bytes += n * s->node_size;
		break;
	}
	case MW_SHAPE_CXX_NODES:
		n = at(s, hdr, MW_SH_LEN);
		if (!fits(n, s->node_size))
			return -EAGAIN;
		bytes = n * s->node_size;
		break;
	case MW_SHAPE_CXX_DEQUE: {
		uint64_t map = at(s, hdr, MW_SH_PTR), msize = at(s, hdr, MW_SH_CAP);
		uint64_t scur = at(s, hdr, MW_SH_START_CUR), slast = at(s, hdr, MW_SH_START_LAST);
		uint64_t snode = at(s, hdr, MW_SH_START_NODE), fcur = at(s, hdr, MW_SH_FINISH_CUR);
		uint64_t ffirst = at(s, hdr, MW_SH_FINISH_FIRST), fnode = at(s, hdr, MW_SH_FINISH_NODE);
		uint64_t per = es ? s->node_size / es : 0, nodes;
		int64_t len;

		if (!map) {		/* moved from: nothing allocated */
			n = 0;
			break;
		}
		if (!es || !per || !fits(msize, MW_PTR_BYTES) ||
		    !memory__range_ok(map, msize * MW_PTR_BYTES) || snode < map || fnode < snode ||
		    (snode - map) % MW_PTR_BYTES || (fnode - snode) % MW_PTR_BYTES ||
		    fnode >= map + msize * MW_PTR_BYTES || fcur < ffirst || slast < scur ||
		    fcur - ffirst > s->node_size || slast - scur > s->node_size ||
		    (fcur - ffirst) % es || (slast - scur) % es)
			return -EAGAIN;
		nodes = (fnode - snode) / MW_PTR_BYTES + 1;
		len = (int64_t)per * ((int64_t)nodes - 2) + (int64_t)((fcur - ffirst) / es) +
		      (int64_t)((slast - scur) / es);
		if (len < 0 || !fits(nodes, s->node_size))
			return -EAGAIN;
		n = (uint64_t)len;
		bytes = msize * MW_PTR_BYTES + nodes * s->node_size;
		*probe = map;
		break;
	}
	default:
		return -EAGAIN;
	}
	if (n > MW_USER_ADDR_END || bytes > MW_USER_ADDR_END)
		return -EAGAIN;		/* more than an address space holds */
	if (*probe && !memory__range_ok(*probe, bytes ? bytes : 1))
		return -EAGAIN;
	out->length = (int64_t)n;
	out->retained += bytes;
	out->retained_known = !s->elems_own || !n;
	return 0;
}

int walk__header(const struct mw_shape *s, const uint8_t *hdr, uint64_t addr,
		 struct mw_reading *out)
{
	uint64_t probe;

	if (s->span > MW_SHAPE_SPAN_MAX)
		return -EAGAIN;
	return decode(s, hdr, addr, out, &probe);
}

/* Whether the EMPTY_IF step @st holds at @addr. */
static int empty_if(pid_t pid, const struct mw_plan_step *st, uint64_t addr, bool *empty)
{
	uint64_t v = 0, where = addr + (uint64_t)st->n;
	bool in = false;
	int err;

	if (!memory__range_ok(where, st->size))
		return -EFAULT;
	err = memory__read(pid, where, &v, st->size);
	if (err)
		return err;
	v &= st->mask;
	for (int i = 0; i < st->nvalues; i++)
		in |= st->values[i] == v;
	*empty = in != st->unless;
	return 0;
}

/* One try: 0, -EFAULT, -EAGAIN, -ESRCH or -EPERM. */
static int walk_once(pid_t pid, const struct mw_plan *p, uint64_t bias, struct mw_reading *out)
{
	const struct mw_shape *s = &p->shape;
	uint8_t hdr[MW_SHAPE_SPAN_MAX], again[MW_SHAPE_SPAN_MAX], byte;
	uint64_t addr = p->root + bias, probe;
	bool empty = false;
	int err;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < p->nsteps && !empty; i++) {
		const struct mw_plan_step *st = &p->step[i];

		switch (st->op) {
		case MW_PLAN_ADD:
			addr += (uint64_t)st->n;
			continue;
		case MW_PLAN_EMPTY_IF:
			err = empty_if(pid, st, addr, &empty);
			if (err)
				return err;
			continue;
		case MW_PLAN_DEREF:
		case MW_PLAN_OWN:
			if (!memory__range_ok(addr, sizeof(addr)))
				return -EFAULT;
			err = memory__read(pid, addr, &addr, sizeof(addr));
			if (err)
				return err;
			if (st->op == MW_PLAN_OWN) {
				empty = !addr;	/* a null unique_ptr */
				out->retained += addr ? (uint64_t)st->n : 0;
			}
			continue;
		}
	}
	if (empty) {
		out->retained_known = true;
		return 0;
	}
	if (!s->span || s->span > MW_SHAPE_SPAN_MAX || !memory__range_ok(addr, s->span))
		return -EFAULT;
	err = memory__read(pid, addr, hdr, s->span);
	if (err)
		return err;
	err = decode(s, hdr, addr, out, &probe);
	if (err)
		return err;
	if (probe && (err = memory__read(pid, probe, &byte, 1)))
		return err == -EFAULT ? -EAGAIN : err;	/* a buffer that is not there */
	if (s->kind == MW_SHAPE_INTEGER)
		return 0;
	/* the same header once more: a writer was not halfway through it */
	err = memory__read(pid, addr, again, s->span);
	if (err)
		return err;
	return memcmp(hdr, again, s->span) ? -EAGAIN : 0;
}

int walk__run(pid_t pid, const struct mw_plan *p, uint64_t bias, struct mw_reading *out)
{
	int err = -EFAULT;

	for (int i = 0; i < MW_WALK_TRIES && (err == -EFAULT || err == -EAGAIN); i++)
		err = walk_once(pid, p, bias, out);
	return err;
}
