// SPDX-License-Identifier: GPL-2.0
/*
 * symmatch.c - match user-given symbol names against ELF symbols, and
 * measure how near a miss was, for the "did you mean" list.
 */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symmatch.h"

/* The longest demangled name kept, in bytes. A short mangled name can
 * demangle to gigabytes (each template argument a back-reference to the
 * one before doubles the output: 200 bytes, 2^30 of them), libiberty has no
 * limit of its own, and every symbol of every object the target maps is
 * demangled: a name that demangles longer is matched by its raw form only. */
#define MW_DEMANGLED_MAX (64 * 1024)

struct demangle_budget {
	size_t left;
	jmp_buf spent;
};

/* Counts the demangler's output and leaves it once over budget. The
 * callback interfaces allocate nothing, so jumping out leaks nothing. */
static void spend(const char *s, size_t len, void *opaque)
{
	struct demangle_budget *b = opaque;

	if (len > b->left)
		longjmp(b->spent, 1);
	b->left -= len;
}

/* cplus_demangle(@raw, @options), or NULL if the result would be longer
 * than MW_DEMANGLED_MAX: measured first through the callback interfaces
 * of the two demanglers that cplus_demangle tries with DMGL_AUTO. */
static char *demangle_bounded(const char *raw, int options)
{
	struct demangle_budget b = { .left = MW_DEMANGLED_MAX };

	if (setjmp(b.spent))
		return NULL;
	rust_demangle_callback(raw, options, spend, &b);
	cplus_demangle_v3_callback(raw, options, spend, &b);
	return cplus_demangle(raw, options);
}

/* Rust v0 writes an inherent method as "<crate::Type>::method"; the
 * legacy mangling, and users, write "crate::Type::method". Rewrites the
 * first form into the second in place; "<T as Trait>::m" stays. */
static void strip_inherent_impl(char *name)
{
	int depth = 0;
	char *p;

	if (name[0] != '<')
		return;
	for (p = name; *p; p++) {
		depth += (*p == '<') - (*p == '>');
		if (depth == 0)
			break;
	}
	if (!*p || strncmp(p + 1, "::", 2))
		return;
	*p = '\0';
	if (strstr(name, " as ")) {
		*p = '>';
		return;
	}
	memmove(p, p + 1, strlen(p + 1) + 1);	/* drop '>' */
	memmove(name, name + 1, strlen(name));	/* drop '<' */
}

void symname__init(struct mw_symname *n, const char *raw)
{
	n->raw = raw;
	n->full = n->bare = NULL;
	/* Itanium C++ and legacy Rust (_ZN...17h<hash>E), Rust v0 (_R...) */
	if (strncmp(raw, "_Z", 2) && strncmp(raw, "_R", 2))
		return;
	n->full = demangle_bounded(raw, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	n->bare = demangle_bounded(raw, DMGL_AUTO);
	if (n->bare)
		strip_inherent_impl(n->bare);
}

void symname__free(struct mw_symname *n)
{
	free(n->full);
	free(n->bare);
	n->full = n->bare = NULL;
}

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

	return one(pattern, n->raw, glob) || one(pattern, n->full, glob) ||
	       one(pattern, n->bare, glob);
}

unsigned symmatch__distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[256], best;

	if (la >= 255 || lb >= 255)
		return cap;
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], v;

			v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best >= cap)
			return cap;
	}
	return row[lb] < cap ? row[lb] : cap;
}
