// SPDX-License-Identifier: GPL-2.0
/*
 * test_walk.c - a container's figures from its header alone (decode.c),
 * on headers laid out as rustc 1.95 and GCC 12's libstdc++ lay them out:
 * the length, the bytes its buffers were allocated with (hashbrown's
 * control bytes and group padding, a string's terminator, a deque's map
 * and buffers), and headers a writer tore or garbage fills refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include "read/decode.h"

#define ADDR	0x7f0000001000ull	/* where the header is */
#define BUF	0x560000002000ull	/* a buffer it points at */

static struct mw_shape shape(enum mw_shape_kind kind, uint64_t elem, uint64_t align)
{
	struct mw_shape s = { .kind = kind, .elem_size = elem, .elem_align = align };

	for (int i = 0; i < MW_SH__COUNT; i++)
		s.f[i] = -1;
	return s;
}

static void put(uint8_t *hdr, struct mw_shape *s, enum mw_shape_field f, int off, uint64_t v)
{
	s->f[f] = off;
	if ((uint32_t)off + 8 > s->span && f != MW_SH_LOCAL)
		s->span = (uint32_t)off + 8;
	memcpy(hdr + off, &v, sizeof(v));
}

static struct mw_figures run(const struct mw_shape *s, const uint8_t *hdr, int want)
{
	struct mw_figures r = { 0 };

	cr_assert_eq(decode__header(s, hdr, ADDR, &r), want, "decode gives %d", want);
	return r;
}

/* Vec<u32>: cap @0, ptr @8, len @16 */
static struct mw_shape vec(uint8_t *hdr, uint64_t cap, uint64_t ptr, uint64_t len)
{
	struct mw_shape s = shape(MW_SHAPE_RUST_VEC, 4, 4);

	put(hdr, &s, MW_SH_CAP, 0, cap);
	put(hdr, &s, MW_SH_PTR, 8, ptr);
	put(hdr, &s, MW_SH_LEN, 16, len);
	return s;
}

Test(walk, rust_vec__capacity_bytes)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = vec(hdr, 100, BUF, 37);
	struct mw_figures r = run(&s, hdr, 0);

	cr_expect_eq(r.n, 37);
	cr_expect_eq(r.bytes, 400, "cap * size_of::<u32>(): what it asked the allocator for");
	s = vec(hdr, 0, 4, 0);	/* Vec::new(): a dangling pointer, nothing allocated */
	r = run(&s, hdr, 0);
	cr_expect_eq(r.bytes, 0);
	s = vec(hdr, 10, BUF, 11);
	run(&s, hdr, -EAGAIN);	/* len past cap: torn or garbage */
	s = vec(hdr, 1ull << 62, BUF, 1);
	run(&s, hdr, -EAGAIN);	/* more than an address space */
	s = vec(hdr, 10, 0x10, 1);
	run(&s, hdr, -EAGAIN);	/* a buffer in the null page */
}

Test(walk, hashbrown__buckets_control_bytes_and_group)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = shape(MW_SHAPE_RUST_HASH, 16, 8);	/* (u64, u64) */
	struct mw_figures r;

	/* RawTableInner in 1.95: ctrl @0, bucket_mask @8, items @24 */
	put(hdr, &s, MW_SH_PTR, 0, BUF + 512 * 16);
	put(hdr, &s, MW_SH_CAP, 8, 511);
	put(hdr, &s, MW_SH_LEN, 24, 300);
	r = run(&s, hdr, 0);
	cr_expect_eq(r.n, 300);
	cr_expect_eq(r.bytes, 512 * 16 + 512 + 16, "buckets, a control byte each, a group more");
	s.elem_size = 4;	/* (u32, ()): buckets rounded up to the group's alignment */
	s.elem_align = 4;
	put(hdr, &s, MW_SH_CAP, 8, 3);
	put(hdr, &s, MW_SH_LEN, 24, 3);
	cr_expect_eq(run(&s, hdr, 0).bytes, 16 + 4 + 16);
	put(hdr, &s, MW_SH_CAP, 8, 0);	/* the shared empty table */
	put(hdr, &s, MW_SH_LEN, 24, 0);
	cr_expect_eq(run(&s, hdr, 0).bytes, 0);
	put(hdr, &s, MW_SH_LEN, 24, 1);
	run(&s, hdr, -EAGAIN);	/* items in no buckets */
	put(hdr, &s, MW_SH_CAP, 8, 5);
	run(&s, hdr, -EAGAIN);	/* buckets not a power of two */
}

Test(walk, vecdeque__both_layouts)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = shape(MW_SHAPE_RUST_DEQUE, 2, 2);
	struct mw_figures r;

	/* 1.67 on: buf (cap @0, ptr @8), head @16, len @24 */
	put(hdr, &s, MW_SH_CAP, 0, 64);
	put(hdr, &s, MW_SH_PTR, 8, BUF);
	put(hdr, &s, MW_SH_HEAD, 16, 60);
	put(hdr, &s, MW_SH_LEN, 24, 10);
	r = run(&s, hdr, 0);
	cr_expect_eq(r.n, 10, "wrapped around: still len");
	cr_expect_eq(r.bytes, 128);
	put(hdr, &s, MW_SH_HEAD, 16, 64);
	run(&s, hdr, -EAGAIN);	/* head past cap */
	/* before: tail @0, head @8, buf (ptr @16, cap @24), cap a power of two */
	s = shape(MW_SHAPE_RUST_DEQUE, 2, 2);
	put(hdr, &s, MW_SH_TAIL, 0, 6);
	put(hdr, &s, MW_SH_HEAD, 8, 2);
	put(hdr, &s, MW_SH_PTR, 16, BUF);
	put(hdr, &s, MW_SH_CAP, 24, 8);
	cr_expect_eq(run(&s, hdr, 0).n, 4, "(head - tail) & (cap - 1)");
	put(hdr, &s, MW_SH_CAP, 24, 12);
	run(&s, hdr, -EAGAIN);
}

Test(walk, cxx_vector_and_string)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = shape(MW_SHAPE_CXX_VECTOR, 8, 8);
	struct mw_figures r;

	put(hdr, &s, MW_SH_PTR, 0, BUF);
	put(hdr, &s, MW_SH_END, 8, BUF + 5 * 8);
	put(hdr, &s, MW_SH_STORE_END, 16, BUF + 8 * 8);
	r = run(&s, hdr, 0);
	cr_expect_eq(r.n, 5);
	cr_expect_eq(r.bytes, 64);
	put(hdr, &s, MW_SH_END, 8, BUF + 9 * 8);
	run(&s, hdr, -EAGAIN);	/* finish past the end of storage */
	put(hdr, &s, MW_SH_END, 8, BUF + 3);
	run(&s, hdr, -EAGAIN);	/* not a whole element */

	/* string: _M_p @0, length @8, capacity or local buffer @16 */
	s = shape(MW_SHAPE_CXX_STRING, 1, 1);
	put(hdr, &s, MW_SH_PTR, 0, ADDR + 16);
	put(hdr, &s, MW_SH_LEN, 8, 15);
	put(hdr, &s, MW_SH_CAP, 16, 0x6f6c6c6568);	/* characters, not a capacity */
	s.f[MW_SH_LOCAL] = 16;
	r = run(&s, hdr, 0);
	cr_expect_eq(r.n, 15);
	cr_expect_eq(r.bytes, 0, "a short string lives inside");
	put(hdr, &s, MW_SH_PTR, 0, BUF);
	put(hdr, &s, MW_SH_LEN, 8, 30);
	put(hdr, &s, MW_SH_CAP, 16, 30);
	cr_expect_eq(run(&s, hdr, 0).bytes, 31, "capacity and its terminator");
	put(hdr, &s, MW_SH_PTR, 0, ADDR + 16);
	run(&s, hdr, -EAGAIN);	/* 30 characters in a 16-byte buffer */
}

Test(walk, cxx_hashtable_nodes_and_deque)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = shape(MW_SHAPE_CXX_HASH, 8, 8);
	uint64_t map = BUF, node = BUF + 0x1000;

	/* _Hashtable: buckets @0, count @8, before begin @16, elements @24,
	 * single bucket @48 */
	s.node_size = 16;
	put(hdr, &s, MW_SH_PTR, 0, ADDR + 48);
	put(hdr, &s, MW_SH_CAP, 8, 1);
	put(hdr, &s, MW_SH_LEN, 24, 0);
	s.f[MW_SH_LOCAL] = 48;
	cr_expect_eq(run(&s, hdr, 0).bytes, 0, "the single bucket inside, no node");
	put(hdr, &s, MW_SH_PTR, 0, BUF);
	put(hdr, &s, MW_SH_CAP, 8, 13);
	put(hdr, &s, MW_SH_LEN, 24, 10);
	cr_expect_eq(run(&s, hdr, 0).bytes, 13 * 8 + 10 * 16, "buckets and nodes");
	put(hdr, &s, MW_SH_PTR, 0, ADDR + 48);
	run(&s, hdr, -EAGAIN);	/* 13 buckets in the single one */

	/* deque<int>: 128 to a 512-byte buffer; map @0, map size @8, start
	 * (cur, first, last, node) @16, finish @48 */
	s = shape(MW_SHAPE_CXX_DEQUE, 4, 4);
	s.node_size = 512;
	put(hdr, &s, MW_SH_PTR, 0, map);
	put(hdr, &s, MW_SH_CAP, 8, 8);
	put(hdr, &s, MW_SH_START_CUR, 16, node + 100 * 4);
	put(hdr, &s, MW_SH_START_LAST, 32, node + 512);
	put(hdr, &s, MW_SH_START_NODE, 40, map + 3 * 8);
	put(hdr, &s, MW_SH_FINISH_CUR, 48, node + 0x400 + 5 * 4);
	put(hdr, &s, MW_SH_FINISH_FIRST, 56, node + 0x400);
	put(hdr, &s, MW_SH_FINISH_NODE, 72, map + 5 * 8);
	cr_expect_eq(run(&s, hdr, 0).n, 28 + 128 + 5, "the rest of the first, one whole, five");
	cr_expect_eq(run(&s, hdr, 0).bytes, 8 * 8 + 3 * 512, "its map and three buffers");
	put(hdr, &s, MW_SH_FINISH_NODE, 72, map + 8 * 8);
	run(&s, hdr, -EAGAIN);	/* a node past the map */
}
