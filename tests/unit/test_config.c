// SPDX-License-Identifier: GPL-2.0
/* test_config.c - the config file: same meaning as the options, errors
 * reported as FILE:LINE. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "config.h"

static int parse(struct mw_options *o, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	memset(o, 0, sizeof(*o));
	err = config__parse(o, f, "my.conf");
	fclose(f);
	return err;
}

static void quiet(void)
{
	cr_redirect_stderr();
}

Test(config, structures__same_as_options)
{
	struct mw_options o;

	cr_assert_eq(parse(&o, "# comment\n\nstruct dag\n"
			   "insert store::Cache::insert(std::string const&, int)\n"
			   "delta ret\n  remove   dag::gc  \ndelta arg2\nsize 512\n"
			   "struct b\ninsert f\n"), 0, "a valid file parses");
	cr_expect_eq(o.nstructs, 2, "two structures");
	cr_expect_str_eq(o.structs[0].name, "dag", "first name");
	cr_expect_eq(o.structs[0].size, 512, "size applies to dag");
	cr_expect_eq(o.nfuncs, 3, "three functions");
	cr_expect_str_eq(o.funcs[0].symbol, "store::Cache::insert(std::string const&, int)",
			 "a value with spaces is the rest of the line");
	cr_expect_eq(o.funcs[0].delta, MW_DELTA_RET, "delta ret for the insert");
	cr_expect_str_eq(o.funcs[1].symbol, "dag::gc", "value trimmed");
	cr_expect(o.funcs[1].remove, "remove");
	cr_expect_eq(o.funcs[1].delta, MW_DELTA_ARG1 + 1, "delta arg2");
	cr_expect_eq(o.funcs[2].struct_id, 1, "f belongs to b");
	cli__free(&o);
}

Test(config, bad_delta__file_and_line, .init = quiet)
{
	struct mw_options o;

	cr_expect_eq(parse(&o, "struct a\ninsert f\ndelta rot\n"), -1, "bad delta rejected");
	fflush(stderr);
	cr_expect_stderr_eq_str("memwatch: my.conf:3: --delta 'rot': use one, ret or arg1..arg6\n",
				"reported at file:line");
	cli__free(&o);
}

Test(config, unknown_key__rejected, .init = quiet)
{
	struct mw_options o;

	cr_expect_eq(parse(&o, "struct a\npid 12\n"), -1, "pid is not a config key");
	cli__free(&o);
}

Test(config, key_without_value__rejected, .init = quiet)
{
	struct mw_options o;

	cr_expect_eq(parse(&o, "struct\n"), -1, "struct needs a name");
}

Test(config, insert_before_struct__rejected, .init = quiet)
{
	struct mw_options o;

	cr_expect_eq(parse(&o, "insert f\n"), -1, "insert needs a struct first");
}

Test(config, nul_byte_in_a_line__rejected, .init = quiet)
{
	static const char text[] = "struct a\0junk\ninsert f\n";
	struct mw_options o;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	memset(&o, 0, sizeof(o));
	cr_expect_eq(config__parse(&o, f, "my.conf"), -1, "a NUL inside a line is an error, not a cut");
	fclose(f);
	cli__free(&o);
}
