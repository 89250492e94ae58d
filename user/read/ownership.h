/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ownership.h - what a value owns on the heap, compiled once from its DWARF
 * type into a program the walker runs on each element: the containers in
 * it (their buffers, and their elements' programs in turn), the Boxes
 * and unique_ptrs it owns (their blocks, and what those own), the Arcs,
 * Rcs and shared_ptrs it shares (a block counted once a walk however many
 * point at it), the fields of its structs and arrays, and the variant a
 * Rust enum holds. A type that owns nothing has no program (-1): its
 * values are skipped whole. Recursive types (a Box<Node> in a Node) point
 * at their own program; the walk bounds the depth.
 */
#ifndef MW_OWNERSHIP_H
#define MW_OWNERSHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "read/layout.h"

#define MW_OWN_SHAPES	48	/* containers of distinct types in a plan */
#define MW_OWN_ITEMS	256	/* owners in all its programs */
#define MW_OWN_PROGS	64	/* types that own something */
#define MW_OWN_CASES	64	/* enum variants with a program */
#define MW_OWN_VALUE_MAX (1u << 16)	/* bytes of one value a program reads */

enum mw_own_kind {
	MW_OWN_SHAPE,		/* a container's header at off: shapes[idx] */
	MW_OWN_BOX,		/* a pointer at off to a block of size bytes it
				 * owns, holding a value of program idx */
	MW_OWN_SHARED,		/* Arc, Rc: the same, the block counted once a
				 * walk, the value at inner in it */
	MW_OWN_SHARED_CXX,	/* shared_ptr at off: the object (size bytes,
				 * program idx) and its control block */
	MW_OWN_VALUE,		/* a field at off of program idx */
	MW_OWN_ARRAY,		/* count values of program idx, stride apart */
	MW_OWN_SWITCH,		/* an enum (or a Once's value) at off, whose
				 * discriminant at off + inner (dsize bytes,
				 * masked) picks one of cases[first, first + n) */
};

struct mw_own {
	uint8_t kind;
	uint8_t dsize;		/* SWITCH */
	bool nullable;		/* BOX: a null pointer holds nothing */
	int16_t idx;
	uint32_t off;
	uint32_t count, stride;	/* ARRAY */
	uint32_t inner;		/* SHARED: the value's offset in its block;
				 * SHARED_CXX: the object's alignment;
				 * SWITCH: the discriminant's offset */
	uint64_t size;		/* BOX, SHARED, SHARED_CXX: bytes of the block */
	uint64_t dmask;		/* SWITCH */
	uint16_t first, n;	/* SWITCH */
};

struct mw_own_case {
	bool valued;		/* false: every value no other case has */
	uint64_t value;
	uint32_t off;		/* the payload, from the enum's start */
	int16_t prog;		/* -1: owns nothing */
};

struct mw_own_prog {
	uint16_t first, n;	/* its owners, items[first, first + n) */
	uint32_t size;		/* bytes of a value */
};

/* Every program of a plan, and the containers they name. */
struct mw_owns {
	struct mw_own items[MW_OWN_ITEMS];
	int nitems;
	struct mw_own_prog progs[MW_OWN_PROGS];
	int nprogs;
	struct mw_own_case cases[MW_OWN_CASES];
	int ncases;
	/* while planning: the DWARF type each program and shape is for */
	Dwarf_Off prog_die[MW_OWN_PROGS];
	Dwarf_Off shape_die[MW_OWN_SHAPES];
};

struct mw_plan;

/*
 * The program of what a value of type @t owns, in a unit of language
 * @lang, compiled into @p (its programs, and its shapes for the
 * containers inside): its index, -1 when it owns nothing, -2 with why in
 * @err (a layout memwatch does not know, or more kinds of owner than a
 * plan holds).
 */
int ownership__compile(Dwarf_Die *t, int lang, struct mw_plan *p, char *err, size_t len);

/* The programs of the elements of the container @s (classified as @cls),
 * into its elem_prog (and a BTreeMap's elem2_prog). 0; -1 with why. */
int ownership__elements(struct mw_class_of *cls, int lang, struct mw_shape *s, struct mw_plan *p,
		  char *err, size_t len);

#endif
