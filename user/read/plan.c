// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - from a --read EXPR and an object's DWARF (libdw; libdwfl finds
 * a build-id debug file) to a plan: the root variable found by its
 * qualified source name among the object's global and static variables
 * (namespaces, C++ static members, Rust modules), then each step resolved
 * against the type it is applied to. The target's file is untrusted
 * input: type chains and nesting are followed to a fixed depth.
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "read/dwtype.h"
#include "read/param.h"
#include "read/plan.h"
#include "symbols/nearest.h"
#include "symbols/pathname.h"

#define MW_DIE_DEPTH	16	/* namespaces and classes nested */
#define MW_MATCHES	8	/* distinct variables named in an error */

/* ------------------------------------------------------------ variables */

/* A variable definition seen, and the declaration it may point at. */
struct var {
	char name[MW_EXPR_NAME_MAX];	/* qualified; "" until its declaration's */
	Dwarf_Off spec;			/* its DW_AT_specification, 0: none */
	Dwarf_Die die;
};

struct decl {
	Dwarf_Off off;
	char name[MW_EXPR_NAME_MAX];
};

struct scan {
	struct var *vars;
	size_t nvars, capvars;
	struct decl *decls;
	size_t ndecls, capdecls;
	bool oom;
};

/* Room in the array @v for element @n; false (and @oom) when there is
 * none to be had. */
static bool grow(void **v, size_t *cap, size_t n, size_t size, bool *oom)
{
	void *nv;

	if (n < *cap)
		return true;
	nv = realloc(*v, (*cap ? *cap * 2 : 64) * size);
	if (!nv) {
		*oom = true;
		return false;
	}
	*v = nv;
	*cap = *cap ? *cap * 2 : 64;
	return true;
}

static void qualify(char *out, size_t len, const char *prefix, const char *name)
{
	snprintf(out, len, "%s%s%s", prefix, *prefix ? "::" : "", name);
}

static void note_var(struct scan *sc, Dwarf_Die *die, const char *prefix)
{
	Dwarf_Attribute a;
	const char *name = dwarf_diename(die);
	bool declaration = false;
	struct var *v;
	Dwarf_Die spec;

	if (dwarf_attr(die, DW_AT_declaration, &a))
		dwarf_formflag(&a, &declaration);
	if (declaration) {	/* named here; defined elsewhere */
		struct decl *d;

		if (!name)
			return;
		if (!grow((void **)&sc->decls, &sc->capdecls, sc->ndecls, sizeof(*d), &sc->oom))
			return;
		d = &sc->decls[sc->ndecls++];
		d->off = dwarf_dieoffset(die);
		qualify(d->name, sizeof(d->name), prefix, name);
		return;
	}
	if (!dwarf_hasattr(die, DW_AT_location))
		return;
	if (!grow((void **)&sc->vars, &sc->capvars, sc->nvars, sizeof(*v), &sc->oom))
		return;
	v = &sc->vars[sc->nvars++];
	memset(v, 0, sizeof(*v));
	v->die = *die;
	if (dwarf_attr(die, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec))
		v->spec = dwarf_dieoffset(&spec);
	else if (name)
		qualify(v->name, sizeof(v->name), prefix, name);
	else
		sc->nvars--;
}

/* @die and its siblings, in the scope named @prefix. Functions are not
 * entered: a static inside one is no global. */
static void visit(struct scan *sc, Dwarf_Die *die, const char *prefix, int depth)
{
	do {
		int tag = dwarf_tag(die);
		const char *name = dwarf_diename(die);
		char inner[MW_EXPR_NAME_MAX];
		Dwarf_Die child;

		if (tag == DW_TAG_variable || (tag == DW_TAG_member && dwarf_hasattr(die, DW_AT_declaration)))
			note_var(sc, die, prefix);
		if ((tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
		     tag == DW_TAG_class_type || tag == DW_TAG_union_type) &&
		    depth < MW_DIE_DEPTH && dwarf_haschildren(die) > 0 && !dwarf_child(die, &child)) {
			qualify(inner, sizeof(inner), prefix,
				name ? name : tag == DW_TAG_namespace ? "(anonymous namespace)" : "{unnamed}");
			visit(sc, &child, inner, depth + 1);
		}
	} while (!sc->oom && dwarf_siblingof(die, die) == 0);
}

/* Gives each definition its declaration's name. */
static void name_definitions(struct scan *sc)
{
	for (size_t i = 0; i < sc->nvars; i++) {
		if (sc->vars[i].name[0])
			continue;
		for (size_t k = 0; k < sc->ndecls; k++)
			if (sc->decls[k].off == sc->vars[i].spec) {
				snprintf(sc->vars[i].name, sizeof(sc->vars[i].name), "%s",
					 sc->decls[k].name);
				break;
			}
	}
}

/* @name is @want, or ends with "::" @want. */
static bool matches(const char *name, const char *want)
{
	size_t n = strlen(name), w = strlen(want);

	if (!strcmp(name, want))
		return true;
	return n > w + 2 && !strcmp(name + n - w, want) && !strncmp(name + n - w - 2, "::", 2);
}

/* The variable's fixed address; false for a thread-local one (@tls) or
 * a location that is not one address. */
static bool address_of(Dwarf_Die *die, uint64_t *addr, bool *tls)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*tls = false;
	if (!dwarf_attr(die, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) || !n)
		return false;
	for (size_t i = 0; i < n; i++)
		*tls |= ops[i].atom == DW_OP_GNU_push_tls_address || ops[i].atom == DW_OP_form_tls_address;
	if (*tls || n != 1 || ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

/* ------------------------------------------------------------ the plan */

struct build {
	struct mw_plan *p;
	char *err;
	size_t len;
	char expr[MW_EXPR_MAX + 64];
};

bool plan__push(struct mw_plan *p, const struct mw_plan_step *s)
{
	if (p->nsteps >= MW_PLAN_STEPS)
		return false;
	p->step[p->nsteps++] = *s;
	return true;
}

static bool add(struct build *b, enum mw_plan_op op, int64_t n)
{
	if (!plan__push(b->p, &(struct mw_plan_step){ .op = op, .n = n })) {
		snprintf(b->err, b->len, "--read '%s': too many steps", b->expr);
		return false;
	}
	return true;
}

/* Follows the pointer @t is: a deref, and @t becomes what it points at. */
static bool deref(struct build *b, Dwarf_Die *t, const char *why)
{
	char name[96];
	int tag = dwtype__peel(t);

	if (!dwtype__is_pointer(tag)) {
		snprintf(b->err, b->len, "--read '%s': %s on %s, which is not a pointer", b->expr, why,
			 dwtype__name(t, name, sizeof(name)));
		return false;
	}
	if (!dwtype__of(t, t)) {
		snprintf(b->err, b->len, "--read '%s': %s on a void pointer", b->expr, why);
		return false;
	}
	return add(b, MW_PLAN_DEREF, 0);
}

static bool step_field(struct build *b, Dwarf_Die *t, const struct mw_expr_step *s)
{
	char field[MW_EXPR_NAME_MAX + 4], name[96];
	Dwarf_Die m;
	int64_t off;
	int tag = dwtype__peel(t), r;

	if (s->kind == MW_EXPR_ARROW && !deref(b, t, "->"))
		return false;
	for (int i = 0; s->kind == MW_EXPR_FIELD && dwtype__is_pointer(tag) && i < MW_TYPE_DEPTH; i++) {
		if (!deref(b, t, "."))	/* through pointers and references */
			return false;
		tag = dwtype__peel(t);
	}
	tag = dwtype__peel(t);
	if (!dwtype__is_record(tag)) {
		snprintf(b->err, b->len, "--read '%s': .%s on %s, which has no members", b->expr,
			 s->name, dwtype__name(t, name, sizeof(name)));
		return false;
	}
	/* a tuple's .0 is Rust's member __0 */
	snprintf(field, sizeof(field), "%s%s", s->name[0] >= '0' && s->name[0] <= '9' ? "__" : "",
		 s->name);
	r = dwtype__member(t, field, &m, &off);
	if (r) {
		snprintf(b->err, b->len, "--read '%s': %s has %s member %s", b->expr,
			 dwtype__name(t, name, sizeof(name)), r == -1 ? "no" : "a bit-field or odd",
			 s->name);
		return false;
	}
	*t = m;
	return add(b, MW_PLAN_ADD, off);
}

static bool step_index(struct build *b, Dwarf_Die *t, const struct mw_expr_step *s)
{
	Dwarf_Die elem, sub;
	Dwarf_Word count;
	Dwarf_Attribute a;
	Dwarf_Sword upper;
	Dwarf_Word size = 0;
	char name[96];
	int tag = dwtype__peel(t);

	if (dwtype__is_pointer(tag) && !deref(b, t, "[]"))
		return false;
	if (dwtype__is_pointer(tag)) {
		elem = *t;
	} else if (tag == DW_TAG_array_type && dwtype__of(t, &elem)) {
		/* its first dimension's bound, when the type says it */
		if (!dwarf_child(t, &sub) && dwarf_tag(&sub) == DW_TAG_subrange_type) {
			bool known = false;

			if (dwarf_attr(&sub, DW_AT_count, &a) && !dwarf_formudata(&a, &count))
				known = true;
			else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
				 !dwarf_formsdata(&a, &upper) && upper >= 0)
				known = (count = (Dwarf_Word)upper + 1, true);
			if (known && s->index >= count) {
				snprintf(b->err, b->len, "--read '%s': [%llu] past the end of %s (%llu elements)",
					 b->expr, (unsigned long long)s->index,
					 dwtype__name(t, name, sizeof(name)), (unsigned long long)count);
				return false;
			}
		}
	} else {
		snprintf(b->err, b->len, "--read '%s': [%llu] on %s, which is no array nor pointer",
			 b->expr, (unsigned long long)s->index, dwtype__name(t, name, sizeof(name)));
		return false;
	}
	if (dwarf_aggregate_size(&elem, &size) || !size) {
		snprintf(b->err, b->len, "--read '%s': the elements of %s have no size DWARF gives",
			 b->expr, dwtype__name(t, name, sizeof(name)));
		return false;
	}
	*t = elem;
	return add(b, MW_PLAN_ADD, (int64_t)s->index * size);
}

/* @e's steps from a value of type @type at the root's address. */
static bool compile(struct build *b, const struct mw_expr *e, Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	size_t used;

	for (int i = 0; i < e->nsteps; i++) {
		const struct mw_expr_step *s = &e->step[i];
		bool ok;

		switch (s->kind) {
		case MW_EXPR_FIELD:
		case MW_EXPR_ARROW:
			ok = step_field(b, &t, s);
			break;
		case MW_EXPR_INDEX:
			ok = step_index(b, &t, s);
			break;
		default:
			ok = deref(b, &t, "*");
			break;
		}
		if (!ok)
			return false;
	}
	used = (size_t)snprintf(b->err, b->len, "--read '%s': ", b->expr);
	if (used >= b->len)
		used = 0;
	return !shape__recognize(&t, b->p, b->err + used, b->len - used);
}

/* ------------------------------------------------------------ the root */

/* The one variable @want names among @sc's, or MW_PLAN_NO_ROOT or
 * MW_PLAN_BAD (several: listed in @b->err). */
static enum mw_plan_found pick(struct scan *sc, const char *want, struct build *b, size_t *out)
{
	uint64_t addrs[MW_MATCHES];
	size_t found[MW_MATCHES], n = 0, total = 0, used;
	bool tls;

	for (size_t i = 0; i < sc->nvars; i++) {
		uint64_t addr;
		bool dup = false;

		if (!sc->vars[i].name[0] || !matches(sc->vars[i].name, want))
			continue;
		if (!address_of(&sc->vars[i].die, &addr, &tls))
			addr = ~0ull - i;	/* distinct; said when picked */
		for (size_t k = 0; k < n; k++)
			dup |= addrs[k] == addr;
		if (dup)
			continue;	/* one variable seen from several units */
		total++;
		if (n < MW_MATCHES) {
			addrs[n] = addr;
			found[n++] = i;
		}
	}
	if (!total) {
		struct mw_nearest near;

		nearest__init(&near, want);
		for (size_t i = 0; i < sc->nvars; i++)
			nearest__offer(&near, sc->vars[i].name);
		nearest__format(&near, b->err, b->len);
		return MW_PLAN_NO_ROOT;
	}
	if (total == 1) {
		*out = found[0];
		return MW_PLAN_OK;
	}
	used = (size_t)snprintf(b->err, b->len, "--read '%s': %zu variables are named %s:",
				b->expr, total, want);
	for (size_t k = 0; k < n && used < b->len; k++)
		used += (size_t)snprintf(b->err + used, b->len - used, "%s %s", k ? "," : "",
					 sc->vars[found[k]].name);
	if (used < b->len)
		snprintf(b->err + used, b->len - used, "; name one by its path");
	return MW_PLAN_BAD;
}

enum mw_plan_found plan__build(const char *path, const struct mw_expr *e, struct mw_plan *out,
			       char *err, size_t len)
{
	struct build b = { .p = out, .err = err, .len = len };
	struct scan sc = { 0 };
	enum mw_plan_found r;
	Dwfl_Module *mod;
	Dwfl *dwfl = dwtype__open(path, &mod);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	Dwarf_Die t;
	size_t at = 0;
	bool tls;

	memset(out, 0, sizeof(*out));
	expr__format(e, b.expr, sizeof(b.expr));
	if (!dwfl)
		return MW_PLAN_NO_DWARF;
	if (!dwfl_module_getdwarf(mod, &bias)) {
		dwfl_end(dwfl);
		return MW_PLAN_NO_DWARF;
	}
	while (!sc.oom && (cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Die top;

		if (!dwarf_child(cu, &top))
			visit(&sc, &top, "", 0);
	}
	name_definitions(&sc);
	r = sc.oom ? MW_PLAN_BAD : pick(&sc, e->root, &b, &at);
	if (sc.oom)
		snprintf(err, len, "out of memory");
	if (r == MW_PLAN_OK) {
		snprintf(out->name, sizeof(out->name), "%s", sc.vars[at].name);
		if (!address_of(&sc.vars[at].die, &out->root, &tls)) {
			snprintf(err, len, "--read '%s': %s is %s", b.expr, out->name,
				 tls ? "thread-local: each thread has its own" : "not at a fixed address");
			r = MW_PLAN_BAD;
		} else if (!dwtype__of(&sc.vars[at].die, &t)) {
			snprintf(err, len, "--read '%s': %s has no type in DWARF", b.expr, out->name);
			r = MW_PLAN_BAD;
		} else if (!compile(&b, e, &t)) {
			r = MW_PLAN_BAD;
		}
	}
	free(sc.vars);
	free(sc.decls);
	dwfl_end(dwfl);
	return r;
}

enum mw_plan_found plan__build_param(const char *path, uint64_t vaddr, const struct mw_expr *e,
				     struct mw_plan *out, char *err, size_t len)
{
	struct build b = { .p = out, .err = err, .len = len };
	struct mw_param prm;
	enum mw_plan_found r = MW_PLAN_OK;
	Dwarf_Die t;
	Dwfl_Module *mod;
	Dwfl *dwfl = dwtype__open(path, &mod);
	char why[256];
	int found;

	memset(out, 0, sizeof(*out));
	expr__format(e, b.expr, sizeof(b.expr));
	if (!dwfl)
		return MW_PLAN_NO_DWARF;
	found = param__lookup(mod, vaddr, e->root, &prm, why, sizeof(why));
	if (found < 0) {
		snprintf(err, len, "--read '%s': %s", b.expr, why);
		r = MW_PLAN_BAD;
	} else if (!found) {
		r = MW_PLAN_NO_ROOT;
	} else {
		snprintf(out->name, sizeof(out->name), "%s", e->root);
		snprintf(out->pointee, sizeof(out->pointee), "%s", prm.pointee);
		out->from_arg = prm.argno;
		/* the value a call passes is the instance's address: the
		 * steps start from the type it points at */
		if (!dwtype__of(&prm.die, &t) || !dwtype__of(&t, &t) || !compile(&b, e, &t))
			r = MW_PLAN_BAD;
	}
	dwfl_end(dwfl);
	return r;
}
