// SPDX-License-Identifier: GPL-2.0
/*
 * symname.c - the names one ELF symbol answers to: demangled by GNU's
 * libiberty (bounded), with and without parameters and generic
 * arguments, and its compiler clone suffixes parsed.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symbols/pathname.h"
#include "symbols/symname.h"

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

/* The clone kind of one suffix token at @p ("constprop.0", "cold"),
 * its length in *@len; 0 if @p is not one. */
static unsigned clone_token(const char *p, size_t *len)
{
	static const struct { const char *name; unsigned kind; bool numbered; } tok[] = {
		{ "constprop", MW_CLONE_CONSTPROP, true },
		{ "isra", MW_CLONE_ISRA, true },
		{ "part", MW_CLONE_PART, true },
		{ "llvm", MW_CLONE_RENAMED, true },
		{ "lto_priv", MW_CLONE_RENAMED, true },
		{ "cold", MW_CLONE_COLD, false },	/* GCC 9+: .cold; older .cold.N */
	};

	for (size_t i = 0; i < sizeof(tok) / sizeof(tok[0]); i++) {
		size_t l = strlen(tok[i].name), d = 0;

		if (strncmp(p, tok[i].name, l))
			continue;
		if (p[l] == '.')
			while (p[l + 1 + d] >= '0' && p[l + 1 + d] <= '9')
				d++;
		if (tok[i].numbered && !d)
			continue;
		*len = d ? l + 1 + d : l;
		if (p[*len] && p[*len] != '.')
			continue;
		return tok[i].kind;
	}
	return 0;
}

/* The clone kinds of @s if it is a whole clone suffix (".isra.0.cold"),
 * 0 if not. */
static unsigned clone_suffix(const char *s)
{
	unsigned kinds = 0, k;
	size_t len;

	while (*s == '.') {
		if (!(k = clone_token(s + 1, &len)))
			return 0;
		kinds |= k;
		s += 1 + len;
	}
	return *s ? 0 : kinds;
}

void symname__init(struct mw_symname *n, const char *raw)
{
	const char *name = raw;

	n->raw = raw;
	n->full = n->bare = n->plain = n->base = NULL;
	n->suffix = raw + strlen(raw);
	n->clone = 0;
	/* the first dot that starts a whole clone suffix; a name is never
	 * only a suffix */
	for (const char *d = *raw ? strchr(raw + 1, '.') : NULL; d; d = strchr(d + 1, '.')) {
		unsigned kinds = clone_suffix(d);

		if (kinds) {
			n->clone = kinds;
			n->suffix = d;
			n->base = strndup(raw, (size_t)(d - raw));
			if (n->base)
				name = n->base;
			break;
		}
	}
	/* Itanium C++ and legacy Rust (_ZN...17h<hash>E), Rust v0 (_R...) */
	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2))
		return;
	n->full = demangle_bounded(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	n->bare = demangle_bounded(name, DMGL_AUTO);
	if (n->bare) {
		strip_inherent_impl(n->bare);
		n->plain = pathname__plain(n->bare);
	}
}

void symname__free(struct mw_symname *n)
{
	free(n->full);
	free(n->bare);
	free(n->plain);
	free(n->base);
	n->full = n->bare = n->plain = n->base = NULL;
}

const char *symname__display(const struct mw_symname *n, char *buf, size_t len)
{
	const char *s;
	size_t used;

	if (!n->full)
		return n->raw;
	if (!*n->suffix)
		return n->full;
	/* as c++filt: "f(int) [clone .constprop.0] [clone .isra.0]" */
	used = (size_t)snprintf(buf, len, "%s", n->full);
	for (s = n->suffix; *s && used < len; ) {
		size_t l = 1;

		while (s[l] && s[l] != '.')
			l++;
		if (s[l] == '.' && s[l + 1] >= '0' && s[l + 1] <= '9')
			for (l++; s[l] >= '0' && s[l] <= '9'; l++)
				;
		used += (size_t)snprintf(buf + used, len - used, " [clone %.*s]", (int)l, s);
		s += l;
	}
	return buf;
}

const char *symname__source(const struct mw_symname *n)
{
	if (n->bare)
		return n->bare;
	return n->base ? n->base : n->raw;
}
