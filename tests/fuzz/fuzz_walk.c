// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_walk.c - libFuzzer harness for the container decoder (walk.c):
 * a header of each kind, laid out as the planner lays them out for
 * rustc 1.95 and libstdc++, filled with the input's bytes as if a
 * hostile or half-written target held them, its element size chosen by
 * the input too. Whatever it holds, the decoder refuses it or returns a
 * length and byte count an address space can hold.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/walk.h"

#define ADDR	0x7f0000001000ull

static void at(struct mw_shape *s, enum mw_shape_field f, int off)
{
	s->f[f] = off;
	if (f != MW_SH_LOCAL && (uint32_t)off + 8 > s->span)
		s->span = (uint32_t)off + 8;
}

static void layout(struct mw_shape *s)
{
	switch (s->kind) {
	case MW_SHAPE_INTEGER:
		s->span = s->int_size;
		break;
	case MW_SHAPE_RUST_VEC:
		at(s, MW_SH_CAP, 0), at(s, MW_SH_PTR, 8), at(s, MW_SH_LEN, 16);
		break;
	case MW_SHAPE_RUST_DEQUE:
		at(s, MW_SH_CAP, 0), at(s, MW_SH_PTR, 8), at(s, MW_SH_HEAD, 16);
		if (s->elem_align & 1)
			at(s, MW_SH_LEN, 24);
		else
			at(s, MW_SH_TAIL, 24);
		break;
	case MW_SHAPE_RUST_HASH:
		at(s, MW_SH_PTR, 0), at(s, MW_SH_CAP, 8), at(s, MW_SH_LEN, 24);
		break;
	case MW_SHAPE_RUST_BTREE:
		at(s, MW_SH_LEN, 16);
		break;
	case MW_SHAPE_CXX_VECTOR:
		at(s, MW_SH_PTR, 0), at(s, MW_SH_END, 8), at(s, MW_SH_STORE_END, 16);
		break;
	case MW_SHAPE_CXX_STRING:
		at(s, MW_SH_PTR, 0), at(s, MW_SH_LEN, 8), at(s, MW_SH_CAP, 16), at(s, MW_SH_LOCAL, 16);
		break;
	case MW_SHAPE_CXX_HASH:
		at(s, MW_SH_PTR, 0), at(s, MW_SH_CAP, 8), at(s, MW_SH_LEN, 24), at(s, MW_SH_LOCAL, 48);
		s->node_size = (s->elem_size + 8 + 7) / 8 * 8;
		break;
	case MW_SHAPE_CXX_NODES:
		at(s, MW_SH_LEN, 40);
		s->node_size = 32 + (s->elem_size + 7) / 8 * 8;
		break;
	case MW_SHAPE_CXX_DEQUE:
		at(s, MW_SH_PTR, 0), at(s, MW_SH_CAP, 8), at(s, MW_SH_START_CUR, 16);
		at(s, MW_SH_START_LAST, 32), at(s, MW_SH_START_NODE, 40);
		at(s, MW_SH_FINISH_CUR, 48), at(s, MW_SH_FINISH_FIRST, 56);
		at(s, MW_SH_FINISH_NODE, 72);
		if (!s->elem_size)
			s->elem_size = 1;
		s->node_size = (s->elem_size < 512 ? 512 / s->elem_size : 1) * s->elem_size;
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[MW_SHAPE_SPAN_MAX] = { 0 };
	struct mw_shape s = { 0 };
	struct mw_reading r = { 0 };
	uint16_t es;

	if (size < 4)
		return 0;
	for (int i = 0; i < MW_SH__COUNT; i++)
		s.f[i] = -1;
	s.kind = (enum mw_shape_kind)(data[0] % MW_SHAPE__COUNT);
	memcpy(&es, data + 1, sizeof(es));
	s.elem_size = es % 4097;
	s.elem_align = 1u << (data[3] % 7);
	s.elems_own = data[3] & 0x80;
	s.int_size = (uint8_t)(1u << (data[3] % 4));
	s.is_signed = data[3] & 0x40;
	layout(&s);
	memcpy(hdr, data + 4, size - 4 < sizeof(hdr) ? size - 4 : sizeof(hdr));
	if (walk__header(&s, hdr, ADDR, &r))
		return 0;
	if (s.kind != MW_SHAPE_INTEGER && r.length < 0)
		abort();	/* a container of fewer than no elements */
	if (r.retained > (1ull << 60))
		abort();	/* more than any address space */
	return 0;
}
