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

	cr_expect_eq(parse(&o, "struct a\npidx 12\n"), -1, "no such option");
	cli__free(&o);
	cr_expect_eq(parse(&o, "config other.conf\n"), -1, "no config from a config");
	cli__free(&o);
	cr_expect_eq(parse(&o, "no-heap yes\n"), -1, "a flag takes no value");
	cli__free(&o);
}

/* A config file holds every option: a service's whole command line. */
Test(config, every_option__same_as_the_command_line)
{
	struct mw_options o;

	cr_assert_eq(parse(&o, "exe /bin/sh\ncomm redis-server\nlisten 127.0.0.1:9464\n"
			   "interval 0.5\noutput /tmp/feed.csv\nformat openmetrics\nno-heap\n"
			   "max-targets 512\npid 42\ntop 7\nstacks\n"
			   "web-config /etc/memwatch/web.yml\n"
			   "struct keys\ninsert dbAdd\nremove dbGenericDelete\n"), 0,
		     "a whole service's options parse");
	cr_expect_eq(o.nexes, 1, "exe");
	cr_expect_str_eq(o.exes[0], "/usr/bin/dash", "resolved");
	cr_expect_str_eq(o.comms[0], "redis-server", "comm");
	cr_expect_str_eq(o.listen, "127.0.0.1:9464", "listen, kept after its line is gone");
	cr_expect_str_eq(o.web_config, "/etc/memwatch/web.yml", "web-config, kept");
	cr_expect_str_eq(o.output, "/tmp/feed.csv", "output, kept");
	cr_expect_eq(o.interval_s, 0.5, "interval");
	cr_expect_eq(o.format, MW_FORMAT_OPENMETRICS, "format");
	cr_expect(o.no_heap && o.stacks, "flags");
	cr_expect_eq(o.max_targets, 512, "max-targets");
	cr_expect_eq(o.npids, 1, "pid");
	cr_expect_eq(o.top, 7, "top");
	cr_expect_eq(o.nstructs, 1, "struct");
	cr_expect_eq(o.nfuncs, 2, "functions");
	cli__free(&o);
}

Test(config, key_without_value__rejected, .init = quiet)
{
	struct mw_options o;

	cr_expect_eq(parse(&o, "struct\n"), -1, "struct needs a name");
	cli__free(&o);
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
