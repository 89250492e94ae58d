// SPDX-License-Identifier: GPL-2.0
/*
 * shape.c - the type a --read ends on, classified (layout.h) until it is
 * something the walk reads: wrappers become plan steps (an offset, a
 * pointer followed, owned or not, a state that makes the structure read
 * as empty), and what is inside becomes the plan's shape, with its
 * elements' programs (ownership.h).
 */
#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include "read/dwtype.h"
#include "read/layout.h"
#include "read/ownership.h"
#include "read/plan.h"
#include "read/shape.h"

#define MW_WRAPPERS	24	/* wrappers seen through, one inside another */

struct rec {
	struct mw_plan *p;
	char *err;
	size_t len;
};

/* false, after saying why in @r's message */
#define fail(r, ...)	({ dwtype__why((r)->err, (r)->len, __VA_ARGS__); false; })

static bool push(struct rec *r, struct mw_plan_step s)
{
	struct mw_plan *p = r->p;

	if (s.op == MW_PLAN_ADD && p->nsteps && p->step[p->nsteps - 1].op == MW_PLAN_ADD) {
		p->step[p->nsteps - 1].n += s.n;	/* one add for a run of members */
		return true;
	}
	if (s.op == MW_PLAN_ADD && !s.n)
		return true;
	return plan__push(p, &s) || fail(r, "%s: too many steps to read it", p->shape.type);
}

static bool add(struct rec *r, int64_t n)
{
	return push(r, (struct mw_plan_step){ .op = MW_PLAN_ADD, .n = n });
}

/* A Rust enum on the path: one variant with a payload (Option's Some),
 * the others without. The payload's first field becomes the structure
 * (@t); the others read as empty. */
static bool enumeration(struct rec *r, Dwarf_Die *t)
{
	struct mw_plan_step empty = { .op = MW_PLAN_EMPTY_IF };
	struct mw_variants v;
	struct mw_variant *payload = NULL;
	int64_t inner;

	if (layout__variants(t, &v, r->err, r->len))
		return false;
	empty.n = v.discr_off;
	empty.size = v.discr_size;
	empty.mask = v.mask;
	for (int i = 0; i < v.n; i++) {
		if (v.v[i].has_fields) {
			if (payload)
				return fail(r, "%s: an enum with data in more than one variant; name the field to read",
					    r->p->shape.type);
			payload = &v.v[i];
			continue;
		}
		if (!v.v[i].valued)
			return fail(r, "%s: an enum whose empty variant has no value", r->p->shape.type);
		if (empty.nvalues >= MW_PLAN_VALUES)
			return fail(r, "%s: an enum with more variants than memwatch reads",
				    r->p->shape.type);
		empty.values[empty.nvalues++] = v.v[i].value;
	}
	if (!payload)
		return fail(r, "%s: an enum with no data in any variant", r->p->shape.type);
	if (payload->valued) {	/* empty unless the discriminant names the payload */
		empty.unless = true;
		empty.nvalues = 1;
		empty.values[0] = payload->value;
	} else if (!empty.nvalues) {
		return fail(r, "%s: an enum memwatch cannot tell empty", r->p->shape.type);
	}
	if (dwtype__member(&payload->payload, "__0", t, &inner))
		return fail(r, "%s: an enum whose variant holds several fields; name the one to read",
			    r->p->shape.type);
	return push(r, empty) && add(r, payload->off + inner);
}

/* A struct, tuple or array at the path's end: no length, what its fields
 * own. */
static int value(struct rec *r, Dwarf_Die *t, int lang)
{
	struct mw_shape *s = &r->p->shape;
	int prog;

	s->kind = MW_SHAPE_VALUE;
	if (!dwtype__size(t, &s->elem_size) || s->elem_size > MW_OWN_VALUE_MAX)
		return fail(r, "%s: a value of no size, or more than memwatch reads at once",
			    s->type), -1;
	prog = ownership__compile(t, lang, r->p, r->err, r->len);
	if (prog < -1)
		return -1;
	if (prog < 0)
		return fail(r, "names %s, which owns no memory memwatch can follow (a C pointer says nothing of who owns what it points at): name an integer or a container in it",
			    s->type), -1;
	s->elem_prog = (int16_t)prog;
	return 0;
}

int shape__recognize(Dwarf_Die *type, struct mw_plan *p, char *err, size_t len)
{
	struct rec r = { .p = p, .err = err, .len = len };
	Dwarf_Die t = *type;
	int lang = layout__lang(&t);

	for (int depth = 0; depth < MW_WRAPPERS; depth++) {
		struct mw_class_of c;
		bool ok = true;

		if (layout__classify(&t, lang, &c, &p->shape, err, len))
			return -1;
		switch (c.cls) {
		case MW_CLASS_INTEGER:
			return 0;
		case MW_CLASS_CONTAINER:
			return ownership__elements(&c, lang, &p->shape, p, err, len);
		case MW_CLASS_RECORD:
		case MW_CLASS_SHARED_CXX:
			return value(&r, &t, lang);
		case MW_CLASS_PLAIN:
			return fail(&r, "names %s, which memwatch does not read: an integer, a container, or a struct or enum that owns some",
				    p->shape.type), -1;
		case MW_CLASS_THROUGH:
			ok = add(&r, c.off);
			break;
		case MW_CLASS_ONCE:
			ok = push(&r, (struct mw_plan_step){ .op = MW_PLAN_EMPTY_IF,
					.n = c.state_off, .size = c.state_size, .unless = true,
					.nvalues = 1, .mask = 3, .values = { c.complete } }) &&
			     add(&r, c.off);
			break;
		case MW_CLASS_ENUM:
			if (!enumeration(&r, &t))
				return -1;
			continue;
		case MW_CLASS_REF:
			ok = push(&r, (struct mw_plan_step){ .op = MW_PLAN_DEREF });
			break;
		case MW_CLASS_BOX:
		case MW_CLASS_SHARED:
			/* a null unique_ptr reads as empty; Box, Arc and Rc are
			 * never null */
			ok = add(&r, c.off) &&
			     push(&r, (struct mw_plan_step){ .op = MW_PLAN_OWN, .n = (int64_t)c.size }) &&
			     add(&r, c.cls == MW_CLASS_SHARED ? c.value_off : 0);
			break;
		}
		if (!ok)
			return -1;
		t = c.inner;
	}
	return fail(&r, "%s: more wrappers than memwatch follows", p->shape.type), -1;
}

const char *shape__kind_name(enum mw_shape_kind kind)
{
	static const char *const names[MW_SHAPE__COUNT] = {
		[MW_SHAPE_INTEGER] = "an integer",
		[MW_SHAPE_RUST_VEC] = "a Vec",
		[MW_SHAPE_RUST_DEQUE] = "a VecDeque",
		[MW_SHAPE_RUST_HASH] = "a HashMap",
		[MW_SHAPE_RUST_BTREE] = "a BTreeMap",
		[MW_SHAPE_CXX_VECTOR] = "a std::vector",
		[MW_SHAPE_CXX_STRING] = "a std::string",
		[MW_SHAPE_CXX_HASH] = "an unordered container",
		[MW_SHAPE_CXX_TREE] = "a std::map or set",
		[MW_SHAPE_CXX_LIST] = "a std::list",
		[MW_SHAPE_CXX_DEQUE] = "a std::deque",
		[MW_SHAPE_VALUE] = "a value",
	};

	return kind < MW_SHAPE__COUNT ? names[kind] : "?";
}
