// SPDX-License-Identifier: GPL-2.0
/*
 * expr.c - the --read EXPR parser: a root name with :: paths, then .f,
 * ->f, [N], after any leading *s. Every character is accounted for; the
 * first one that does not fit ends parsing with a message naming it.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read/expr.h"

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* An identifier (or a tuple index: digits) at @p into @out; its length,
 * 0 if none, -1 if too long. */
static int ident(const char *p, bool digits, char *out, size_t len)
{
	size_t n = 0;

	if (!ident_start(p[0]) && !(digits && isdigit((unsigned char)p[0])))
		return 0;
	while (ident_char(p[n]))
		n++;
	if (n >= len)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return (int)n;
}

/* The root: identifiers joined by ::. Its length, or -1. */
static int root(const char *p, char *out, size_t len)
{
	size_t used = 0, at = 0;

	for (;;) {
		char part[MW_EXPR_NAME_MAX];
		int n = ident(p + at, false, part, sizeof(part));

		if (n <= 0 || used + (size_t)n + 2 >= len)
			return -1;
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "::" : "", part);
		at += (size_t)n;
		if (strncmp(p + at, "::", 2))
			return (int)at;
		at += 2;
	}
}

static int fail(char *err, size_t len, const char *text, size_t at, const char *what)
{
	snprintf(err, len, "%s at character %zu ('%.10s')", what, at + 1, text + at);
	return -1;
}

int expr__parse(const char *text, struct mw_expr *out, char *err, size_t len)
{
	size_t at = 0, stars = 0;
	int n;

	memset(out, 0, sizeof(*out));
	if (strlen(text) >= MW_EXPR_MAX)
		return fail(err, len, text, 0, "too long");
	while (text[at] == '*') {
		stars++;
		at++;
	}
	if (stars >= MW_EXPR_STEPS)
		return fail(err, len, text, 0, "too many steps");
	n = root(text + at, out->root, sizeof(out->root));
	if (n < 0)
		return fail(err, len, text, at, "a variable's name expected");
	at += (size_t)n;
	while (text[at]) {
		struct mw_expr_step *s = &out->step[out->nsteps];
		const char *what = "'.', '->' or '[' expected";

		if (out->nsteps + stars >= MW_EXPR_STEPS)
			return fail(err, len, text, at, "too many steps");
		if (text[at] == '.' || !strncmp(text + at, "->", 2)) {
			s->kind = text[at] == '.' ? MW_EXPR_FIELD : MW_EXPR_ARROW;
			at += s->kind == MW_EXPR_FIELD ? 1 : 2;
			n = ident(text + at, s->kind == MW_EXPR_FIELD, s->name, sizeof(s->name));
			if (n <= 0)
				return fail(err, len, text, at, "a field's name expected");
			at += (size_t)n;
		} else if (text[at] == '[') {
			char *end;

			s->kind = MW_EXPR_INDEX;
			if (!isdigit((unsigned char)text[at + 1]))
				return fail(err, len, text, at + 1, "an index (a number) expected");
			s->index = strtoull(text + at + 1, &end, 10);
			if (*end != ']' || s->index > (1ull << 40))
				return fail(err, len, text, (size_t)(end - text), "']' after a number expected");
			at = (size_t)(end - text) + 1;
		} else {
			return fail(err, len, text, at, what);
		}
		out->nsteps++;
	}
	for (size_t i = 0; i < stars; i++)
		out->step[out->nsteps++].kind = MW_EXPR_DEREF;
	return 0;
}

const char *expr__format(const struct mw_expr *e, char *buf, size_t len)
{
	size_t used = 0;
	int stars = 0;

	for (int i = 0; i < e->nsteps; i++)
		stars += e->step[i].kind == MW_EXPR_DEREF;
	used += (size_t)snprintf(buf, len, "%.*s%s", stars, "********************************",
				 e->root);
	for (int i = 0; i < e->nsteps && used < len; i++) {
		const struct mw_expr_step *s = &e->step[i];

		if (s->kind == MW_EXPR_FIELD)
			used += (size_t)snprintf(buf + used, len - used, ".%s", s->name);
		else if (s->kind == MW_EXPR_ARROW)
			used += (size_t)snprintf(buf + used, len - used, "->%s", s->name);
		else if (s->kind == MW_EXPR_INDEX)
			used += (size_t)snprintf(buf + used, len - used, "[%llu]",
						 (unsigned long long)s->index);
	}
	return buf;
}
