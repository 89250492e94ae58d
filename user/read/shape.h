/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shape.h - what a --read EXPR ends on: an integer, a container of the
 * Rust standard library or of libstdc++ whose length and own buffers
 * follow from its header, whose elements' programs (ownership.h) say what they
 * own in turn, or a struct whose fields own what they own. The wrappers
 * a structure usually sits in (Mutex, RwLock, RefCell, OnceLock,
 * LazyLock, Option, Box, Arc, Rc, unique_ptr; layout.h knows them) are
 * seen through on the way, as plan steps: an Option that is None, a
 * OnceLock not yet set or a null unique_ptr reads as empty.
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
	MW_SHAPE_RUST_BTREE,	/* BTreeMap, BTreeSet: length, root height and node */
	MW_SHAPE_CXX_VECTOR,	/* start, finish, end of storage */
	MW_SHAPE_CXX_STRING,	/* p, length, capacity, the local buffer */
	MW_SHAPE_CXX_HASH,	/* count, bucket count, buckets, single bucket,
				 * the first node */
	MW_SHAPE_CXX_TREE,	/* map, set: count, root */
	MW_SHAPE_CXX_LIST,	/* count, first node, the list's own node */
	MW_SHAPE_CXX_DEQUE,	/* map, map size, start and finish iterators */
	MW_SHAPE_VALUE,		/* a struct at the path's end: no length, what
				 * its fields own */
	MW_SHAPE__COUNT,
};

/* Where the fields a kind uses lie, from the container's address. */
enum mw_shape_field {
	MW_SH_LEN,		/* element count: Vec len, items, _M_node_count */
	MW_SH_CAP,		/* capacity, bucket_mask, bucket count, map size */
	MW_SH_PTR,		/* the buffer: Vec ptr, ctrl, _M_start, _M_p, buckets,
				 * map; BTreeMap's root node */
	MW_SH_END,		/* vector: _M_finish */
	MW_SH_STORE_END,	/* vector: _M_end_of_storage */
	MW_SH_HEAD,		/* VecDeque: head; BTreeMap: the root's height */
	MW_SH_TAIL,		/* VecDeque before 1.67: tail */
	MW_SH_LOCAL,		/* string's local buffer, hashtable's single bucket,
				 * list's own node: an address, not read */
	MW_SH_NEXT,		/* hashtable, list: the first node; tree: the root */
	MW_SH_START_CUR,	/* deque: _M_start._M_cur, _M_last, _M_node */
	MW_SH_START_LAST,
	MW_SH_START_NODE,
	MW_SH_FINISH_CUR,	/* deque: _M_finish._M_cur, _M_first, _M_node */
	MW_SH_FINISH_FIRST,
	MW_SH_FINISH_NODE,
	MW_SH__COUNT,
};

#define MW_SHAPE_SPAN_MAX	128	/* bytes of a container's header */
#define MW_BTREE_CAPACITY	11	/* keys in a BTreeMap node (B = 6) */

struct mw_shape {
	enum mw_shape_kind kind;
	uint32_t span;			/* bytes read at its address */
	int32_t f[MW_SH__COUNT];	/* offsets, by enum mw_shape_field; -1: none */
	uint64_t elem_size;		/* an element (a string's character; a
					 * BTreeMap's key) */
	uint64_t elem_align;
	uint64_t node_size;		/* C++ nodes: one node; deque: a buffer;
					 * BTreeMap: a leaf node */
	bool elems_own;			/* its elements may own heap memory */
	int16_t elem_prog;		/* what an element owns (ownership.h); -1: none */
	/* C++ nodes: the value's offset in a node */
	uint32_t val_off;
	/* BTreeMap: its values, and where a node holds what */
	uint64_t elem2_size;
	int16_t elem2_prog;
	uint32_t n_len, n_keys, n_vals, n_edges;
	uint64_t internal_size;
	uint8_t int_size;		/* INTEGER: 1, 2, 4 or 8 bytes */
	bool is_signed;
	char type[96];			/* the type read, for messages */
};

struct mw_plan;

/*
 * Sees through the wrappers around @t (appending their steps to @p), fills
 * @p's shape with what is inside, and compiles what its elements own
 * (ownership.h) into @p. 0; -1 with why in @err: a type memwatch does not read
 * (a float, a raw pointer), or one whose layout is not the one it knows.
 */
int shape__recognize(Dwarf_Die *t, struct mw_plan *p, char *err, size_t len);

/* The kind's name for messages ("an integer", "a Vec"). */
const char *shape__kind_name(enum mw_shape_kind kind);

#endif
