// SPDX-License-Identifier: GPL-2.0
/*
 * pathname.c - "::" paths: segments, suffixes, generic arguments left
 * out, and the nearest names to a miss by as many segments as were
 * written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/pathname.h"

/* Where a C++ operator's name starts in @name, whose brackets are no
 * brackets ("operator<", "operator()", "operator[]", "operator->"):
 * "operator" starting a segment and followed by no identifier character
 * ("Cooperator", "k8s_operator" and "operator_x" are names); NULL if none. */
static const char *operator_at(const char *name)
{
	for (const char *p = strstr(name, "operator"); p; p = strstr(p + 1, "operator")) {
		char next = p[8];
		bool starts = p == name || (p - name >= 2 && p[-1] == ':' && p[-2] == ':');

		if (starts && !(next == '_' || (next >= 'a' && next <= 'z') ||
				(next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9')))
			return p;
	}
	return NULL;
}

static bool is_operator(const char *name)
{
	return operator_at(name) != NULL;
}

/* Whether the '>' at @p closes a bracket: not the arrow of "->" (Rust's
 * fn() -> T inside generic arguments). */
static bool closes(const char *name, const char *p)
{
	return *p != '>' || p == name || p[-1] != '-';
}

/* The offsets in @name of each segment's start after the first (just
 * past its "::"), at most @cap of them, into @v; brackets' insides are
 * not split. */
static size_t starts(const char *name, size_t *v, size_t cap)
{
	const char *op = operator_at(name);	/* no bracket, no split, past it */
	int depth = 0;
	size_t n = 0;

	for (const char *p = name; *p && (!op || p < op) && n < cap; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0 &&
			 closes(name, p))
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			v[n++] = (size_t)(++p + 1 - name);
	}
	return n;
}

#define MW_SEGMENTS_MAX 64	/* a path deeper than this counts as this */

size_t pathname__segments(const char *name)
{
	size_t v[MW_SEGMENTS_MAX];

	return starts(name, v, MW_SEGMENTS_MAX) + 1;
}

const char *pathname__tail(const char *name, size_t k)
{
	size_t v[MW_SEGMENTS_MAX], n = starts(name, v, MW_SEGMENTS_MAX);

	if (!k || k > n)
		return name;
	return name + v[n - k];
}

bool pathname__is_suffix(const char *name, const char *want)
{
	size_t v[MW_SEGMENTS_MAX], n, lw = strlen(want), ln;

	if (!name || !*want)
		return false;
	ln = strlen(name);
	if (lw > ln || strcmp(name + ln - lw, want))
		return false;
	if (lw == ln)
		return true;
	n = starts(name, v, MW_SEGMENTS_MAX);
	for (size_t i = 0; i < n; i++)
		if (v[i] == ln - lw)
			return true;
	return false;
}

/* The end of the balanced "<...>" that starts at @p (in @name): past its
 * '>', or at the string's end when it does not close. */
static const char *group_end(const char *name, const char *p)
{
	int depth = 0;

	do {
		depth += (*p == '<') - (*p == '>' && closes(name, p));
		p++;
	} while (depth > 0 && *p);
	return p;
}

char *pathname__plain(const char *name)
{
	char *out;
	size_t o = 0;

	if (!strchr(name, '<') || is_operator(name))
		return NULL;
	out = malloc(strlen(name) + 1);
	if (!out)
		return NULL;
	for (const char *p = name; *p; ) {
		const char *end;

		if (*p != '<') {
			out[o++] = *p++;
			continue;
		}
		end = group_end(name, p);
		/* a '<' that opens the path names its first segment ("<X as
		 * Tr>::m"): kept; one after a name is its generic arguments,
		 * and one after "::" too (Rust's turbofish, f::<T>): dropped */
		if (p == name)
			while (p < end)
				out[o++] = *p++;
		else if (o >= 2 && out[o - 1] == ':' && out[o - 2] == ':')
			o -= 2;
		p = end;
	}
	out[o] = '\0';
	if (!strcmp(out, name)) {
		free(out);
		return NULL;
	}
	return out;
}

unsigned pathname__distance(const char *a, const char *b, unsigned cap)
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
