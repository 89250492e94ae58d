// SPDX-License-Identifier: GPL-2.0
/*
 * test_golang.c - Go objects and Go functions as golang.c reads them, on
 * the fixtures the Makefile builds from tests/fixtures/go_fixture.go
 * (go build, with its DWARF and with -ldflags=-w) and on a C fixture.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "symbols/elfsym.h"
#include "symbols/golang.h"

#define GO_FIX		"build/fixtures/go"
#define GO_NODWARF	"build/fixtures/go_nodwarf"
#define C_FIX		"build/fixtures/pie"

static struct mw_elf *open_fixture(const char *path)
{
	struct mw_elf *e = NULL;

	cr_assert_eq(elfsym__open(path, &e), 0, "%s opens", path);
	return e;
}

static struct mw_gofunc describe(const char *path, struct mw_elf *e, const char *name)
{
	const struct mw_sym *sym = elfsym__find(e, name);
	struct mw_gofunc g;

	cr_assert(sym, "%s defines %s", path, name);
	golang__describe(path, sym, &g);
	return g;
}

Test(golang, version__from_buildinfo)
{
	struct mw_elf *go = open_fixture(GO_FIX), *c = open_fixture(C_FIX);
	char v[32] = "";

	cr_expect(golang__version(go, v, sizeof(v)), "a Go object");
	cr_expect(!strncmp(v, "go1.", 4), "its version is Go's: %s", v);
	cr_expect_not(golang__version(c, v, sizeof(v)), "a C object is not Go's");
	elfsym__close(go);
	elfsym__close(c);
}

/* counted(t *table, name string, n int, small int32) int */
Test(golang, parameters__where_the_register_abi_puts_them)
{
	struct mw_elf *e = open_fixture(GO_FIX);
	struct mw_gofunc g = describe(GO_FIX, e, "main.counted");

	cr_expect(g.go && g.dwarf && g.regabi, "Go code, with DWARF, by the register ABI");
	cr_expect_eq(g.nparams, 4, "four parameters");
	cr_expect_eq(g.param[0].reg, -1, "t is a pointer: %s", g.param[0].why);
	cr_expect(strstr(g.param[0].why, "*main.table"), "named by its type: %s", g.param[0].why);
	cr_expect_eq(g.param[1].reg, -1, "name is a string");
	cr_expect_str_eq(g.param[1].why, "a string, in 2 registers", "the string's two words");
	cr_expect_eq(g.param[2].reg, MW_REG_DI, "n: the fourth integer register, rdi");
	cr_expect_eq(g.param[3].reg, MW_REG_SI, "small (int32): rsi");
	cr_expect_str_eq(g.param[2].name, "n", "named as in the source");
	cr_expect(g.result_int, "the result is an int: %s", g.result_why);
	elfsym__close(e);
}

/* (t *table) grow(by uint64) (int, error): the receiver comes first */
Test(golang, method__receiver_first_and_first_result)
{
	struct mw_elf *e = open_fixture(GO_FIX);
	struct mw_gofunc g = describe(GO_FIX, e, "main.(*table).grow");

	cr_expect_eq(g.nparams, 2, "the receiver and by");
	cr_expect_str_eq(g.param[0].name, "t", "the receiver is parameter 1");
	cr_expect_eq(g.param[1].reg, MW_REG_BX, "by: the second integer register, rbx");
	cr_expect(g.result_int, "the first of two results is an int");
	elfsym__close(e);
}

Test(golang, results__a_string_or_none_is_not_a_count)
{
	struct mw_elf *e = open_fixture(GO_FIX);
	struct mw_gofunc s = describe(GO_FIX, e, "main.named");
	struct mw_gofunc none = describe(GO_FIX, e, "main.nothing");

	cr_expect_not(s.result_int, "a string result");
	cr_expect(strstr(s.result_why, "string"), "said: %s", s.result_why);
	cr_expect_not(none.result_int, "no result");
	cr_expect_str_eq(none.result_why, "no result", "said: %s", none.result_why);
	elfsym__close(e);
}

Test(golang, no_dwarf__go_by_its_name_only)
{
	struct mw_elf *e = open_fixture(GO_NODWARF);
	struct mw_gofunc g = describe(GO_NODWARF, e, "main.counted");
	char v[32];

	cr_expect(golang__version(e, v, sizeof(v)), "still a Go object");
	cr_expect(g.go, "main.counted is Go code by its name");
	cr_expect_not(g.dwarf, "but nothing more is known");
	cr_expect_eq(g.nparams, 0, "no parameters described");
	elfsym__close(e);
}

Test(golang, c_function__not_go)
{
	struct mw_elf *e = open_fixture(C_FIX);
	struct mw_gofunc g = describe(C_FIX, e, "fixture_insert");

	cr_expect_not(g.go, "C code, by its compile unit's language");
	elfsym__close(e);
}
