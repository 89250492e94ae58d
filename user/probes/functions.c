// SPDX-License-Identifier: GPL-2.0
/*
 * functions.c - the functions a SYMBOL names in the objects a target
 * maps, for every probe a user names (structs.c's --insert and --remove,
 * roots.c's drops): symmatch.c says whether one name matches; this walks
 * every object's symbols and keeps one match an address.
 */
#include <stdlib.h>
#include "probes/functions.h"
#include "symbols/symmatch.h"

/* The functions @pattern names whole, and with @suffix those it names by
 * a suffix of their path too; one per address. */
static size_t collect(const char *pattern, const struct mw_objects *o, bool suffix,
		      struct mw_match **out)
{
	struct mw_match *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < elfsym__count(o->v[i].elf); j++) {
			const struct mw_sym *s = elfsym__at(o->v[i].elf, j);
			const struct mw_symname *nm = &o->v[i].names[j];
			bool dup = false;

			/* a .cold part is never entered: not a match, ever */
			if (!s->offset || (nm->clone & MW_CLONE_COLD) ||
			    !(symmatch__match(pattern, nm) ||
			      (suffix && symmatch__suffix(pattern, nm))))
				continue;
			for (size_t k = 0; k < n && !dup; k++)
				dup = v[k].obj == &o->v[i] && v[k].sym->offset == s->offset;
			if (dup)
				continue;
			if (n == cap) {
				struct mw_match *nv;

				cap = cap ? cap * 2 : 8;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					break;	/* report what was found */
				v = nv;
			}
			v[n++] = (struct mw_match){ &o->v[i], s, nm };
		}
	}
	*out = v;
	return n;
}

size_t functions__named(const char *pattern, const struct mw_objects *o,
			struct mw_match **out)
{
	return collect(pattern, o, false, out);
}

size_t functions__find(const char *pattern, const struct mw_objects *o,
		       struct mw_match **out, bool *by_suffix)
{
	size_t whole = collect(pattern, o, false, out);

	*by_suffix = false;
	if (symmatch__is_glob(pattern))
		return whole;
	/* a name the program itself defines whole is that function (a C
	 * insert(), whatever string::insert libstdc++ has) */
	for (size_t i = 0; o->n && i < whole; i++)
		if ((*out)[i].obj == &o->v[0])
			return whole;
	free(*out);
	/* else both kinds at once: "insert" that is a static of libc's and
	 * the end of the program's Rust method's path is two functions */
	*by_suffix = !whole;
	return collect(pattern, o, true, out);
}
