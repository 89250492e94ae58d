// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_walk.c - libFuzzer harness for the walker (decode.c, elements.c,
 * walk.c) on random memory images. The first byte picks a plan, laid out
 * as the planner lays out these types for rustc 1.95 and libstdc++: a
 * HashMap<u64, Vec<u8>>, a BTreeMap<u64, Box<u64>>, an
 * unordered_map<long, string>, a map<int, vector<int>>, a
 * list<shared_ptr<vector<int>>>, a Vec<Option<Arc<Vec<u8>>>>, a
 * deque<Vec<u8>>. The rest is a memory image at a fixed address, the
 * container's header at its start: whatever it holds (torn headers,
 * cycles, lies about lengths), the walk ends, within its limit, with
 * figures or an error, and frees what it took.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/decode.h"
#include "read/walk.h"

#define BASE	0x10000000ull
#define LIMIT	20000

struct image {
	const uint8_t *data;
	size_t len;
};

static int image_read(const struct mw_mem *m, uint64_t addr, void *buf, size_t len)
{
	const struct image *img = m->image;

	if (addr < BASE || addr - BASE > img->len || len > img->len - (addr - BASE))
		return -EFAULT;
	memcpy(buf, img->data + (addr - BASE), len);
	return 0;
}

static struct mw_shape shape(enum mw_shape_kind kind, uint64_t es, uint64_t align)
{
	struct mw_shape s = { .kind = kind, .elem_size = es, .elem_align = align,
			      .elem_prog = -1, .elem2_prog = -1 };

	for (int i = 0; i < MW_SH__COUNT; i++)
		s.f[i] = -1;
	return s;
}

static void at(struct mw_shape *s, enum mw_shape_field f, int off)
{
	s->f[f] = off;
	if (f != MW_SH_LOCAL && (uint32_t)off + 8 > s->span)
		s->span = (uint32_t)off + 8;
}

static struct mw_shape rust_vec(uint64_t es)
{
	struct mw_shape s = shape(MW_SHAPE_RUST_VEC, es, es);

	at(&s, MW_SH_CAP, 0), at(&s, MW_SH_PTR, 8), at(&s, MW_SH_LEN, 16);
	return s;
}

static struct mw_shape cxx_vector(uint64_t es)
{
	struct mw_shape s = shape(MW_SHAPE_CXX_VECTOR, es, es);

	at(&s, MW_SH_PTR, 0), at(&s, MW_SH_END, 8), at(&s, MW_SH_STORE_END, 16);
	return s;
}

/* Program @k of @p: one owner. */
static void prog(struct mw_plan *p, int k, struct mw_own o, uint32_t size)
{
	p->owns.items[p->owns.nitems] = o;
	p->owns.progs[k] = (struct mw_own_prog){ .first = (uint16_t)p->owns.nitems, .n = 1,
						 .size = size };
	p->owns.nitems++;
	if (p->owns.nprogs <= k)
		p->owns.nprogs = k + 1;
}

static void plan_of(int which, struct mw_plan *p)
{
	struct mw_shape *top = &p->shape;

	memset(p, 0, sizeof(*p));
	switch (which) {
	case 0:	/* HashMap<u64, Vec<u8>>: RawTable ctrl @0, mask @8, items @24 */
		*top = shape(MW_SHAPE_RUST_HASH, 32, 8);
		at(top, MW_SH_PTR, 0), at(top, MW_SH_CAP, 8), at(top, MW_SH_LEN, 24);
		p->shapes[p->nshapes++] = rust_vec(1);
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SHAPE, .off = 8, .idx = 0 }, 32);
		break;
	case 1:	/* BTreeMap<u64, Box<u64>>: root node @0, height @8, length @16 */
		*top = shape(MW_SHAPE_RUST_BTREE, 8, 8);
		at(top, MW_SH_PTR, 0), at(top, MW_SH_HEAD, 8), at(top, MW_SH_LEN, 16);
		top->elem2_size = 8;
		top->n_keys = 8, top->n_vals = 96, top->n_len = 186;
		top->node_size = 192, top->n_edges = 192, top->internal_size = 288;
		top->elem2_prog = 0;
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_BOX, .size = 8, .idx = -1 }, 8);
		break;
	case 2:	/* unordered_map<long, string>: buckets @0, count @8, first @16,
		 * elements @24, single bucket @48; node: next, value @8 */
		*top = shape(MW_SHAPE_CXX_HASH, 40, 8);
		at(top, MW_SH_PTR, 0), at(top, MW_SH_CAP, 8), at(top, MW_SH_NEXT, 16);
		at(top, MW_SH_LEN, 24), at(top, MW_SH_LOCAL, 48);
		top->val_off = 8, top->node_size = 48;
		p->shapes[0] = shape(MW_SHAPE_CXX_STRING, 1, 1);
		at(&p->shapes[0], MW_SH_PTR, 0), at(&p->shapes[0], MW_SH_LEN, 8);
		at(&p->shapes[0], MW_SH_CAP, 16), at(&p->shapes[0], MW_SH_LOCAL, 16);
		p->nshapes = 1;
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SHAPE, .off = 8, .idx = 0 }, 40);
		break;
	case 3:	/* map<int, vector<int>>: root @16, count @40; value @32 */
		*top = shape(MW_SHAPE_CXX_TREE, 32, 8);
		at(top, MW_SH_NEXT, 16), at(top, MW_SH_LEN, 40);
		top->val_off = 32, top->node_size = 64;
		p->shapes[p->nshapes++] = cxx_vector(4);
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SHAPE, .off = 8, .idx = 0 }, 32);
		break;
	case 4:	/* list<shared_ptr<vector<int>>>: next @0, its node @0, size @16 */
		*top = shape(MW_SHAPE_CXX_LIST, 16, 8);
		at(top, MW_SH_NEXT, 0), at(top, MW_SH_LOCAL, 0), at(top, MW_SH_LEN, 16);
		top->val_off = 16, top->node_size = 32;
		p->shapes[p->nshapes++] = cxx_vector(4);
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SHARED_CXX, .size = 24, .inner = 8,
					    .idx = 1 }, 16);
		prog(p, 1, (struct mw_own){ .kind = MW_OWN_SHAPE, .idx = 0 }, 24);
		break;
	case 5:	/* Vec<Option<Arc<Vec<u8>>>>: None is a null pointer */
		*top = rust_vec(8);
		p->shapes[p->nshapes++] = rust_vec(1);
		p->owns.cases[p->owns.ncases++] = (struct mw_own_case){ .valued = false, .prog = 1 };
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SWITCH, .dsize = 8, .dmask = ~0ull,
					    .first = 0, .n = 1 }, 8);
		prog(p, 1, (struct mw_own){ .kind = MW_OWN_SHARED, .size = 40, .inner = 16,
					    .idx = 2 }, 8);
		prog(p, 2, (struct mw_own){ .kind = MW_OWN_SHAPE, .idx = 0 }, 24);
		break;
	default: /* deque<Vec<u8>>: map @0, size @8, start @16, finish @48 */
		*top = shape(MW_SHAPE_CXX_DEQUE, 24, 8);
		at(top, MW_SH_PTR, 0), at(top, MW_SH_CAP, 8), at(top, MW_SH_START_CUR, 16);
		at(top, MW_SH_START_LAST, 32), at(top, MW_SH_START_NODE, 40);
		at(top, MW_SH_FINISH_CUR, 48), at(top, MW_SH_FINISH_FIRST, 56);
		at(top, MW_SH_FINISH_NODE, 72);
		top->node_size = 504;
		p->shapes[p->nshapes++] = rust_vec(1);
		prog(p, 0, (struct mw_own){ .kind = MW_OWN_SHAPE, .idx = 0 }, 24);
		break;
	}
	top->elem_prog = top->kind == MW_SHAPE_RUST_BTREE ? -1 : 0;
	top->elems_own = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mw_plan p;
	struct image img = { data + 1, size > 0 ? size - 1 : 0 };
	struct mw_mem m = { .read = image_read, .image = &img };
	struct mw_reading r;
	int err;

	if (size < 2)
		return 0;
	plan_of(data[0] % 7, &p);
	err = walk__run(&m, &p, BASE, LIMIT, &r);
	if (err && err != -EFAULT && err != -EAGAIN && err != -E2BIG && err != -ELOOP)
		abort();	/* no other error can come of an image */
	if (!err && (r.length < 0 || r.retained > (1ull << 60) || r.visited > LIMIT))
		abort();	/* figures no memory holds */
	return 0;
}
