// SPDX-License-Identifier: GPL-2.0
/*
 * copies.c - probes at the inlined copies of a structure function. An
 * inlined copy has no frame of its own and no return: its entry is one
 * instruction inside its caller, where the probe counts the call and its
 * delta (one, or argN from the register DWARF names there). Nothing is
 * moved: a probe placed past the copy's first instruction could miss a
 * path that enters it further on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "memwatch.h"
#include "symbols/inlined.h"
#include "symbols/symmatch.h"
#include "probes/copies.h"
#include "probes/functions.h"
#include "probes/placement.h"

#define MW_COPIES_SHOWN	4	/* callers named in a message */

/* What the copies are copies of. */
struct wanted {
	const char *pattern;		/* f->symbol: with no symbol */
	const struct mw_match *m;	/* the symbols of the function */
	size_t n;
};

static bool want(const char *name, void *ctx)
{
	const struct wanted *w = ctx;
	struct mw_symname nm;
	bool yes;

	if (w->m) {
		for (size_t i = 0; i < w->n; i++)
			if (!strcmp(name, w->m[i].name->base ? w->m[i].name->base
							    : w->m[i].name->raw))
				return true;
		return false;
	}
	symname__init(&nm, name);
	yes = symmatch__match(w->pattern, &nm) || symmatch__suffix(w->pattern, &nm);
	symname__free(&nm);
	return yes;
}

/* The demangled path of DWARF's name @raw into @buf. */
static const char *shown(const char *raw, char *buf, size_t len)
{
	struct mw_symname nm;

	symname__init(&nm, raw);
	snprintf(buf, len, "%s", symname__source(&nm));
	symname__free(&nm);
	return buf;
}

/* "a, b and N more": the distinct callers of @v. */
static void callers(const struct mw_inlined_copy *v, long n, char *buf, size_t len)
{
	size_t used = 0;
	long named = 0, distinct = 0;
	char name[512];

	buf[0] = '\0';
	for (long i = 0; i < n; i++) {
		bool seen = false;

		for (long k = 0; k < i && !seen; k++)
			seen = !strcmp(v[k].caller, v[i].caller);
		if (seen)
			continue;
		distinct++;
		if (named++ < MW_COPIES_SHOWN && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 shown(v[i].caller, name, sizeof(name)));
	}
	if (distinct > MW_COPIES_SHOWN && used < len)
		snprintf(buf + used, len - used, " and %ld more", distinct - MW_COPIES_SHOWN);
}

static const char *opt_of(const struct mw_func_spec *f)
{
	return f->remove ? "--remove" : "--insert";
}

/* With no symbol, the copies must all be of one function. */
static bool one_origin(const struct mw_func_spec *f, const struct mw_inlined_copy *v, long n)
{
	char a[512], b[512];

	for (long i = 1; i < n; i++) {
		if (strcmp(v[i].origin, v[0].origin)) {
			mw_err("%s '%s' names %s and %s, each only inlined; name one by a longer path",
			       opt_of(f), f->symbol, shown(v[0].origin, a, sizeof(a)),
			       shown(v[i].origin, b, sizeof(b)));
			return false;
		}
	}
	return true;
}

/* Where argument @argno of each copy is: all in a register, or refused. */
static bool args_known(const struct mw_func_spec *f, const struct mw_inlined_copy *v, long n,
		       int argno)
{
	char name[512];

	for (long i = 0; i < n; i++) {
		if (v[i].arg[argno - 1] >= 0)
			continue;
		mw_err("%s '%s' --delta arg%d: in its inlined copy in %s, DWARF gives no register for argument %d at its entry; use --delta one",
		       opt_of(f), f->symbol, argno, shown(v[i].caller, name, sizeof(name)), argno);
		return false;
	}
	return true;
}

int copies__probe(const struct mw_target *t, const struct mw_func_spec *f,
		  const struct mw_object *obj, const struct mw_match *m, size_t n, bool heap,
		  struct mw_probe_table *tab)
{
	struct wanted w = { f->symbol, m, n };
	struct mw_inlined_copy *v;
	char where[1200], name[512], caller[512], what[1100];
	int argno = f->delta >= MW_DELTA_ARG1 ? (int)(f->delta - MW_DELTA_ARG1 + 1) : 0;
	uint64_t cookie = MW_SF_COOKIE(f->struct_id, f->delta) | (f->remove ? MW_SF_REMOVE : 0) |
			  MW_SF_COPY;
	long k = inlined__copies(obj->path, want, &w, &v), probed = 0;

	if (k < 0) {
		mw_err("out of memory");
		return -1;
	}
	if (k == 0)
		goto out;
	if (!m && !one_origin(f, v, k)) {
		k = -1;		/* said: refused */
		goto out;
	}
	callers(v, k, where, sizeof(where));
	shown(v[0].origin, name, sizeof(name));
	if (f->delta == MW_DELTA_RET) {
		/* said by the caller when the function also has a symbol */
		if (!m)
			mw_err("%s '%s' --delta ret: %s is only inlined (%ld cop%s, in %s): a copy has no return to read; use --delta one or argN",
			       opt_of(f), f->symbol, name, k, k == 1 ? "y" : "ies", where);
		k = m ? 0 : -1;
		goto out;
	}
	if (argno && !args_known(f, v, k, argno)) {
		k = -1;
		goto out;
	}
	for (long i = 0; i < k; i++) {
		struct mw_abi abi = { .go = false };
		uint64_t off = elfsym__vaddr_to_offset(obj->elf, v[i].entry), into = 0;
		const struct mw_sym *fn = off ? elfsym__at_offset(obj->elf, off, &into) : NULL;

		/* DWARF's word is checked: inside a function's code, on an
		 * instruction's first byte, or no breakpoint goes there */
		if (!fn || !placement__starts_insn(obj->path, fn->offset, fn->size, off)) {
			mw_err("%s '%s': DWARF puts an inlined copy of %s at %#llx in %s, which is not an instruction of a function there: not probed, so %s",
			       opt_of(f), f->symbol, name, (unsigned long long)v[i].entry, obj->shown,
			       "calls that reach it are not seen");
			continue;
		}
		for (int a = 0; a < MW_NARGS; a++)
			abi.arg[a] = (uint8_t)(v[i].arg[a] >= 0 ? v[i].arg[a] : a);
		snprintf(what, sizeof(what), "%s (inlined in %s)", name,
			 shown(v[i].caller, caller, sizeof(caller)));
		if (probes__add_here(tab, obj->path, off, cookie, MW_PROG_STRUCT,
				     argno ? &abi : NULL, what) < 0) {
			mw_err("out of memory");
			k = -1;
			goto out;
		}
		probed++;
	}
	k = probed;
	if (k)
		mw_err("%s '%s': pid %d: probes %s%ld inlined cop%s of %s, in %s (DWARF): a call there counts as one, with --delta one, or argN where DWARF gives the argument's register (ret cannot be read in a copy)%s",
		       opt_of(f), f->symbol, (int)t->pid, m ? "also " : "", k, k == 1 ? "y" : "ies",
		       name, where,
		       heap && !f->remove ? "; what it allocates is not charged to the structure" : "");
out:
	free(v);
	return (int)k;
}
