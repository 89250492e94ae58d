// SPDX-License-Identifier: GPL-2.0
/*
 * ownership.c - a type's ownership program, from its DWARF: each member is
 * classified (layout.h) and what owns something becomes an item; the
 * wrappers and structs around them only move the offset. Programs and
 * containers are kept once per type (by DIE), so that a type met again,
 * or inside itself, names the same one.
 */
#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include "read/dwtype.h"
#include "read/layout.h"
#include "read/ownership.h"
#include "read/plan.h"

#define MW_OWN_DEPTH	24	/* types nested in a program's compilation */
#define MW_OWN_LOCAL	128	/* items of one program */

struct comp {
	struct mw_plan *p;
	int lang;
	char *err;
	size_t len;
};

/* -2, after saying why in @c's message */
#define fail(c, ...)	({ dwtype__why((c)->err, (c)->len, __VA_ARGS__); -2; })

static int compile(struct comp *c, Dwarf_Die *t, int depth);

struct items {
	struct mw_own v[MW_OWN_LOCAL];
	int n;
};

static int add(struct comp *c, struct items *it, struct mw_own o)
{
	if (it->n >= MW_OWN_LOCAL)
		return fail(c, "a type with more owners than memwatch follows (%d)", MW_OWN_LOCAL);
	it->v[it->n++] = o;
	return 0;
}

static int elements(struct comp *c, struct mw_class_of *cls, struct mw_shape *s, int depth)
{
	int e;

	if (!s->elems_own)
		return 0;
	e = compile(c, &cls->elem, depth + 1);
	if (e < -1)
		return e;
	s->elem_prog = (int16_t)e;
	if (s->kind == MW_SHAPE_RUST_BTREE) {
		e = compile(c, &cls->elem2, depth + 1);
		if (e < -1)
			return e;
		s->elem2_prog = (int16_t)e;
	}
	return 0;
}

/* The container @s of type @t (classified as @cls), its elements
 * compiled: its index in the plan's shapes, or -2. */
static int container(struct comp *c, Dwarf_Die *t, struct mw_class_of *cls,
		     const struct mw_shape *s, int depth)
{
	struct mw_owns *o = &c->p->owns;
	Dwarf_Off die = dwarf_dieoffset(t);
	int k, err;

	for (k = 0; k < c->p->nshapes; k++)
		if (o->shape_die[k] == die)
			return k;
	if (c->p->nshapes >= MW_OWN_SHAPES)
		return fail(c, "more kinds of container than memwatch follows (%d)", MW_OWN_SHAPES);
	k = c->p->nshapes++;
	c->p->shapes[k] = *s;
	o->shape_die[k] = die;
	err = elements(c, cls, &c->p->shapes[k], depth);
	return err ? err : k;
}

/* A Rust enum at @off: a switch over the variants that own something. */
static int enumeration(struct comp *c, Dwarf_Die *t, int64_t off, struct items *it, int depth)
{
	struct mw_owns *o = &c->p->owns;
	struct mw_variants v;
	struct mw_own sw = { .kind = MW_OWN_SWITCH };
	char why[256];

	if (layout__variants(t, &v, why, sizeof(why)))
		return fail(c, "%s", why);
	sw.off = (uint32_t)off;
	sw.inner = (uint32_t)v.discr_off;
	sw.dsize = v.discr_size;
	sw.dmask = v.mask;
	sw.first = (uint16_t)o->ncases;
	for (int i = 0; i < v.n; i++) {
		int prog;

		if (!v.v[i].has_fields)
			continue;
		prog = compile(c, &v.v[i].payload, depth + 1);
		if (prog < -1)
			return prog;
		if (prog < 0)
			continue;
		if (o->ncases >= MW_OWN_CASES)
			return fail(c, "more enum variants than memwatch follows (%d)", MW_OWN_CASES);
		o->cases[o->ncases++] = (struct mw_own_case){ .valued = v.v[i].valued,
			.value = v.v[i].value, .off = (uint32_t)v.v[i].off, .prog = (int16_t)prog };
		sw.n++;
	}
	return sw.n ? add(c, it, sw) : 0;
}

/* What a value of @t at @off owns, appended to @it: 0, or -2. */
static int owners(struct comp *c, Dwarf_Die *type, int64_t off, struct items *it, int depth)
{
	struct mw_class_of cls;
	struct mw_shape s;
	Dwarf_Die t = *type, child;
	char why[256];
	int idx;

	if (depth > MW_OWN_DEPTH)
		return fail(c, "types nested deeper than memwatch follows (%d)", MW_OWN_DEPTH);
	if (!dwtype__may_own(&t))
		return 0;
	if (layout__classify(&t, c->lang, &cls, &s, why, sizeof(why)))
		return fail(c, "%s", why);
	switch (cls.cls) {
	case MW_CLASS_PLAIN:
	case MW_CLASS_INTEGER:
	case MW_CLASS_REF:		/* owned elsewhere */
		return 0;
	case MW_CLASS_THROUGH:
		return owners(c, &cls.inner, off + cls.off, it, depth + 1);
	case MW_CLASS_ONCE:
		idx = compile(c, &cls.inner, depth + 1);
		if (idx < 0)
			return idx < -1 ? idx : 0;
		if (c->p->owns.ncases >= MW_OWN_CASES)
			return fail(c, "more enum variants than memwatch follows (%d)", MW_OWN_CASES);
		c->p->owns.cases[c->p->owns.ncases] = (struct mw_own_case){ .valued = true,
			.value = cls.complete, .off = (uint32_t)cls.off, .prog = (int16_t)idx };
		/* a switch on the state, whose one case is the value */
		return add(c, it, (struct mw_own){ .kind = MW_OWN_SWITCH, .off = (uint32_t)off,
			.inner = (uint32_t)cls.state_off, .dsize = cls.state_size, .dmask = 3,
			.first = (uint16_t)c->p->owns.ncases++, .n = 1 });
	case MW_CLASS_ENUM:
		return enumeration(c, &t, off, it, depth);
	case MW_CLASS_BOX:
	case MW_CLASS_SHARED:
	case MW_CLASS_SHARED_CXX:
		idx = compile(c, &cls.inner, depth + 1);
		if (idx < -1)
			return idx;
		return add(c, it, (struct mw_own){
			.kind = cls.cls == MW_CLASS_BOX ? MW_OWN_BOX :
				cls.cls == MW_CLASS_SHARED ? MW_OWN_SHARED : MW_OWN_SHARED_CXX,
			.off = (uint32_t)(off + cls.off), .size = cls.size, .nullable = cls.nullable,
			.inner = cls.cls == MW_CLASS_SHARED ? (uint32_t)cls.value_off :
				 (uint32_t)dwtype__align(&cls.inner),
			.idx = (int16_t)idx });
	case MW_CLASS_CONTAINER:
		idx = container(c, &t, &cls, &s, depth);
		if (idx < 0)
			return idx;
		return add(c, it, (struct mw_own){ .kind = MW_OWN_SHAPE, .off = (uint32_t)off,
						   .idx = (int16_t)idx });
	case MW_CLASS_RECORD:
		break;
	}
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		Dwarf_Die elem, sub;
		Dwarf_Attribute a;
		Dwarf_Word count = 0;
		Dwarf_Sword upper;
		uint64_t stride;

		if (!dwtype__of(&t, &elem) || !dwtype__size(&elem, &stride) || dwarf_child(&t, &sub))
			return fail(c, "%s: an array memwatch cannot measure", s.type);
		if (dwarf_attr(&sub, DW_AT_count, &a))
			dwarf_formudata(&a, &count);
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && !dwarf_formsdata(&a, &upper))
			count = upper >= 0 ? (Dwarf_Word)upper + 1 : 0;
		idx = compile(c, &elem, depth + 1);
		if (idx < 0 || !count)
			return idx < -1 ? idx : 0;
		return add(c, it, (struct mw_own){ .kind = MW_OWN_ARRAY, .off = (uint32_t)off,
			.count = (uint32_t)count, .stride = (uint32_t)stride, .idx = (int16_t)idx });
	}
	if (dwarf_child(&t, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child), err;
		Dwarf_Die mt;
		int64_t here;

		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration) || !dwtype__of(&child, &mt))
			continue;
		if (!dwtype__offset(&child, &here))
			return fail(c, "%s: a member memwatch cannot place", s.type);
		err = owners(c, &mt, off + here, it, depth + 1);
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The program of @t: its index, -1 when it owns nothing, -2. */
static int compile(struct comp *c, Dwarf_Die *type, int depth)
{
	struct mw_owns *o = &c->p->owns;
	struct items it = { .n = 0 };
	Dwarf_Die t = *type;
	Dwarf_Off die;
	uint64_t size = 0;
	int k, err;

	dwtype__peel(&t);
	if (!dwtype__may_own(&t))
		return -1;
	die = dwarf_dieoffset(&t);
	for (k = 0; k < o->nprogs; k++)
		if (o->prog_die[k] == die)
			return k;	/* met before, or inside itself */
	if (o->nprogs >= MW_OWN_PROGS)
		return fail(c, "more kinds of owner than memwatch follows (%d)", MW_OWN_PROGS);
	dwtype__size(&t, &size);
	if (size > MW_OWN_VALUE_MAX)
		return fail(c, "a value of %llu bytes, more than memwatch reads at once",
			    (unsigned long long)size);
	k = o->nprogs++;
	o->prog_die[k] = die;
	o->progs[k] = (struct mw_own_prog){ .size = (uint32_t)size };
	err = owners(c, &t, 0, &it, depth);
	if (err)
		return err;
	if (o->nitems + it.n > MW_OWN_ITEMS)
		return fail(c, "more owners than memwatch follows (%d)", MW_OWN_ITEMS);
	memcpy(&o->items[o->nitems], it.v, (size_t)it.n * sizeof(it.v[0]));
	o->progs[k].first = (uint16_t)o->nitems;
	o->progs[k].n = (uint16_t)it.n;
	o->nitems += it.n;
	return k;
}

int ownership__compile(Dwarf_Die *t, int lang, struct mw_plan *p, char *err, size_t len)
{
	struct comp c = { .p = p, .lang = lang, .err = err, .len = len };

	return compile(&c, t, 0);
}

int ownership__elements(struct mw_class_of *cls, int lang, struct mw_shape *s, struct mw_plan *p,
		  char *err, size_t len)
{
	struct comp c = { .p = p, .lang = lang, .err = err, .len = len };

	return elements(&c, cls, s, 0) ? -1 : 0;
}
