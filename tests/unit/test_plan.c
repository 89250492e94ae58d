// SPDX-License-Identifier: GPL-2.0
/*
 * test_plan.c - --read's expressions (expr.c) and their plans (plan.c)
 * against the DWARF of build/fixtures/read (tests/fixtures/read_fixture.c):
 * each step's offset as offsetof gives it on the same types, derefs where
 * pointers are, the integer's size and sign, and a clear refusal for
 * what cannot be read.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>
#include "read/expr.h"
#include "read/param.h"
#include "read/plan.h"
#include "../fixtures/read_fixture.h"
#include "symbols/elfsym.h"

#define FIXTURE "build/fixtures/read"

static struct mw_expr parse(const char *text)
{
	struct mw_expr e;
	char err[256];

	cr_assert_eq(expr__parse(text, &e, err, sizeof(err)), 0, "'%s' parses: %s", text, err);
	return e;
}

Test(plan, expr__steps_in_order_stars_last)
{
	struct mw_expr e = parse("**ns::var.f->g[12].0");
	char back[256];

	cr_expect_str_eq(e.root, "ns::var", "the root, with its path");
	cr_assert_eq(e.nsteps, 6, "four steps and two derefs");
	cr_expect_eq(e.step[0].kind, MW_EXPR_FIELD);
	cr_expect_str_eq(e.step[0].name, "f");
	cr_expect_eq(e.step[1].kind, MW_EXPR_ARROW);
	cr_expect_eq(e.step[2].kind, MW_EXPR_INDEX);
	cr_expect_eq(e.step[2].index, 12);
	cr_expect_str_eq(e.step[3].name, "0", "a tuple's field");
	cr_expect_eq(e.step[4].kind, MW_EXPR_DEREF, "the *s come last, as C applies them");
	cr_expect_str_eq(expr__format(&e, back, sizeof(back)), "**ns::var.f->g[12].0",
			 "written back as given");
}

Test(plan, expr__bad_text_said_where)
{
	static const char *const bad[] = { "", "x.", "x..y", "x[", "x[1", "x[y]", "x->", "x y",
					   "::x", "x::", "9x", "x.f-g",
					   "********************************x",
					   "****************x.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q" };
	struct mw_expr e;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_neq(expr__parse(bad[i], &e, err, sizeof(err)), 0, "'%s' is refused", bad[i]);
		cr_expect(strstr(err, "at character"), "'%s': says where: %s", bad[i], err);
	}
}

/* The plan of @text, which must build. */
static struct mw_plan plan_of(const char *text)
{
	struct mw_expr e = parse(text);
	struct mw_plan p;
	char err[512] = "";

	cr_assert_eq(plan__build(FIXTURE, &e, &p, err, sizeof(err)), MW_PLAN_OK, "'%s' plans: %s",
		     text, err);
	return p;
}

/* The sum of the adds before the first deref (or all), and how many
 * derefs there are. */
static int64_t adds(const struct mw_plan *p, int from, int *derefs, int *next)
{
	int64_t sum = 0;
	int i;

	for (i = from; i < p->nsteps && p->step[i].op == MW_PLAN_ADD; i++)
		sum += p->step[i].n;
	*next = i;
	*derefs = 0;
	for (int k = 0; k < p->nsteps; k++)
		*derefs += p->step[k].op == MW_PLAN_DEREF;
	return sum;
}

Test(plan, fields_and_indexes__offsets_as_offsetof)
{
	struct mw_elf *e = NULL;
	const struct mw_sym *sym;
	struct mw_plan p = plan_of("fixture_outer.in.arr[2]");
	int derefs, next;

	cr_assert_eq(elfsym__open(FIXTURE, &e), 0, "the fixture opens");
	cr_expect_eq(adds(&p, 0, &derefs, &next),
		     (int64_t)(offsetof(struct fixture_outer, in) +
			       offsetof(struct fixture_inner, arr) + 2 * sizeof(long)),
		     "the offset of in.arr[2]");
	cr_expect_eq(derefs, 0, "no pointer on the way");
	cr_expect_eq(p.shape.int_size, sizeof(long), "a long");
	cr_expect(p.shape.is_signed, "signed");
	cr_expect_str_eq(p.name, "fixture_outer", "the root by its name");
	(void)sym;
	elfsym__close(e);
}

Test(plan, pointers__a_deref_then_the_member)
{
	struct mw_plan arrow = plan_of("fixture_outer.p->b");
	struct mw_plan dot = plan_of("fixture_outer.p.b");
	int derefs, next;

	cr_expect_eq(adds(&arrow, 0, &derefs, &next), (int64_t)offsetof(struct fixture_outer, p),
		     "to the pointer");
	cr_assert_eq(derefs, 1, "one pointer followed");
	cr_expect_eq(arrow.step[next].op, MW_PLAN_DEREF, "then its deref");
	cr_expect_eq(adds(&arrow, next + 1, &derefs, &next),
		     (int64_t)offsetof(struct fixture_inner, b), "then b's offset");
	cr_expect_eq(arrow.shape.int_size, 2, "an unsigned short");
	cr_expect_not(arrow.shape.is_signed, "unsigned");
	cr_expect_eq(dot.nsteps, arrow.nsteps, ". follows the pointer as -> does");
	for (int i = 0; i < dot.nsteps; i++)
		cr_expect(dot.step[i].op == arrow.step[i].op && dot.step[i].n == arrow.step[i].n,
			  "step %d the same", i);
}

Test(plan, unions_enums_bools_and_statics)
{
	struct mw_plan u = plan_of("fixture_outer.u2"), c = plan_of("fixture_outer.color");
	struct mw_plan f = plan_of("fixture_outer.flag"), st = plan_of("fixture_static");
	int derefs, next;

	cr_expect_eq(adds(&u, 0, &derefs, &next), (int64_t)offsetof(struct fixture_outer, u2),
		     "an anonymous union's member");
	cr_expect_eq(u.shape.int_size, 8, "a long long");
	cr_expect_eq(c.shape.int_size, sizeof(enum fixture_color), "an enum, as an integer");
	cr_expect_eq(f.shape.int_size, 1, "a _Bool");
	cr_expect_eq(st.nsteps, 0, "a static read where it is");
	cr_expect_eq(st.shape.int_size, sizeof(long), "a long");
}

static void refused(const char *text, enum mw_plan_found want, const char *why)
{
	struct mw_expr e = parse(text);
	struct mw_plan p;
	char err[512] = "";

	cr_expect_eq(plan__build(FIXTURE, &e, &p, err, sizeof(err)), want, "'%s' refused", text);
	if (why)
		cr_expect(strstr(err, why), "'%s' says [%s]: %s", text, why, err);
}

Test(plan, what_cannot_be_read__refused_with_why)
{
	refused("fixture_outer.nosuch", MW_PLAN_BAD, "has no member nosuch");
	refused("fixture_outer.in.bits", MW_PLAN_BAD, "bit-field");
	refused("fixture_outer.p", MW_PLAN_BAD, "names a pointer");
	refused("fixture_outer.ratio", MW_PLAN_BAD, "names double");
	refused("fixture_outer.in", MW_PLAN_BAD, "names fixture_inner");
	refused("fixture_outer.in.arr[3]", MW_PLAN_BAD, "past the end");
	refused("fixture_outer.tag->x", MW_PLAN_BAD, "not a pointer");
	refused("fixture_tls", MW_PLAN_BAD, "thread-local");
	refused("no_such_variable", MW_PLAN_NO_ROOT, NULL);
}

/* A root that is a parameter: the register it arrives in, the type it
 * points at, and the steps from that type (no deref for the root). */
Test(plan, parameter_roots__register_and_steps)
{
	struct mw_expr e = parse("o.in.b");
	struct mw_elf *elf = NULL;
	const struct mw_sym *fn;
	struct mw_param prm;
	struct mw_plan p;
	char err[256] = "";
	int derefs, next;

	cr_assert_eq(elfsym__open(FIXTURE, &elf), 0, "the fixture opens");
	fn = elfsym__find(elf, "fixture_sum");
	cr_assert(fn, "fixture_sum is there");
	cr_assert_eq(param__find(FIXTURE, fn->vaddr, "o", &prm, err, sizeof(err)), 1, "%s", err);
	cr_expect_eq(prm.argno, 2, "the second integer argument: rsi");
	cr_expect_str_eq(prm.pointee, "fixture_outer");
	cr_expect_eq(param__find(FIXTURE, fn->vaddr, "in", &prm, err, sizeof(err)), -1,
		     "a struct passed by value is refused");
	cr_expect(strstr(err, "passed by value"), "%s", err);
	cr_expect_eq(param__find(FIXTURE, fn->vaddr, "nosuch", &prm, err, sizeof(err)), 0);
	cr_assert_eq(plan__build_param(FIXTURE, fn->vaddr, &e, &p, err, sizeof(err)), MW_PLAN_OK,
		     "%s", err);
	cr_expect_eq(p.from_arg, 2);
	cr_expect_eq(adds(&p, 0, &derefs, &next),
		     (int64_t)(offsetof(struct fixture_outer, in) + offsetof(struct fixture_inner, b)),
		     "from the instance the register points at");
	cr_expect_eq(derefs, 0, "the register is the address: no deref");
	cr_expect_eq(p.shape.int_size, sizeof(unsigned short));
	elfsym__close(elf);
}

Test(plan, no_dwarf__said_so)
{
	struct mw_expr e = parse("x");
	struct mw_plan p;
	char err[64];

	cr_expect_eq(plan__build("build/fixtures/go_nodwarf", &e, &p, err, sizeof(err)),
		     MW_PLAN_NO_DWARF, "an object without DWARF (go build -ldflags=-w)");
}
