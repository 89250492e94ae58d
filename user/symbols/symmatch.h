/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symmatch.h - how a user's SYMBOL matches an ELF symbol: the raw name,
 * the demangled C++ or Rust name (with or without the parameter list;
 * Rust without its hash), or a glob with '*' over any of them. Demangling
 * is GNU's (libiberty's cplus_demangle), not ours.
 */
#ifndef MW_SYMMATCH_H
#define MW_SYMMATCH_H

#include <stdbool.h>

/* The names one symbol answers to. full and bare are NULL for a name
 * that is not mangled. */
struct mw_symname {
	const char *raw;
	char *full;	/* demangled with parameters: ns::f(int) */
	char *bare;	/* demangled without: ns::f */
};

void symname__init(struct mw_symname *n, const char *raw);
void symname__free(struct mw_symname *n);

bool symmatch__is_glob(const char *pattern);
bool symmatch__match(const char *pattern, const struct mw_symname *n);
/* Edit distance between @a and @b, capped at @cap (for suggestions). */
unsigned symmatch__distance(const char *a, const char *b, unsigned cap);

#endif
