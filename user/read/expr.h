/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expr.h - a --read EXPR, parsed: a root (a global or static variable by
 * its source name, or a unique suffix of it) and the steps the source
 * language writes after it: .field (through a pointer or reference, as
 * Rust and drgn read it), ->field, [N], and leading *s, applied last as
 * C applies them. Parsing is separate from the DWARF that gives the steps
 * their meaning (plan.h).
 */
#ifndef MW_EXPR_H
#define MW_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define MW_EXPR_MAX		256	/* characters */
#define MW_EXPR_STEPS		32
#define MW_EXPR_NAME_MAX	128

enum mw_expr_kind {
	MW_EXPR_FIELD,		/* .name: a member, through pointers */
	MW_EXPR_ARROW,		/* ->name: a member of what a pointer points at */
	MW_EXPR_INDEX,		/* [N] */
	MW_EXPR_DEREF,		/* a leading * */
};

struct mw_expr_step {
	enum mw_expr_kind kind;
	char name[MW_EXPR_NAME_MAX];	/* FIELD, ARROW: "0" is a tuple's .0 */
	uint64_t index;			/* INDEX */
};

struct mw_expr {
	char root[MW_EXPR_NAME_MAX];	/* "crate::module::NAME", "ns::name", "name" */
	struct mw_expr_step step[MW_EXPR_STEPS];
	int nsteps;			/* the leading *s come last */
};

/* Parses @text into @out. 0, or -1 with what is wrong and where in @err. */
int expr__parse(const char *text, struct mw_expr *out, char *err, size_t len);
/* @e written back as text, for messages. */
const char *expr__format(const struct mw_expr *e, char *buf, size_t len);

#endif
