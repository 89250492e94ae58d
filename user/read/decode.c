// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - a container's header, read whole from the target, made into
 * figures: one function a kind, each checking its fields against each
 * other and the address space before believing them. The facts: Rust's
 * RawVec and hashbrown's TableLayout, libstdc++'s headers.
 */
#include <errno.h>
#include <string.h>
#include "process/memory.h"
#include "read/decode.h"

#define MW_PTR_BYTES	8
#define MW_HASH_GROUP	16	/* hashbrown's Group::WIDTH with SSE2 */
#define MW_STRING_LOCAL	16	/* libstdc++ string's local buffer, bytes */

uint64_t decode__word(const struct mw_shape *s, const uint8_t *hdr, enum mw_shape_field f)
{
	uint64_t v;

	memcpy(&v, hdr + s->f[f], sizeof(v));
	return v;
}

static uint64_t at(const struct mw_shape *s, const uint8_t *hdr, enum mw_shape_field f)
{
	return decode__word(s, hdr, f);
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

/* Each kind's reading of its header @h, at @addr: 0, or -EAGAIN when its
 * fields do not hold together. */
typedef int (*decoder)(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		       struct mw_figures *f);

static int rust_vec(const struct mw_shape *s, const uint8_t *h, uint64_t addr, struct mw_figures *f)
{
	uint64_t es = s->elem_size, cap = at(s, h, MW_SH_CAP);

	(void)addr;
	f->n = at(s, h, MW_SH_LEN);
	if (!es)		/* zero-sized elements: nothing allocated */
		return 0;
	if (f->n > cap || !fits(cap, es))
		return -EAGAIN;
	if (cap) {
		f->bytes = cap * es;
		f->probe = at(s, h, MW_SH_PTR);
	}
	return 0;
}

/* VecDeque: head and len (1.67 on), or tail and head in a power-of-two
 * buffer before. */
static int rust_deque(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		      struct mw_figures *f)
{
	uint64_t es = s->elem_size, cap = at(s, h, MW_SH_CAP), head = at(s, h, MW_SH_HEAD);

	(void)addr;
	if (!es) {
		f->n = s->f[MW_SH_LEN] >= 0 ? at(s, h, MW_SH_LEN) : 0;
		return 0;
	}
	if (!fits(cap, es) || (cap ? head >= cap : head != 0))
		return -EAGAIN;
	if (s->f[MW_SH_LEN] >= 0) {
		f->n = at(s, h, MW_SH_LEN);
		if (f->n > cap)
			return -EAGAIN;
	} else {
		uint64_t tail = at(s, h, MW_SH_TAIL);

		if (!cap || (cap & (cap - 1)) || tail >= cap)
			return -EAGAIN;
		f->n = (head - tail) & (cap - 1);
	}
	if (cap) {
		f->bytes = cap * es;
		f->probe = at(s, h, MW_SH_PTR);
	}
	return 0;
}

/* hashbrown: one allocation of the buckets, rounded up to the control
 * bytes' alignment, a control byte each and a group more; the buckets lie
 * below the control bytes the table points at. */
static int rust_hash(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		     struct mw_figures *f)
{
	uint64_t mask = at(s, h, MW_SH_CAP), ctrl = at(s, h, MW_SH_PTR), buckets, align, ctrl_off;

	(void)addr;
	f->n = at(s, h, MW_SH_LEN);
	if (!mask)		/* the shared empty singleton: no allocation */
		return f->n ? -EAGAIN : 0;
	buckets = mask + 1;
	if ((buckets & mask) || f->n > buckets || !fits(buckets, s->elem_size + 1))
		return -EAGAIN;
	align = s->elem_align > MW_HASH_GROUP ? s->elem_align : MW_HASH_GROUP;
	ctrl_off = align_up(buckets * s->elem_size, align);
	if (ctrl < ctrl_off)
		return -EAGAIN;
	f->bytes = ctrl_off + buckets + MW_HASH_GROUP;
	f->probe = ctrl - ctrl_off;
	return 0;
}

/* BTreeMap: its length; its nodes' bytes come from walking them. */
static int rust_btree(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		      struct mw_figures *f)
{
	uint64_t height = at(s, h, MW_SH_HEAD), root = at(s, h, MW_SH_PTR);

	(void)addr;
	f->n = at(s, h, MW_SH_LEN);
	if (!root)
		return f->n ? -EAGAIN : 0;
	if (height >= MW_BTREE_HEIGHT_MAX || !memory__range_ok(root, s->node_size))
		return -EAGAIN;
	f->probe = root;
	return 0;
}

static int cxx_vector(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		      struct mw_figures *f)
{
	uint64_t es = s->elem_size, start = at(s, h, MW_SH_PTR), end = at(s, h, MW_SH_END);
	uint64_t store = at(s, h, MW_SH_STORE_END);

	(void)addr;
	if (!start)
		return end || store ? -EAGAIN : 0;
	if (!es || end < start || store < end || (end - start) % es || (store - start) % es)
		return -EAGAIN;
	f->n = (end - start) / es;
	f->bytes = store - start;
	f->probe = f->bytes ? start : 0;
	return 0;
}

/* A short string lives in the object; a long one owns capacity + 1. */
static int cxx_string(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		      struct mw_figures *f)
{
	uint64_t es = s->elem_size, p = at(s, h, MW_SH_PTR), cap;

	f->n = at(s, h, MW_SH_LEN);
	if (!es)
		return -EAGAIN;
	if (p == addr + (uint64_t)s->f[MW_SH_LOCAL])
		return f->n >= MW_STRING_LOCAL / es ? -EAGAIN : 0;
	cap = at(s, h, MW_SH_CAP);
	if (f->n > cap || cap >= MW_USER_ADDR_END || !fits(cap + 1, es))
		return -EAGAIN;
	f->bytes = (cap + 1) * es;
	f->probe = p;
	return 0;
}

/* Nodes, and the bucket array unless the one inline bucket. */
static int cxx_hash(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		    struct mw_figures *f)
{
	uint64_t nb = at(s, h, MW_SH_CAP), buckets = at(s, h, MW_SH_PTR);

	f->n = at(s, h, MW_SH_LEN);
	if (!nb || !fits(f->n, s->node_size) || !fits(nb, MW_PTR_BYTES))
		return -EAGAIN;
	if (buckets == addr + (uint64_t)s->f[MW_SH_LOCAL]) {
		if (nb != 1)
			return -EAGAIN;
	} else {
		f->bytes = nb * MW_PTR_BYTES;
		f->probe = buckets;
	}
	f->bytes += f->n * s->node_size;
	return 0;
}

static int cxx_nodes(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		     struct mw_figures *f)
{
	(void)addr;
	f->n = at(s, h, MW_SH_LEN);
	if (!fits(f->n, s->node_size))
		return -EAGAIN;
	f->bytes = f->n * s->node_size;
	return 0;
}

/* A map of node pointers, a buffer each from the start's node to the
 * finish's; the elements from the start's cursor to the finish's. */
static int cxx_deque(const struct mw_shape *s, const uint8_t *h, uint64_t addr,
		     struct mw_figures *f)
{
	uint64_t es = s->elem_size, map = at(s, h, MW_SH_PTR), msize = at(s, h, MW_SH_CAP);
	uint64_t scur = at(s, h, MW_SH_START_CUR), slast = at(s, h, MW_SH_START_LAST);
	uint64_t snode = at(s, h, MW_SH_START_NODE), fcur = at(s, h, MW_SH_FINISH_CUR);
	uint64_t ffirst = at(s, h, MW_SH_FINISH_FIRST), fnode = at(s, h, MW_SH_FINISH_NODE);
	uint64_t per = es ? s->node_size / es : 0, nodes;
	int64_t len;

	(void)addr;
	if (!map)		/* moved from: nothing allocated */
		return 0;
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
	f->n = (uint64_t)len;
	f->bytes = msize * MW_PTR_BYTES + nodes * s->node_size;
	f->probe = map;
	return 0;
}

static const decoder decoders[MW_SHAPE__COUNT] = {
	[MW_SHAPE_RUST_VEC] = rust_vec,
	[MW_SHAPE_RUST_DEQUE] = rust_deque,
	[MW_SHAPE_RUST_HASH] = rust_hash,
	[MW_SHAPE_RUST_BTREE] = rust_btree,
	[MW_SHAPE_CXX_VECTOR] = cxx_vector,
	[MW_SHAPE_CXX_STRING] = cxx_string,
	[MW_SHAPE_CXX_HASH] = cxx_hash,
	[MW_SHAPE_CXX_TREE] = cxx_nodes,
	[MW_SHAPE_CXX_LIST] = cxx_nodes,
	[MW_SHAPE_CXX_DEQUE] = cxx_deque,
};

int64_t decode__integer(const struct mw_shape *s, const uint8_t *hdr)
{
	uint64_t u = 0;

	memcpy(&u, hdr, s->int_size);	/* little-endian */
	if (s->is_signed && s->int_size < 8 && (u >> (s->int_size * 8 - 1) & 1))
		u |= ~0ull << (s->int_size * 8);
	return (int64_t)u;
}

int decode__header(const struct mw_shape *s, const uint8_t *hdr, uint64_t addr,
		   struct mw_figures *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	if (s->kind >= MW_SHAPE__COUNT || !decoders[s->kind] || s->span > MW_SHAPE_SPAN_MAX)
		return -EAGAIN;
	err = decoders[s->kind](s, hdr, addr, f);
	if (err)
		return err;
	if (f->n > MW_USER_ADDR_END || f->bytes > MW_USER_ADDR_END)
		return -EAGAIN;		/* more than an address space holds */
	if (f->probe && !memory__range_ok(f->probe, f->bytes ? f->bytes : 1))
		return -EAGAIN;
	return 0;
}
