// SPDX-License-Identifier: GPL-2.0
/*
 * elements.c - elements and what they own, walked by their programs. Each
 * container's header is decoded (decode.h) where it lies, inside the value
 * that holds it; its elements are read a chunk at a time into the buffer
 * of its depth, and each element's program runs on its copy one depth
 * further, so no buffer is reused while a copy in it is being read. The
 * facts: hashbrown's control bytes (a full bucket's top bit is clear, its
 * element lies below the control bytes, bucket i at ctrl - (i + 1) * size),
 * Rust's BTreeMap nodes (#[repr(C)] LeafNode, then InternalNode's edges),
 * libstdc++'s node links (_Hash_node_base's next, _Rb_tree_node_base's
 * colour, parent, left, right; _List_node_base's next, prev) and
 * shared_ptr's control blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "process/memory.h"
#include "read/decode.h"
#include "read/elements.h"

#define MW_PTR_BYTES	8
#define MW_TREE_STACK	128	/* a red-black tree this deep is garbage */
#define MW_TREE_LEFT	16	/* _Rb_tree_node_base: colour, parent, left, right */
#define MW_TREE_RIGHT	24
#define MW_SP_BASE	16	/* _Sp_counted_base: vtable, use and weak counts */
#define MW_SP_PTR_BLOCK	24	/* _Sp_counted_ptr: the base, the object's pointer */
#define MW_MAP_WINDOW	512	/* a deque's node pointers read at once */

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return a ? (n + a - 1) / a * a : n;
}

static int rd(struct mw_deep *d, uint64_t addr, void *buf, size_t len)
{
	if (!memory__range_ok(addr, len))
		return -EFAULT;
	return d->mem->read(d->mem, addr, buf, len);
}

/* A node or block of @len bytes at @addr, through a window of memory
 * around it: nodes allocated one after another are read in one call. */
static int rd_small(struct mw_deep *d, uint64_t addr, void *buf, size_t len)
{
	uint64_t base = addr & ~(uint64_t)(MW_DEEP_WINDOW - 1);

	if (len > MW_DEEP_WINDOW || !memory__range_ok(addr, len))
		return rd(d, addr, buf, len);
	if (!(d->cache_len && addr >= d->cache_base && addr + len <= d->cache_base + d->cache_len)) {
		if (!d->cache && !(d->cache = malloc(MW_DEEP_WINDOW)))
			return -ENOMEM;
		d->cache_len = 0;
		if (base + MW_DEEP_WINDOW < addr + len ||
		    d->mem->read(d->mem, base, d->cache, MW_DEEP_WINDOW))
			return rd(d, addr, buf, len);	/* the window is not all mapped */
		d->cache_base = base;
		d->cache_len = MW_DEEP_WINDOW;
	}
	memcpy(buf, d->cache + (addr - d->cache_base), len);
	return 0;
}

/* Whether the target maps @addr: by the mappings read this sample, and
 * where they do not have it (a mapping made since: a table that grew into
 * a new mmap), by reading a byte there. 0, -EFAULT, or a read's error. */
static int mapped(struct mw_deep *d, uint64_t addr)
{
	const struct mw_maps *m = d->mem->maps;
	size_t lo = 0, hi;
	uint8_t byte;

	for (hi = m ? m->n : 0; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else if (m->v[mid].perms[0] == 'r')
			return 0;
		else
			break;
	}
	return rd(d, addr, &byte, 1);
}

static int visit(struct mw_deep *d, uint64_t n)
{
	d->visits += n;
	return d->visits > d->limit ? -E2BIG : 0;
}

/* The chunk buffer of @depth into @out: 0, -ELOOP, -ENOMEM. */
static int chunk(struct mw_deep *d, int depth, uint8_t **out)
{
	if (depth < 0 || depth > MW_DEEP_DEPTH)
		return -ELOOP;
	if (!d->buf[depth] && !(d->buf[depth] = malloc(MW_DEEP_CHUNK)))
		return -ENOMEM;
	*out = d->buf[depth];
	return 0;
}

/* 1 if the block at @addr was counted this walk; else 0, now noted. */
static int seen(struct mw_deep *d, uint64_t addr)
{
	size_t i;

	if ((d->nseen + 1) * 2 > d->capseen) {
		size_t cap = d->capseen ? d->capseen * 2 : 256;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < d->capseen; k++) {
			if (!d->seen[k])
				continue;
			for (i = (d->seen[k] >> 4) * 0x9e3779b97f4a7c15ull & (cap - 1); v[i];
			     i = (i + 1) & (cap - 1))
				;
			v[i] = d->seen[k];
		}
		free(d->seen);
		d->seen = v;
		d->capseen = cap;
	}
	for (i = (addr >> 4) * 0x9e3779b97f4a7c15ull & (d->capseen - 1); d->seen[i];
	     i = (i + 1) & (d->capseen - 1))
		if (d->seen[i] == addr)
			return 1;
	d->seen[i] = addr;
	d->nseen++;
	return 0;
}

static int value(struct mw_deep *d, int prog, const uint8_t *val, uint64_t addr, int depth);
static int container(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr,
		     uint64_t addr, int depth, uint64_t *n);

/* The block of @size bytes at @ptr, owned: its value (at @inner in it)
 * by @prog. The block's copy takes the next depth's buffer, so its value
 * runs two depths further: its own containers must not overwrite it. */
static int block(struct mw_deep *d, int prog, uint64_t ptr, uint64_t size, uint64_t inner,
		 int depth)
{
	uint8_t *buf;
	int err;

	if (prog < 0)
		return 0;
	if (size > MW_DEEP_CHUNK || inner + d->p->owns.progs[prog].size > size)
		return -EAGAIN;
	err = chunk(d, depth + 1, &buf);
	if (!err)
		err = rd_small(d, ptr, buf, size);
	return err ? err : value(d, prog, buf + inner, ptr + inner, depth + 2);
}

/* A shared_ptr's blocks: one from make_shared (its control block holds
 * the object), or a control block and the object apart. */
static int shared_cxx(struct mw_deep *d, const struct mw_own *o, const uint8_t *val, int depth)
{
	uint64_t obj = rd64(val + o->off), pi = rd64(val + o->off + MW_PTR_BYTES);
	uint64_t inplace = align_up(MW_SP_BASE, o->inner);
	int r;

	if (!pi)
		return 0;	/* empty */
	r = seen(d, pi);
	if (r)
		return r < 0 ? r : 0;
	r = visit(d, 1);
	if (r)
		return r;
	if (obj == pi + inplace) {
		d->retained += align_up(inplace + o->size, o->inner > MW_PTR_BYTES ? o->inner :
									      MW_PTR_BYTES);
	} else {
		d->retained += MW_SP_PTR_BLOCK;
		if (obj) {
			r = seen(d, obj);
			if (r < 0)
				return r;
			if (r)
				return 0;
			d->retained += o->size;
		}
	}
	return obj ? block(d, o->idx, obj, o->size, 0, depth) : 0;
}

static int owner(struct mw_deep *d, const struct mw_own *o, const uint8_t *val, uint64_t addr,
		 int depth)
{
	const struct mw_owns *ow = &d->p->owns;
	uint64_t ptr, n, dv = 0;
	int r;

	switch (o->kind) {
	case MW_OWN_SHAPE:
		return container(d, &d->p->shapes[o->idx], val + o->off, addr + o->off, depth, &n);
	case MW_OWN_BOX:
		ptr = rd64(val + o->off);
		if (!ptr)
			return o->nullable ? 0 : -EAGAIN;	/* a Box is never null */
		r = visit(d, 1);
		if (r)
			return r;
		d->retained += o->size;
		return block(d, o->idx, ptr, o->size, 0, depth);
	case MW_OWN_SHARED:
		ptr = rd64(val + o->off);
		if (!ptr)
			return -EAGAIN;		/* an Arc or Rc is never null */
		r = seen(d, ptr);
		if (r)
			return r < 0 ? r : 0;	/* counted through another owner */
		r = visit(d, 1);
		if (r)
			return r;
		d->retained += o->size;
		return block(d, o->idx, ptr, o->size, o->inner, depth);
	case MW_OWN_SHARED_CXX:
		return shared_cxx(d, o, val, depth);
	case MW_OWN_VALUE:
		return value(d, o->idx, val + o->off, addr + o->off, depth);
	case MW_OWN_ARRAY:
		for (uint32_t k = 0; k < o->count; k++) {
			r = value(d, o->idx, val + o->off + (uint64_t)k * o->stride,
				  addr + o->off + (uint64_t)k * o->stride, depth);
			if (r)
				return r;
		}
		return 0;
	case MW_OWN_SWITCH:
		memcpy(&dv, val + o->off + o->inner, o->dsize);
		dv &= o->dmask;
		for (int pass = 0; pass < 2; pass++)	/* a value's own case, else the default */
			for (uint16_t k = o->first; k < o->first + o->n; k++) {
				const struct mw_own_case *c = &ow->cases[k];

				if (pass ? c->valued : !c->valued || c->value != dv)
					continue;
				return value(d, c->prog, val + o->off + c->off, addr + o->off + c->off,
					     depth);
			}
		return 0;
	}
	return -EAGAIN;
}

static int value(struct mw_deep *d, int prog, const uint8_t *val, uint64_t addr, int depth)
{
	const struct mw_owns *ow = &d->p->owns;
	int r;

	if (prog < 0)
		return 0;
	if (depth > MW_DEEP_DEPTH)
		return -ELOOP;
	for (uint16_t i = ow->progs[prog].first; i < ow->progs[prog].first + ow->progs[prog].n; i++) {
		r = owner(d, &ow->items[i], val, addr, depth);
		if (r)
			return r;
	}
	return 0;
}

/* @n elements of @es bytes from @base, a chunk at a time. */
static int elements(struct mw_deep *d, int prog, uint64_t base, uint64_t n, uint64_t es,
		    int depth)
{
	uint64_t per = es ? MW_DEEP_CHUNK / es : 0;
	uint8_t *buf;
	int r;

	if (prog < 0 || !n)
		return 0;
	if (!per)
		return -EAGAIN;
	r = chunk(d, depth, &buf);
	for (uint64_t i = 0; !r && i < n; i += per) {
		uint64_t k = n - i < per ? n - i : per;

		r = visit(d, k);
		if (!r)
			r = rd(d, base + i * es, buf, k * es);
		for (uint64_t j = 0; !r && j < k; j++)
			r = value(d, prog, buf + j * es, base + (i + j) * es, depth + 1);
	}
	return r;
}

/* hashbrown: windows of buckets, their control bytes and their elements
 * (which lie in reverse order below the control bytes) read at once. */
static int rust_hash(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr, uint64_t n,
		     int depth)
{
	uint64_t buckets = decode__word(s, hdr, MW_SH_CAP) + 1, ctrl = decode__word(s, hdr, MW_SH_PTR);
	uint64_t es = s->elem_size, per = MW_DEEP_CHUNK / (es + 1), full = 0;
	uint8_t *buf;
	int r;

	if (s->elem_prog < 0 || !n || !es)
		return 0;
	if (buckets / 8 > d->limit)
		return -E2BIG;
	r = chunk(d, depth, &buf);
	for (uint64_t i0 = 0; !r && i0 < buckets; i0 += per) {
		uint64_t i1 = buckets - i0 < per ? buckets : i0 + per, cnt = i1 - i0;
		uint8_t *data = buf + cnt;

		r = rd(d, ctrl + i0, buf, cnt);
		if (!r)
			r = rd(d, ctrl - i1 * es, data, cnt * es);
		for (uint64_t i = i0; !r && i < i1; i++) {
			if (buf[i - i0] & 0x80)
				continue;	/* empty or deleted */
			if (++full > n)
				return -EAGAIN;
			r = visit(d, 1);
			if (!r)
				r = value(d, s->elem_prog, data + (i1 - 1 - i) * es,
					  ctrl - (i + 1) * es, depth + 1);
		}
	}
	return r ? r : full == n ? 0 : -EAGAIN;
}

struct btree {
	const struct mw_shape *s;
	uint8_t *bufs;		/* a node's buffer a height */
	uint64_t count;
	int depth;
};

static int btree_node(struct mw_deep *d, struct btree *b, uint64_t node, uint64_t h)
{
	const struct mw_shape *s = b->s;
	uint64_t size = h ? s->internal_size : s->node_size, vs = s->elem2_size;
	uint8_t *buf = b->bufs + h * s->internal_size;
	uint16_t len;
	int r = visit(d, 1);

	if (!r)
		r = rd_small(d, node, buf, size);
	if (r)
		return r;
	d->retained += size;
	memcpy(&len, buf + s->n_len, sizeof(len));
	if (len > MW_BTREE_CAPACITY)
		return -EAGAIN;
	b->count += len;
	for (uint16_t k = 0; !r && k < len; k++) {
		r = value(d, s->elem_prog, buf + s->n_keys + k * s->elem_size,
			  node + s->n_keys + k * s->elem_size, b->depth + 1);
		if (!r)
			r = value(d, s->elem2_prog, buf + s->n_vals + k * vs, node + s->n_vals + k * vs,
				  b->depth + 1);
	}
	for (uint16_t k = 0; !r && h && k <= len; k++) {
		uint64_t child = rd64(buf + s->n_edges + k * MW_PTR_BYTES);

		r = child ? btree_node(d, b, child, h - 1) : -EAGAIN;
	}
	return r;
}

/* A BTreeMap's nodes from its root, by its height: their bytes, and their
 * keys' and values'. */
static int rust_btree(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr, uint64_t n,
		      int depth)
{
	uint64_t height = decode__word(s, hdr, MW_SH_HEAD), root = decode__word(s, hdr, MW_SH_PTR);
	struct btree b = { .s = s, .depth = depth };
	int r;

	if (!root)
		return 0;
	if (s->internal_size > MW_DEEP_CHUNK)
		return -EAGAIN;
	b.bufs = malloc((height + 1) * s->internal_size);	/* height < MW_BTREE_HEIGHT_MAX */
	if (!b.bufs)
		return -ENOMEM;
	r = btree_node(d, &b, root, height);
	free(b.bufs);
	return r ? r : b.count == n ? 0 : -EAGAIN;
}

/* A singly linked chain of @n nodes from @node, the link first in each
 * (an unordered container's), ending in NULL; or (a list's), when @head,
 * back at @head. */
static int chain(struct mw_deep *d, const struct mw_shape *s, uint64_t node, uint64_t n,
		 uint64_t head, int depth)
{
	uint8_t *buf;
	int r = chunk(d, depth, &buf);

	if (s->node_size > MW_DEEP_CHUNK)
		return -EAGAIN;
	for (uint64_t k = 0; !r && k < n; k++) {
		if (!node || node == head)
			return -EAGAIN;	/* fewer nodes than the count */
		r = visit(d, 1);
		if (!r)
			r = rd_small(d, node, buf, s->node_size);
		if (!r)
			r = value(d, s->elem_prog, buf + s->val_off, node + s->val_off, depth + 1);
		node = rd64(buf);
	}
	if (r)
		return r;
	return node == (head ? head : 0) ? 0 : -EAGAIN;	/* more than the count */
}

static int cxx_tree(struct mw_deep *d, const struct mw_shape *s, uint64_t root, uint64_t n,
		    int depth)
{
	uint64_t stack[MW_TREE_STACK], count = 0;
	int sp = 0, r = 0;
	uint8_t *buf;

	if (!root)
		return n ? -EAGAIN : 0;
	if (s->node_size > MW_DEEP_CHUNK)
		return -EAGAIN;
	r = chunk(d, depth, &buf);
	stack[sp++] = root;
	while (!r && sp) {
		uint64_t node = stack[--sp], kid[2];

		if (++count > n)
			return -EAGAIN;
		r = visit(d, 1);
		if (!r)
			r = rd_small(d, node, buf, s->node_size);
		if (!r)
			r = value(d, s->elem_prog, buf + s->val_off, node + s->val_off, depth + 1);
		kid[0] = rd64(buf + MW_TREE_RIGHT);
		kid[1] = rd64(buf + MW_TREE_LEFT);
		for (int k = 0; !r && k < 2; k++) {
			if (!kid[k])
				continue;
			if (sp == MW_TREE_STACK)
				return -EAGAIN;
			stack[sp++] = kid[k];
		}
	}
	return r ? r : count == n ? 0 : -EAGAIN;
}

/* A deque's buffers, from the start's node to the finish's: the first
 * from the start's cursor, the last to the finish's. */
static int cxx_deque(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr, int depth)
{
	uint64_t snode = decode__word(s, hdr, MW_SH_START_NODE);
	uint64_t fnode = decode__word(s, hdr, MW_SH_FINISH_NODE);
	uint64_t scur = decode__word(s, hdr, MW_SH_START_CUR);
	uint64_t slast = decode__word(s, hdr, MW_SH_START_LAST);
	uint64_t fcur = decode__word(s, hdr, MW_SH_FINISH_CUR);
	uint64_t ffirst = decode__word(s, hdr, MW_SH_FINISH_FIRST), es = s->elem_size;
	uint64_t nodes = (fnode - snode) / MW_PTR_BYTES + 1, map[MW_MAP_WINDOW];
	int r = 0;

	if (s->elem_prog < 0 || !decode__word(s, hdr, MW_SH_PTR))
		return 0;
	if (snode == fnode)
		return fcur < scur || (fcur - scur) % es ? -EAGAIN :
		       elements(d, s->elem_prog, scur, (fcur - scur) / es, es, depth);
	for (uint64_t k0 = 0; !r && k0 < nodes; k0 += MW_MAP_WINDOW) {
		uint64_t cnt = nodes - k0 < MW_MAP_WINDOW ? nodes - k0 : MW_MAP_WINDOW;

		r = rd(d, snode + k0 * MW_PTR_BYTES, map, cnt * MW_PTR_BYTES);
		for (uint64_t k = 0; !r && k < cnt; k++) {
			uint64_t i = k0 + k, from = map[k], to = map[k] + s->node_size;

			if (i == 0)
				from = scur, to = slast;
			else if (i == nodes - 1)
				to = fcur, from = ffirst;
			if (to < from || (to - from) % es)
				return -EAGAIN;
			r = elements(d, s->elem_prog, from, (to - from) / es, es, depth);
		}
	}
	return r;
}

static int container(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr,
		     uint64_t addr, int depth, uint64_t *n)
{
	struct mw_figures f;
	int r = decode__header(s, hdr, addr, &f);

	if (r)
		return r;
	if (f.probe && (r = mapped(d, f.probe)))
		return r == -EFAULT ? -EAGAIN : r;	/* a buffer that is not there */
	*n = f.n;
	d->retained += f.bytes;
	switch (s->kind) {
	case MW_SHAPE_RUST_VEC:
		return elements(d, s->elem_prog, decode__word(s, hdr, MW_SH_PTR), f.n, s->elem_size,
				depth);
	case MW_SHAPE_CXX_VECTOR:
		return elements(d, s->elem_prog, decode__word(s, hdr, MW_SH_PTR), f.n, s->elem_size,
				depth);
	case MW_SHAPE_RUST_DEQUE: {
		uint64_t cap = decode__word(s, hdr, MW_SH_CAP), ptr = decode__word(s, hdr, MW_SH_PTR);
		uint64_t first = s->f[MW_SH_TAIL] >= 0 ? decode__word(s, hdr, MW_SH_TAIL) :
							  decode__word(s, hdr, MW_SH_HEAD);
		uint64_t run = cap - first < f.n ? cap - first : f.n;

		if (!s->elem_size)
			return 0;
		r = elements(d, s->elem_prog, ptr + first * s->elem_size, run, s->elem_size, depth);
		return r ? r : elements(d, s->elem_prog, ptr, f.n - run, s->elem_size, depth);
	}
	case MW_SHAPE_RUST_HASH:
		return rust_hash(d, s, hdr, f.n, depth);
	case MW_SHAPE_RUST_BTREE:
		return rust_btree(d, s, hdr, f.n, depth);
	case MW_SHAPE_CXX_HASH:
		if (s->elem_prog < 0)
			return 0;
		return chain(d, s, decode__word(s, hdr, MW_SH_NEXT), f.n, 0, depth);
	case MW_SHAPE_CXX_LIST:
		if (s->elem_prog < 0)
			return 0;
		return chain(d, s, decode__word(s, hdr, MW_SH_NEXT), f.n,
			     addr + (uint64_t)s->f[MW_SH_LOCAL], depth);
	case MW_SHAPE_CXX_TREE:
		if (s->elem_prog < 0)
			return 0;
		return cxx_tree(d, s, decode__word(s, hdr, MW_SH_NEXT), f.n, depth);
	case MW_SHAPE_CXX_DEQUE:
		return cxx_deque(d, s, hdr, depth);
	default:
		return 0;
	}
}

void elements__init(struct mw_deep *d, const struct mw_mem *m, const struct mw_plan *p,
		uint64_t limit)
{
	memset(d, 0, sizeof(*d));
	d->mem = m;
	d->p = p;
	d->limit = limit;
}

void elements__free(struct mw_deep *d)
{
	for (int i = 0; i <= MW_DEEP_DEPTH; i++)
		free(d->buf[i]);
	free(d->seen);
	free(d->cache);
	memset(d, 0, sizeof(*d));
}

int elements__container(struct mw_deep *d, const struct mw_shape *s, const uint8_t *hdr,
		    uint64_t addr, uint64_t *n)
{
	return container(d, s, hdr, addr, 0, n);
}

int elements__value(struct mw_deep *d, int prog, const uint8_t *val, uint64_t addr)
{
	return value(d, prog, val, addr, 0);
}
