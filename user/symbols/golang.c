// SPDX-License-Identifier: GPL-2.0
/*
 * golang.c - what memwatch needs to know of Go code: the object's Go
 * version (.go.buildinfo), and a function's parameters and first result
 * as its DWARF describes them at the entry (libdw's location lists; the
 * compile unit's producer says whether the register ABI is in use). The
 * target's file is untrusted input: every read is bounded.
 */
#include <dwarf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "symbols/dwarfopen.h"
#include "symbols/golang.h"

/* .go.buildinfo: a magic string, the pointer size, flags; since Go 1.18
 * (flag 2) the version follows at offset 32 as a varint-prefixed string. */
#define GO_BUILDINFO_MAGIC	"\xff Go buildinf:"
#define GO_BUILDINFO_INLINE	0x2
#define GO_BUILDINFO_VERSION	32

bool golang__version(const struct mw_elf *e, char *buf, size_t len)
{
	unsigned char bi[GO_BUILDINFO_VERSION + 64];
	long n = elfsym__section(e, ".go.buildinfo", bi, sizeof(bi));
	size_t vlen = 0, at = GO_BUILDINFO_VERSION;

	if (n < 0)
		return false;
	snprintf(buf, len, "an unknown Go");
	if (n < GO_BUILDINFO_VERSION + 1 || memcmp(bi, GO_BUILDINFO_MAGIC, 14) ||
	    !(bi[15] & GO_BUILDINFO_INLINE))
		return true;	/* Go 1.17 and older point at their version */
	for (int shift = 0; at < (size_t)n && shift < 28; shift += 7) {
		vlen |= (size_t)(bi[at] & 0x7f) << shift;
		if (!(bi[at++] & 0x80))
			break;
	}
	if (vlen && at + vlen <= (size_t)n)
		snprintf(buf, len, "%.*s", (int)vlen, (const char *)bi + at);
	return true;
}

/* ------------------------------------------------------------ DWARF */

/* DWARF's x86-64 register numbers (the psABI's) as enum mw_reg: rax,
 * rdx, rcx, rbx, rsi, rdi, rbp, rsp (none), r8-r15. */
static int mw_reg_of(unsigned dwarf)
{
	static const int map[16] = {
		MW_REG_AX, MW_REG_DX, MW_REG_CX, MW_REG_BX, MW_REG_SI, MW_REG_DI,
		MW_REG_BP, -1, MW_REG_R8, MW_REG_R9, MW_REG_R10, MW_REG_R11,
		MW_REG_R12, MW_REG_R13, MW_REG_R14, MW_REG_R15,
	};

	return dwarf < 16 ? map[dwarf] : -1;
}

/* @die's type, through typedefs and qualifiers; false if it has none. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, type))
		return false;
	for (int i = 0; i < 8; i++) {
		int tag = dwarf_tag(type);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &a) || !dwarf_formref_die(&a, type))
			return false;
	}
	return false;
}

/* True if @die's type is an integer of at most 8 bytes; else what it is
 * into @why. */
static bool is_integer(Dwarf_Die *die, char *why, size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	Dwarf_Die type;
	const char *name;
	int size;

	if (!type_of(die, &type)) {
		snprintf(why, len, "of no type DWARF describes");
		return false;
	}
	name = dwarf_diename(&type);
	size = dwarf_bytesize(&type);
	if (dwarf_tag(&type) == DW_TAG_base_type && dwarf_attr(&type, DW_AT_encoding, &a) &&
	    !dwarf_formudata(&a, &enc) && size > 0 && size <= 8 &&
	    (enc == DW_ATE_signed || enc == DW_ATE_unsigned ||
	     enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
		return true;
	snprintf(why, len, "a %s, not an integer", name ? name :
		 dwarf_tag(&type) == DW_TAG_pointer_type ? "pointer" : "value");
	return false;
}

/* Where parameter @die is at @pc, the function's entry, into @p. */
static void locate(Dwarf_Die *die, Dwarf_Addr pc, struct mw_go_param *p)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t n = 0, pieces = 0;

	p->reg = -1;
	snprintf(p->name, sizeof(p->name), "%s", dwarf_diename(die) ? dwarf_diename(die) : "?");
	if (!dwarf_attr(die, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, pc, &expr, &n, 1) != 1 || !n) {
		snprintf(p->why, sizeof(p->why), "not where DWARF says at the entry");
		return;
	}
	for (size_t i = 0; i < n; i++)
		pieces += expr[i].atom == DW_OP_piece;
	if (pieces > 1) {
		Dwarf_Die type;
		const char *tn = type_of(die, &type) ? dwarf_diename(&type) : NULL;

		snprintf(p->why, sizeof(p->why), "a %s, in %zu registers", tn ? tn : "value", pieces);
		return;
	}
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
		p->reg = mw_reg_of(expr[0].atom - DW_OP_reg0);
	else if (expr[0].atom == DW_OP_regx)
		p->reg = mw_reg_of((unsigned)expr[0].number);
	if (p->reg < 0) {
		snprintf(p->why, sizeof(p->why), "on the stack, not in a register");
		return;
	}
	if (!is_integer(die, p->why, sizeof(p->why)))
		p->reg = -1;
}

/* The function's own parameters and first result, into @out. */
static void describe_params(Dwarf_Die *fn, Dwarf_Addr pc, struct mw_gofunc *out)
{
	Dwarf_Die child;
	bool result_seen = false;

	snprintf(out->result_why, sizeof(out->result_why), "no result");
	if (dwarf_child(fn, &child))
		return;
	do {
		Dwarf_Attribute a;
		bool result = false;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		/* Go marks its results as "variable parameters" */
		if (dwarf_attr(&child, DW_AT_variable_parameter, &a))
			dwarf_formflag(&a, &result);
		if (result && !result_seen) {
			result_seen = true;
			out->result_int = is_integer(&child, out->result_why,
						     sizeof(out->result_why));
		} else if (!result) {
			if (out->nparams < MW_NARGS)
				locate(&child, pc, &out->param[out->nparams]);
			out->nparams++;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

struct find {
	Dwarf_Addr pc;
	Dwarf_Die fn;
	bool found;
};

static int match_pc(Dwarf_Die *fn, void *arg)
{
	struct find *f = arg;
	Dwarf_Addr lo;

	if (dwarf_lowpc(fn, &lo) || lo != f->pc)
		return DWARF_CB_OK;
	f->fn = *fn;
	f->found = true;
	return DWARF_CB_ABORT;
}

/* The compile unit of code address @pc. Go writes no .debug_aranges; a
 * cgo program's has only its C units, and libdw then answers with the
 * nearest of those: the units' own ranges are looked through instead. */
static Dwarf_Die *cu_of(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);

	if (cu && dwarf_haspc(cu, pc) > 0)
		return cu;
	cu = NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)))
		if (dwarf_haspc(cu, pc) > 0)
			return cu;
	return NULL;
}

/* C's clones and parts (gcc, LLVM) in a cgo program: not Go names. */
static bool go_name(const char *name)
{
	static const char *const c_suffix[] = {
		".cold", ".part.", ".constprop.", ".isra.", ".llvm.", ".lto_priv.",
	};

	if (!strchr(name, '.') || name[0] == '.')
		return false;
	for (size_t i = 0; i < sizeof(c_suffix) / sizeof(c_suffix[0]); i++)
		if (strstr(name, c_suffix[i]))
			return false;
	return true;
}

void golang__describe(const char *path, const struct mw_sym *sym, struct mw_gofunc *out)
{
	struct find f = { .pc = sym->vaddr };
	Dwfl *dwfl;
	Dwarf_Addr bias = 0;
	Dwarf_Attribute a;
	Dwfl_Module *mod;
	Dwarf_Die *cu;
	const char *producer;

	memset(out, 0, sizeof(*out));
	out->go = go_name(sym->name);
	snprintf(out->result_why, sizeof(out->result_why), "no result DWARF describes");
	if (dwarfopen__object(path, path, &dwfl, &mod) <= 0)
		return;
	if (!dwfl_module_getdwarf(mod, &bias) || !(cu = cu_of(mod, sym->vaddr))) {
		dwfl_end(dwfl);
		return;		/* no DWARF: the name alone */
	}
	out->go = dwarf_srclang(cu) == DW_LANG_Go;
	producer = dwarf_attr(cu, DW_AT_producer, &a) ? dwarf_formstring(&a) : NULL;
	out->regabi = producer && strstr(producer, "regabi");
	dwarf_getfuncs(cu, match_pc, &f, 0);
	out->dwarf = f.found;
	if (f.found)
		describe_params(&f.fn, f.pc, out);
	dwfl_end(dwfl);
}
