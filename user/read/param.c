// SPDX-License-Identifier: GPL-2.0
/*
 * param.c - a function's parameter by name, from its DWARF subprogram
 * (libdw; a build-id debug file through libdwfl). The register comes from
 * the parameter's location at the function's entry; where DWARF gives a
 * stack slot there (an unoptimised build describes the body), from
 * System V's order, when every parameter before it takes one register.
 */
#include <ctype.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read/dwtype.h"
#include "read/param.h"

#define MW_NARG_REGS	6
#define MW_SCOPE_DEPTH	16	/* namespaces and types nested */

/* DWARF's x86-64 register numbers of System V's integer arguments. */
static const int arg_regs[MW_NARG_REGS] = { 5, 4, 1, 2, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */

bool param__is_name(const char *name)
{
	if (!name || !(isalpha((unsigned char)*name) || *name == '_'))
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '_')
			return false;
	return true;
}

static const char *name_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

/* The register @p arrives in at @pc, by its location there: 1 to 6, or 0
 * when DWARF does not say a register of System V's arguments. */
static int located(Dwarf_Die *p, Dwarf_Addr pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t n;
	int reg;

	if (!dwarf_attr(p, DW_AT_location, &a) || dwarf_getlocation_addr(&a, pc, &expr, &n, 1) < 1 ||
	    n < 1)
		return 0;
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
		reg = expr[0].atom - DW_OP_reg0;
	else if (expr[0].atom == DW_OP_regx)
		reg = (int)expr[0].number;
	else
		return 0;
	for (int i = 0; i < MW_NARG_REGS; i++)
		if (arg_regs[i] == reg)
			return i + 1;
	return 0;
}

/* Whether a value of @t takes one integer register: a pointer, an
 * integer, an enum of up to 8 bytes. */
static bool one_register(Dwarf_Die *t)
{
	Dwarf_Die r = *t;
	int tag = dwtype__peel(&r);
	uint64_t size;

	if (dwtype__is_pointer(tag))
		return true;
	return (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type) &&
	       dwtype__size(&r, &size) && size && size <= 8;
}

/* "ns::Type": @t's name with the namespaces and types around it. */
static void qualified(Dwarf_Die *t, char *buf, size_t len)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(t, &scopes);
	size_t used = 0;

	buf[0] = '\0';
	for (int i = n - 1; i >= 0 && used < len; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *nm = dwarf_diename(&scopes[i]);

		if (tag == DW_TAG_compile_unit || !nm)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "::" : "", nm);
	}
	free(scopes);
	if (!buf[0] && dwarf_diename(t))
		snprintf(buf, len, "%s", dwarf_diename(t));
}

/* The subprogram among @die and its siblings (and inside namespaces,
 * structs and other subprograms' declarations) whose code starts at @pc. */
static bool find_subprogram(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	do {
		int tag = dwarf_tag(die);
		Dwarf_Addr low;
		Dwarf_Die child;

		if (tag == DW_TAG_subprogram && !dwarf_lowpc(die, &low) && low == pc) {
			*out = *die;
			return true;
		}
		if ((tag == DW_TAG_namespace || dwtype__is_record(tag)) && depth < MW_SCOPE_DEPTH &&
		    dwarf_haschildren(die) > 0 && !dwarf_child(die, &child) &&
		    find_subprogram(&child, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(die, die) == 0);
	return false;
}

/* The subprogram whose code starts at @pc: the function itself, not one
 * inlined at its first instruction (dwarf_getscopes would name that). */
static bool subprogram_at(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), top;

	return cu && !dwarf_child(cu, &top) && find_subprogram(&top, pc - bias, out, 0);
}

int param__lookup(Dwfl_Module *mod, uint64_t vaddr, const char *name, struct mw_param *out,
		  char *err, size_t len)
{
	Dwarf_Die fn, child, t;
	Dwarf_Addr bias = 0;
	int pos = 0, argno;
	bool regs_so_far = true;

	memset(out, 0, sizeof(*out));
	if (!dwfl_module_getdwarf(mod, &bias) || !subprogram_at(mod, vaddr + bias, &fn) ||
	    dwarf_child(&fn, &child))
		return 0;
	do {
		const char *nm;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		pos++;
		nm = name_of(&child);
		if (!nm || strcmp(nm, name)) {
			regs_so_far &= dwtype__of(&child, &t) && one_register(&t);
			continue;
		}
		if (!dwtype__of(&child, &t) || !dwtype__is_pointer(dwtype__peel(&t)) ||
		    !dwtype__of(&t, &t)) {
			snprintf(err, len, "%s is passed by value: memwatch reads a structure through a pointer or reference parameter",
				 name);
			return -1;
		}
		argno = located(&child, vaddr);
		if (!argno && regs_so_far && pos <= MW_NARG_REGS)
			argno = pos;
		if (!argno) {
			snprintf(err, len, "%s does not arrive in a register memwatch reads at the entry",
				 name);
			return -1;
		}
		out->argno = argno;
		out->die = child;
		dwtype__peel(&t);
		qualified(&t, out->pointee, sizeof(out->pointee));
		return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int param__find(const char *path, uint64_t vaddr, const char *name, struct mw_param *out,
		char *err, size_t len)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = dwtype__open(path, &mod);
	int r;

	if (!dwfl)
		return 0;
	r = param__lookup(mod, vaddr, name, out, err, len);
	dwfl_end(dwfl);
	return r;
}
