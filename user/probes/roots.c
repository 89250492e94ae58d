// SPDX-License-Identifier: GPL-2.0
/*
 * roots.c - a --read root that is a parameter: which register each
 * structure function's entry reads it from (read/param.c finds it in
 * DWARF), and where instances end. Rust drops a value through
 * core::ptr::drop_in_place::<T>, C++ through T's destructor: both get
 * the instance in their first argument, and a probe there takes it out
 * of the roots table. Drops are rare next to inserts; a type whose drop
 * was inlined everywhere has no symbol, and is said once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "read/expr.h"
#include "read/param.h"
#include "probes/roots.h"
#include "probes/functions.h"

/* The parameter structure @id's --read starts at; NULL if it starts at
 * a variable (a path, or no --read). */
static const char *root_param(const struct mw_options *o, int id, char *buf, size_t len)
{
	char err[256];
	struct mw_expr e;

	if (!o->structs[id].read || expr__parse(o->structs[id].read, &e, err, sizeof(err)) ||
	    !param__is_name(e.root))
		return NULL;
	snprintf(buf, len, "%s", e.root);
	return buf;
}

int roots__arg(const struct mw_options *o, const struct mw_func_spec *f, const char *path,
	       uint64_t vaddr, bool go, const char *what, struct mw_root_fns *found,
	       uint64_t *cookie)
{
	struct mw_root_fn *rf = &found->v[f->struct_id];
	char name[MW_EXPR_NAME_MAX], err[512];
	const char *want = root_param(o, f->struct_id, name, sizeof(name));
	struct mw_param p;
	int r;

	if (!want)
		return 0;
	r = param__find(path, vaddr, want, &p, err, sizeof(err));
	if (r == 0)
		return 0;	/* not this function's: another's, or a variable */
	if (r < 0) {
		mw_err("--read '%s': in %s, %s", o->structs[f->struct_id].read, what, err);
		return -1;
	}
	if (go) {
		mw_err("--read '%s': %s is Go code, whose parameters memwatch does not take as roots; name a variable",
		       o->structs[f->struct_id].read, what);
		return -1;
	}
	*cookie |= MW_SF_WITH_ROOT(p.argno);
	if (!rf->path) {
		rf->path = strdup(path);
		if (!rf->path) {
			mw_err("out of memory");
			return -1;
		}
		rf->vaddr = vaddr;
		snprintf(rf->pointee, sizeof(rf->pointee), "%s", p.pointee);
	}
	return 0;
}

/* The drops of @type: Rust's drop_in_place::<type>, C++'s ~Type. */
static size_t drops_of(const char *type, const struct mw_objects *objs, struct mw_match **out)
{
	char pattern[600], last[256];
	const char *tail = strrchr(type, ':');
	size_t n;

	snprintf(pattern, sizeof(pattern), "core::ptr::drop_in_place<%s>", type);
	n = functions__named(pattern, objs, out);
	if (n)
		return n;
	free(*out);
	/* a C++ destructor is named after the class, without its arguments */
	snprintf(last, sizeof(last), "%s", tail ? tail + 1 : type);
	last[strcspn(last, "<")] = '\0';
	snprintf(pattern, sizeof(pattern), "%s::~%s", type, last);
	return functions__named(pattern, objs, out);
}

int roots__drops(const struct mw_options *o, const struct mw_objects *objs,
		 const struct mw_root_fns *found, struct mw_probe_table *tab)
{
	for (int k = 0; k < o->nstructs; k++) {
		const struct mw_root_fn *rf = &found->v[k];
		struct mw_match *m = NULL;
		size_t n;

		if (!rf->path)
			continue;
		n = drops_of(rf->pointee, objs, &m);
		if (!n)
			mw_err("--read '%s': %s has no drop memwatch can probe (inlined everywhere): an instance that ends is dropped once its memory no longer reads as one",
			       o->structs[k].read, rf->pointee);
		for (size_t i = 0; i < n; i++) {
			char name[1024];

			if (probes__add(tab, m[i].obj->path, m[i].sym->offset, m[i].sym->size,
					MW_SF_COOKIE(k, MW_DELTA_ONE), MW_PROG_ROOT_DROP, false, NULL,
					symname__display(m[i].name, name, sizeof(name))) < 0) {
				free(m);
				mw_err("out of memory");
				return -1;
			}
		}
		free(m);
	}
	return 0;
}

void roots__free(struct mw_root_fns *found)
{
	for (int k = 0; k < MW_MAX_STRUCTS; k++) {
		free(found->v[k].path);
		found->v[k].path = NULL;
	}
}
