/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symname.h - the names one ELF symbol answers to: raw, demangled C++ or
 * Rust (with or without parameters; Rust without its hash; without
 * generic arguments), and what compiler clone it is. Demangling is GNU's
 * (libiberty's cplus_demangle), not ours.
 */
#ifndef MW_SYMNAME_H
#define MW_SYMNAME_H

#include <stddef.h>

/*
 * What a compiler made of a function besides the function: the suffix of
 * a clone's or part's symbol (several may follow each other, as in
 * f.part.0.isra.0.cold). A name answers to its source name with these
 * dropped.
 */
enum mw_clone {
	MW_CLONE_CONSTPROP = 1 << 0,	/* .constprop.N: constant parameters gone */
	MW_CLONE_ISRA      = 1 << 1,	/* .isra.N: parameters rewritten or gone */
	MW_CLONE_PART      = 1 << 2,	/* .part.N: the outlined rest of f */
	MW_CLONE_RENAMED   = 1 << 3,	/* .llvm.N, .lto_priv.N: f, renamed */
	MW_CLONE_COLD      = 1 << 4,	/* .cold: f's rarely run code, no entry */
};
/* Clones whose parameters or return value may not be the source's. */
#define MW_CLONE_CHANGES_ABI (MW_CLONE_CONSTPROP | MW_CLONE_ISRA | MW_CLONE_PART)

/* The names one symbol answers to. full and bare are NULL for a name
 * that is not mangled; for a clone they are its source function's. */
struct mw_symname {
	const char *raw;
	char *full;	/* demangled with parameters: ns::f(int) */
	char *bare;	/* demangled without: ns::f */
	char *plain;	/* bare without generic arguments (a::B<T>::f: a::B::f);
			 * NULL when bare has none */
	char *base;	/* raw without the clone suffix; NULL: no suffix */
	const char *suffix;	/* into raw: ".constprop.0"; "" when none */
	unsigned clone;		/* enum mw_clone bits */
};

void symname__init(struct mw_symname *n, const char *raw);
void symname__free(struct mw_symname *n);
/* How a symbol is shown: the demangled name with parameters, with its
 * clone suffix as c++filt writes it ("f(int) [clone .isra.0]"), or raw. */
const char *symname__display(const struct mw_symname *n, char *buf, size_t len);
/* The source function's name, for near-miss suggestions: demangled
 * without parameters, or raw, without any clone suffix. */
const char *symname__source(const struct mw_symname *n);

#endif
