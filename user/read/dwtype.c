// SPDX-License-Identifier: GPL-2.0
/*
 * dwtype.c - questions about DWARF types, answered with libdw and a
 * bounded depth everywhere.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "read/dwtype.h"
#include "symbols/dwarfopen.h"

void dwtype__why(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

Dwfl *dwtype__open(const char *path, Dwfl_Module **mod)
{
	Dwfl *dwfl;

	return dwarfopen__object(path, path, &dwfl, mod) > 0 ? dwfl : NULL;
}

bool dwtype__of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

int dwtype__peel(Dwarf_Die *t)
{
	for (int i = 0; i < MW_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return tag;
		if (!dwtype__of(t, t))
			return 0;
	}
	return 0;
}

bool dwtype__is_pointer(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

bool dwtype__is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

const char *dwtype__name(Dwarf_Die *t, char *buf, size_t len)
{
	Dwarf_Die inner = *t;
	int tag = dwtype__peel(&inner);
	const char *name = dwarf_diename(t) ? dwarf_diename(t) : dwarf_diename(&inner);

	if (name)
		snprintf(buf, len, "%s", name);
	else if (dwtype__is_pointer(tag))
		snprintf(buf, len, "a pointer");
	else if (tag == DW_TAG_array_type)
		snprintf(buf, len, "an array");
	else if (dwtype__is_record(tag))
		snprintf(buf, len, "an unnamed struct");
	else
		snprintf(buf, len, "a value of no named type");
	return buf;
}

bool dwtype__size(Dwarf_Die *t, uint64_t *size)
{
	Dwarf_Word w;

	if (dwarf_aggregate_size(t, &w))
		return false;
	*size = w;
	return true;
}

uint64_t dwtype__align(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Die peeled = *t, child;
	uint64_t best = 1, size;
	int tag = dwtype__peel(&peeled);

	if (dwarf_attr(&peeled, DW_AT_alignment, &a) && !dwarf_formudata(&a, &w) && w)
		return w;
	if (tag == DW_TAG_array_type && dwtype__of(&peeled, &child))
		return dwtype__align(&child);
	if (!dwtype__is_record(tag)) {	/* scalars are aligned to their size */
		if (!dwtype__size(&peeled, &size) || !size)
			return 1;
		return size > 16 ? 16 : size;
	}
	if (dwarf_child(&peeled, &child))
		return 1;
	do {
		Dwarf_Die mt;
		uint64_t al;

		if ((dwarf_tag(&child) != DW_TAG_member && dwarf_tag(&child) != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration) || !dwtype__of(&child, &mt))
			continue;
		al = dwtype__align(&mt);
		best = al > best ? al : best;
	} while (dwarf_siblingof(&child, &child) == 0);
	return best;
}

bool dwtype__offset(Dwarf_Die *m, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0;	/* a union's members */
		return true;
	}
	if (!dwarf_formudata(&a, &w)) {
		*off = (int64_t)w;
		return true;
	}
	if (!dwarf_getlocation(&a, &ops, &n) && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[0].number;
		return true;
	}
	return false;
}

static int member(Dwarf_Die *t, const char *name, Dwarf_Die *m, int64_t *off, int depth)
{
	Dwarf_Die child;

	if (depth > MW_TYPE_DEPTH || dwarf_child(t, &child))
		return -1;
	do {
		int tag = dwarf_tag(&child);
		const char *n = dwarf_diename(&child);
		int64_t here;
		Dwarf_Die inner;

		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		if (tag == DW_TAG_member && n && !strcmp(n, name)) {
			if (dwarf_hasattr(&child, DW_AT_bit_size) || !dwtype__offset(&child, off) ||
			    !dwtype__of(&child, m))
				return -2;
			return 0;
		}
		/* unnamed members and base classes are searched through */
		if ((tag == DW_TAG_inheritance || !n) && dwtype__of(&child, &inner) &&
		    dwtype__offset(&child, &here) && dwtype__is_record(dwtype__peel(&inner)) &&
		    !member(&inner, name, m, off, depth + 1)) {
			*off += here;
			return 0;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

int dwtype__member(Dwarf_Die *t, const char *name, Dwarf_Die *m, int64_t *off)
{
	Dwarf_Die r = *t;

	if (!dwtype__is_record(dwtype__peel(&r)))
		return -1;
	return member(&r, name, m, off, 0);
}

int dwtype__path(Dwarf_Die *t, const char *path, Dwarf_Die *m, int64_t *off)
{
	char part[128];
	Dwarf_Die cur = *t;
	int64_t total = 0;

	while (*path) {
		size_t n = strcspn(path, ".");
		int64_t here;
		int r;

		if (n >= sizeof(part))
			return -1;
		memcpy(part, path, n);
		part[n] = '\0';
		r = dwtype__member(&cur, part, &cur, &here);
		if (r)
			return r;
		total += here;
		path += n + (path[n] == '.');
	}
	*m = cur;
	*off = total;
	return 0;
}

bool dwtype__param(Dwarf_Die *t, const char *name, Dwarf_Die *out)
{
	Dwarf_Die r = *t, child;

	dwtype__peel(&r);
	if (dwarf_child(&r, &child))
		return false;
	do {
		const char *n = dwarf_diename(&child);

		if (dwarf_tag(&child) == DW_TAG_template_type_parameter && n && !strcmp(n, name))
			return dwtype__of(&child, out);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

bool dwtype__named(Dwarf_Die *t, const char *prefix)
{
	Dwarf_Die r = *t;
	const char *n;

	dwtype__peel(&r);
	n = dwarf_diename(&r);
	return n && !strncmp(n, prefix, strlen(prefix));
}

static bool may_own(Dwarf_Die *t, int depth)
{
	Dwarf_Die r = *t, child;
	int tag = dwtype__peel(&r);

	if (depth > MW_TYPE_DEPTH || dwtype__is_pointer(tag))
		return true;	/* too deep to tell, or a pointer: may own */
	if (tag == DW_TAG_array_type)
		return dwtype__of(&r, &child) && may_own(&child, depth + 1);
	if (!dwtype__is_record(tag) && tag != DW_TAG_variant_part)
		return false;	/* integers, floats, enums: own nothing */
	if (dwarf_child(&r, &child))
		return false;
	do {
		Dwarf_Die mt;
		int ct = dwarf_tag(&child);

		if (ct == DW_TAG_variant_part || ct == DW_TAG_variant) {
			if (may_own(&child, depth + 1))
				return true;
			continue;
		}
		if ((ct != DW_TAG_member && ct != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration) || !dwtype__of(&child, &mt))
			continue;
		if (may_own(&mt, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

bool dwtype__may_own(Dwarf_Die *t)
{
	return may_own(t, 0);
}
