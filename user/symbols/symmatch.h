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
#include "symbols/symname.h"

bool symmatch__is_glob(const char *pattern);
/* @pattern is one of @n's names whole (or, a glob, matches one). */
bool symmatch__match(const char *pattern, const struct mw_symname *n);
/* @pattern is a suffix of @n's demangled path that starts at a "::"
 * segment, with or without the generic arguments (pathname.h): how a
 * name that matched nothing whole is tried next. Never for a glob. */
bool symmatch__suffix(const char *pattern, const struct mw_symname *n);

#endif
