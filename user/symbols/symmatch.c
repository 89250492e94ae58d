// SPDX-License-Identifier: GPL-2.0
/*
 * symmatch.c - match user-given symbol names against the names an ELF
 * symbol answers to (symname.h): whole, by glob, or by a path's suffix.
 */
#include <fnmatch.h>
#include <string.h>
#include "symbols/pathname.h"
#include "symbols/symmatch.h"

bool symmatch__is_glob(const char *pattern)
{
	return strchr(pattern, '*') != NULL;
}

static bool one(const char *pattern, const char *name, bool glob)
{
	if (!name)
		return false;
	/* no FNM_PATHNAME: '*' spans "::" and "/" alike; no escapes either,
	 * C++ names hold no backslashes */
	return glob ? fnmatch(pattern, name, FNM_NOESCAPE) == 0
		    : strcmp(pattern, name) == 0;
}

bool symmatch__match(const char *pattern, const struct mw_symname *n)
{
	bool glob = symmatch__is_glob(pattern);

	return one(pattern, n->raw, glob) || one(pattern, n->base, glob) ||
	       one(pattern, n->full, glob) || one(pattern, n->bare, glob) ||
	       one(pattern, n->plain, glob);
}

bool symmatch__suffix(const char *pattern, const struct mw_symname *n)
{
	if (symmatch__is_glob(pattern) || !n->bare)
		return false;
	return pathname__is_suffix(n->bare, pattern) || pathname__is_suffix(n->plain, pattern);
}
