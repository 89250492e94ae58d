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
#include <string.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "symbols/inlined.h"

#define MW_DIE_DEPTH	64	/* deeper trees are not walked further */
#define MW_CALLERS_KEPT	64	/* distinct callers told apart */
#define MW_CALLERS_SHOWN 4

struct walk {
	const char *name;
	const char *callers[MW_CALLERS_KEPT];
	int ncallers;		/* distinct, counted past MW_CALLERS_KEPT */
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

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
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t used = 0;

	buf[0] = '\0';
	if (!dwfl)
		return -1;
	mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod || !dwfl_module_getdwarf(mod, &bias)) {
		dwfl_end(dwfl);
		return 0;	/* no DWARF: nothing to say */
	}
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
