/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shape.h - what a --read EXPR ends on, known by its type: an integer,
 * or a container of the Rust standard library or of libstdc++ whose
 * length and own buffers memwatch computes from its header alone. The
 * wrappers a structure usually sits in (Mutex, RwLock, RefCell, OnceLock,
 * LazyLock, Option, Box, Arc, Rc, unique_ptr) are seen through on the
 * way, as plan steps: an Option that is None, a OnceLock not yet set or a
 * null unique_ptr reads as empty. Layouts are those of rustc 1.63 to 1.95
 * and of GCC 12's libstdc++, checked member by member: a type whose
 * members are not the ones memwatch knows is refused by name, never
 * guessed at.
 */
#ifndef MW_SHAPE_H
#define MW_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

enum mw_shape_kind {
	MW_SHAPE_INTEGER,	/* the integer itself */
	MW_SHAPE_RUST_VEC,	/* Vec, String: len, cap, ptr */
	MW_SHAPE_RUST_DEQUE,	/* VecDeque: len or tail, head; cap, ptr */
	MW_SHAPE_RUST_HASH,	/* hashbrown's RawTable: items, bucket_mask, ctrl */
	MW_SHAPE_RUST_BTREE,	/* BTreeMap, BTreeSet: length (nodes: not yet) */
	MW_SHAPE_CXX_VECTOR,	/* start, finish, end of storage */
	MW_SHAPE_CXX_STRING,	/* p, length, capacity, the local buffer */
	MW_SHAPE_CXX_HASH,	/* count, bucket count, buckets, single bucket */
	MW_SHAPE_CXX_NODES,	/* map, set, list: count nodes of one size */
	MW_SHAPE_CXX_DEQUE,	/* map, map size, start and finish iterators */
	MW_SHAPE__COUNT,
};

/* Where the fields a kind uses lie, from the container's address. */
enum mw_shape_field {
	MW_SH_LEN,		/* element count: Vec len, items, _M_node_count */
	MW_SH_CAP,		/* capacity, bucket_mask, bucket count, map size */
	MW_SH_PTR,		/* the buffer: Vec ptr, ctrl, _M_start, _M_p, buckets, map */
	MW_SH_END,		/* vector: _M_finish */
	MW_SH_STORE_END,	/* vector: _M_end_of_storage */
	MW_SH_HEAD,		/* VecDeque: head */
	MW_SH_TAIL,		/* VecDeque before 1.67: tail */
	MW_SH_LOCAL,		/* string's local buffer, hashtable's single bucket */
	MW_SH_START_CUR,	/* deque: _M_start._M_cur, _M_last, _M_node */
	MW_SH_START_LAST,
	MW_SH_START_NODE,
	MW_SH_FINISH_CUR,	/* deque: _M_finish._M_cur, _M_first, _M_node */
	MW_SH_FINISH_FIRST,
	MW_SH_FINISH_NODE,
	MW_SH__COUNT,
};

#define MW_SHAPE_SPAN_MAX	128	/* bytes of a container's header */

struct mw_shape {
	enum mw_shape_kind kind;
	uint32_t span;			/* bytes read at its address */
	int32_t f[MW_SH__COUNT];	/* offsets, by enum mw_shape_field; -1: none */
	uint64_t elem_size;		/* an element (a string's character) */
	uint64_t elem_align;
	uint64_t node_size;		/* CXX_NODES, CXX_HASH: a node; DEQUE: a buffer */
	bool elems_own;			/* its elements may own heap memory, which
					 * the retained figure does not hold yet */
	uint8_t int_size;		/* INTEGER: 1, 2, 4 or 8 bytes */
	bool is_signed;
	char type[96];			/* the type read, for messages */
};

struct mw_plan;

/*
 * Sees through the wrappers around @t (appending their steps to @p) and
 * fills @p's shape with what is inside. 0; -1 with why in @err: a type
 * that is neither an integer nor a container memwatch knows, or one
 * whose layout is not the one it knows.
 */
int shape__recognize(Dwarf_Die *t, struct mw_plan *p, char *err, size_t len);

/* The kind's name for messages ("an integer", "a Vec"). */
const char *shape__kind_name(enum mw_shape_kind kind);

#endif
