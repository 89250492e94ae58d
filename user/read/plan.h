/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - a --read EXPR made into what to read, from the DWARF of the
 * object that defines its root: the root variable's address, then adds
 * (a member's offset, an element's) and derefs (a pointer followed), and
 * the integer at the end, its size and signedness. Built once per image
 * at attach; run every interval against the target's memory (walk.h),
 * so the pointers it follows are read anew each time.
 */
#ifndef MW_PLAN_H
#define MW_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "read/expr.h"
#include "read/ownership.h"
#include "read/shape.h"

#define MW_PLAN_STEPS	(2 * MW_EXPR_STEPS + 24)
#define MW_PLAN_VALUES	4

enum mw_plan_op {
	MW_PLAN_ADD,		/* address += n */
	MW_PLAN_DEREF,		/* address = the pointer stored at address */
	MW_PLAN_OWN,		/* the same through an owning pointer (Box, Arc,
				 * unique_ptr): the n bytes it points at are
				 * retained; a null one: the structure is empty */
	MW_PLAN_EMPTY_IF,	/* the structure is empty (None, a OnceLock not
				 * set) if the value at address + n, of size
				 * bytes and masked, is one of values (with
				 * unless: is none of them) */
};

struct mw_plan_step {
	enum mw_plan_op op;
	int64_t n;
	/* EMPTY_IF */
	uint8_t size;
	bool unless;
	uint8_t nvalues;
	uint64_t mask;
	uint64_t values[MW_PLAN_VALUES];
};

struct mw_plan {
	uint64_t root;		/* the variable's address in its object (link time) */
	char name[MW_EXPR_NAME_MAX];	/* its qualified source name, or the parameter's */
	int from_arg;		/* 0: a variable; 1 to 6: a parameter, whose value
				 * each call shows in that argument register */
	char pointee[256];	/* a parameter: the type it points at */
	struct mw_plan_step step[MW_PLAN_STEPS];
	int nsteps;
	struct mw_shape shape;	/* what the steps lead to */
	/* what its elements own: containers inside them, and programs */
	struct mw_shape shapes[MW_OWN_SHAPES];
	int nshapes;
	struct mw_owns owns;
};

/* What plan__build found in one object. */
enum mw_plan_found {
	MW_PLAN_OK,		/* @out is the plan */
	MW_PLAN_NO_DWARF,	/* the object has no DWARF (nor a debug file) */
	MW_PLAN_NO_ROOT,	/* its DWARF has no such variable; @err holds
				 * "; nearest: a, b" or "" */
	MW_PLAN_BAD,		/* it has, and @err says what does not fit */
};

/*
 * Finds @e's root among the global and static variables of the object at
 * @path (its own DWARF, or its build-id debug file): its qualified source
 * name ("ns::name", "crate::module::NAME"), or a unique suffix of it on
 * :: boundaries. Then follows @e's steps through the types, into @out.
 * Several variables of that name, a step that does not fit its type, a
 * thread-local, or a value that is neither an integer nor a container
 * memwatch knows: MW_PLAN_BAD, why in @err.
 */
enum mw_plan_found plan__build(const char *path, const struct mw_expr *e, struct mw_plan *out,
			       char *err, size_t len);

/*
 * The same from the parameter @e->root of the function at link-time
 * address @vaddr in the object at @path: the steps start from the value
 * it arrives with (a pointer or reference). MW_PLAN_NO_ROOT when the
 * function has no parameter of that name.
 */
enum mw_plan_found plan__build_param(const char *path, uint64_t vaddr, const struct mw_expr *e,
				     struct mw_plan *out, char *err, size_t len);

/* Appends @s to @p's steps; false when they are full. */
bool plan__push(struct mw_plan *p, const struct mw_plan_step *s);

#endif
