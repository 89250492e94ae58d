// SPDX-License-Identifier: GPL-2.0
/*
 * inlined.c - find the inlined copies of a function in an object's DWARF:
 * every DW_TAG_inlined_subroutine whose abstract origin is that function,
 * and the function each copy sits in. libdwfl finds the DWARF (the
 * object's own, or its build-id debug file); the walk is ours, bounded in
 * depth, since the target's file is untrusted input.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "symbols/dwarfopen.h"
#include "symbols/inlined.h"

#define MW_DIE_DEPTH	64	/* deeper trees are not walked further */
#define MW_CALLERS_KEPT	64	/* distinct callers told apart */
#define MW_CALLERS_SHOWN 4

struct walk {
	const char *name;
	const char *callers[MW_CALLERS_KEPT];
	int ncallers;		/* distinct, counted past MW_CALLERS_KEPT */
};

/* The DWARF of the object at @path (its own, or its build-id debug file),
 * into *@dwfl (dwfl_end it), *@mod and *@bias: 1; 0 with none (nothing
 * to close); -1 out of memory. */
static int open_dwarf(const char *path, Dwfl **dwfl, Dwfl_Module **mod, Dwarf_Addr *bias)
{
	int r = dwarfopen__object(path, path, dwfl, mod);

	if (r <= 0)
		return r;
	if (!dwfl_module_getdwarf(*mod, bias)) {
		dwfl_end(*dwfl);
		return 0;
	}
	return 1;
}

/* @attr of @die, through DW_AT_abstract_origin and DW_AT_specification. */
static const char *die_string(Dwarf_Die *die, unsigned attr)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, attr, &a) ? dwarf_formstring(&a) : NULL;
}

static bool is_named(Dwarf_Die *die, const char *name)
{
	const char *link = die_string(die, DW_AT_linkage_name);
	const char *plain = die_string(die, DW_AT_name);

	if (!link)
		link = die_string(die, DW_AT_MIPS_linkage_name);
	return (link && !strcmp(link, name)) || (plain && !strcmp(plain, name));
}

static void add_caller(struct walk *w, const char *caller)
{
	if (!caller)
		caller = "?";
	for (int i = 0; i < w->ncallers && i < MW_CALLERS_KEPT; i++)
		if (!strcmp(w->callers[i], caller))
			return;
	if (w->ncallers < MW_CALLERS_KEPT)
		w->callers[w->ncallers] = caller;
	w->ncallers++;
}

/* @die and its siblings, inside function @in. */
static void visit(struct walk *w, Dwarf_Die *die, const char *in, int depth)
{
	Dwarf_Die child;

	do {
		int tag = dwarf_tag(die);
		const char *here = in;

		if (tag == DW_TAG_subprogram) {
			here = die_string(die, DW_AT_name);
		} else if (tag == DW_TAG_inlined_subroutine) {
			if (is_named(die, w->name))
				add_caller(w, in);
			here = die_string(die, DW_AT_name);
		}
		if (depth < MW_DIE_DEPTH && dwarf_haschildren(die) > 0 &&
		    dwarf_child(die, &child) == 0)
			visit(w, &child, here, depth + 1);
	} while (dwarf_siblingof(die, die) == 0);
}

int inlined__callers(const char *path, const char *name, char *buf, size_t len)
{
	struct walk w = { .name = name };
	Dwfl_Module *mod;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t used = 0;
	Dwfl *dwfl;
	int r = open_dwarf(path, &dwfl, &mod, &bias);

	buf[0] = '\0';
	if (r <= 0)
		return r;	/* no DWARF: nothing to say */
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Die top;

		if (dwarf_child(cu, &top) == 0)
			visit(&w, &top, NULL, 1);
	}
	for (int i = 0; i < w.ncallers && i < MW_CALLERS_SHOWN && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 w.callers[i]);
	if (w.ncallers > MW_CALLERS_SHOWN && used < len)
		snprintf(buf + used, len - used, " and %d more", w.ncallers - MW_CALLERS_SHOWN);
	/* the names point into the DWARF: the text is made, let it go */
	dwfl_end(dwfl);
	return w.ncallers;
}

/* ---------------------------------------------------- copies to probe */

/* A function whose inlined copies are wanted: its abstract instance. */
struct origin {
	Dwarf_Off off;
	const char *name;
	int nparams;
	Dwarf_Off param[MW_NARGS];
};

struct copies {
	bool (*want)(const char *name, void *ctx);
	void *ctx;
	struct origin *origins;
	size_t norigins, ocap;
	struct mw_inlined_copy *v;
	size_t n, cap;
	bool oom;
};

/* Room in the array *@v (*@cap entries of @size) for entry @n: doubles
 * it when full; false out of memory. */
static bool room(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	void *nv;

	if (n < *cap)
		return true;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

/* DWARF's x86-64 register numbers, as memwatch's (-1: none it reads). */
static int8_t reg_of(int dwarf)
{
	static const int8_t map[16] = {
		MW_REG_AX, MW_REG_DX, MW_REG_CX, MW_REG_BX, MW_REG_SI, MW_REG_DI, MW_REG_BP, -1,
		MW_REG_R8, MW_REG_R9, MW_REG_R10, MW_REG_R11, MW_REG_R12, MW_REG_R13, MW_REG_R14,
		MW_REG_R15,
	};

	return dwarf >= 0 && dwarf < 16 ? map[dwarf] : -1;
}

static const char *linkage_or_name(Dwarf_Die *die)
{
	const char *s = die_string(die, DW_AT_linkage_name);

	if (!s)
		s = die_string(die, DW_AT_MIPS_linkage_name);
	return s ? s : die_string(die, DW_AT_name);
}

static Dwarf_Off origin_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &o))
		return 0;
	return dwarf_dieoffset(&o);
}

/* An abstract instance (DW_AT_inline): kept if wanted, with its
 * parameters in order. */
static void note_origin(struct copies *c, Dwarf_Die *die)
{
	const char *name = linkage_or_name(die);
	struct origin *o;
	Dwarf_Die child;

	if (!name || !c->want(name, c->ctx))
		return;
	if (!room((void **)&c->origins, &c->ocap, c->norigins, sizeof(*o))) {
		c->oom = true;
		return;
	}
	o = &c->origins[c->norigins++];
	*o = (struct origin){ .off = dwarf_dieoffset(die), .name = name };
	if (dwarf_child(die, &child) == 0)
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter && o->nparams < MW_NARGS)
				o->param[o->nparams++] = dwarf_dieoffset(&child);
		} while (dwarf_siblingof(&child, &child) == 0);
}

static const struct origin *find_origin(const struct copies *c, Dwarf_Off off)
{
	for (size_t i = 0; off && i < c->norigins; i++)
		if (c->origins[i].off == off)
			return &c->origins[i];
	return NULL;
}

/* Where the copy @die starts: entry_pc or low_pc, else its first range. */
static bool entry_of(Dwarf_Die *die, uint64_t *entry)
{
	Dwarf_Addr a, base, start, end;

	if (dwarf_entrypc(die, &a) == 0) {
		*entry = a;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*entry = start;
		return true;
	}
	return false;
}

/* The register each of @o's parameters is in at @pc, in the copy @die. */
static void args_of(Dwarf_Die *die, const struct origin *o, uint64_t pc, int8_t *arg)
{
	Dwarf_Die child;

	for (int i = 0; i < MW_NARGS; i++)
		arg[i] = -1;
	if (dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Off from = origin_of(&child);
		Dwarf_Attribute a;
		Dwarf_Op *expr;
		size_t n;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter || !from ||
		    !dwarf_attr(&child, DW_AT_location, &a) ||
		    dwarf_getlocation_addr(&a, pc, &expr, &n, 1) < 1 || n != 1)
			continue;
		for (int i = 0; i < o->nparams; i++) {
			if (o->param[i] != from)
				continue;
			if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
				arg[i] = reg_of(expr[0].atom - DW_OP_reg0);
			else if (expr[0].atom == DW_OP_regx)
				arg[i] = reg_of((int)expr[0].number);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void note_copy(struct copies *c, Dwarf_Die *die, const char *caller)
{
	const struct origin *o = find_origin(c, origin_of(die));
	struct mw_inlined_copy *k;
	uint64_t entry;

	if (!o || !entry_of(die, &entry))
		return;
	if (!room((void **)&c->v, &c->cap, c->n, sizeof(*k))) {
		c->oom = true;
		return;
	}
	k = &c->v[c->n++];
	k->entry = entry;
	snprintf(k->origin, sizeof(k->origin), "%s", o->name);
	snprintf(k->caller, sizeof(k->caller), "%s", caller ? caller : "?");
	args_of(die, o, entry, k->arg);
}

/* @die and its siblings; @copies: the second pass, which finds copies of
 * what the first kept. @caller: the out-of-line function around them. */
static void visit_copies(struct copies *c, Dwarf_Die *die, const char *caller, bool copies,
			 int depth)
{
	Dwarf_Die child;

	do {
		int tag = dwarf_tag(die);
		const char *here = caller;

		if (tag == DW_TAG_subprogram) {
			if (!copies && dwarf_hasattr(die, DW_AT_inline))
				note_origin(c, die);
			if (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges))
				here = linkage_or_name(die);
		} else if (tag == DW_TAG_inlined_subroutine && copies) {
			note_copy(c, die, caller);
		}
		if (depth < MW_DIE_DEPTH && dwarf_haschildren(die) > 0 &&
		    dwarf_child(die, &child) == 0)
			visit_copies(c, &child, here, copies, depth + 1);
	} while (!c->oom && dwarf_siblingof(die, die) == 0);
}

long inlined__copies(const char *path, bool (*want)(const char *name, void *ctx), void *ctx,
		     struct mw_inlined_copy **out)
{
	struct copies c = { .want = want, .ctx = ctx };
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwfl *dwfl;
	int r = open_dwarf(path, &dwfl, &mod, &bias);

	*out = NULL;
	if (r <= 0)
		return r;
	for (int pass = 0; pass < 2 && !c.oom && (pass == 0 || c.norigins); pass++) {
		Dwarf_Die *cu = NULL;

		while (!c.oom && (cu = dwfl_module_nextcu(mod, cu, &bias))) {
			Dwarf_Die top;

			if (dwarf_child(cu, &top) == 0)
				visit_copies(&c, &top, NULL, pass == 1, 1);
		}
	}
	free(c.origins);
	dwfl_end(dwfl);
	if (c.oom) {
		free(c.v);
		return -1;
	}
	*out = c.v;
	return (long)c.n;
}
