// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - command-line parsing as one table: each case is a command
 * line and what it must give (the parsed options, the one usage error on
 * stderr, or --help/--version on stdout), every option with good and bad
 * values, the limits taken from options.h. Then what a table cannot say: two
 * parses in a row, and the strict number parsers.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture.h"
#include "cli.h"
#include "sample/sites.h"

#define PID_MAX_LIMIT	4194304		/* the kernel's; cli.c accepts up to it */

/*
 * A command line after "memwatch": @argv, then @times copies of @repeat.
 * In the words and in the expectations, {N} and {M} stand for @n and @m,
 * {F} for @f (printed so that it reads back exactly), {S} for a structure
 * name of @n letters, and {i} for the number of the copy (1, 2, ...).
 */
struct cli_case {
	const char *argv[20];
	int times;
	const char *repeat[4];
	uint64_t n, m;
	double f;
	int rc;			/* of cli__parse: 0 run, 1 printed (exit 0), -1 usage error */
	const char *err;	/* rc -1: within the one line on stderr */
	const char *out;	/* rc 1: how stdout starts */
	const char *fields[4];	/* rc 0: runs of "name=value" as describe() writes them */
};

static const struct cli_case cases[] = {
	/* the defaults, as the README gives them */
	{ .argv = { "-p", "1234" }, .fields = {
		"npids=1 pids=1234 interval=1 count=0 output=(null) format=csv listen=(null) "
		"folded=(null) top=10 top_given=0 leak_intervals=5 stacks=0 "
		"max_live_blocks=1048576 no_heap=0 probe_entry=0 floor=0 allocator=auto "
		"nstructs=0 structs= nfuncs=0 funcs=" } },

	/* --pid */
	{ .argv = { "--pid", "42" }, .fields = { "npids=1 pids=42" } },
	{ .argv = { "-p42", "--pid=43" }, .fields = { "npids=2 pids=42,43" } },
	{ .argv = { "-p", "30", "--pid", "10", "-p", "20" }, .fields = { "npids=3 pids=30,10,20" } },
	{ .argv = { "-i", "3", "-p", "9" }, .fields = { "pids=9 interval=3" } },
	{ .argv = { "-p", "{N}" }, .n = PID_MAX_LIMIT, .fields = { "pids={N}" } },
	{ .times = MW_MAX_TARGETS, .repeat = { "-p{i}" }, .n = MW_MAX_TARGETS,
	  .fields = { "npids={N}", "last_pid={N}" } },
	{ .argv = { "-p", "0" }, .rc = -1, .err = "--pid '0': not a process id" },
	{ .argv = { "-p", "-5" }, .rc = -1, .err = "--pid '-5'" },
	{ .argv = { "-p", "12abc" }, .rc = -1, .err = "--pid '12abc'" },
	{ .argv = { "-p", "" }, .rc = -1, .err = "--pid ''" },
	{ .argv = { "-p", "{N}" }, .n = PID_MAX_LIMIT + 1, .rc = -1, .err = "--pid '{N}'" },
	{ .argv = { "-p", "7", "-p", "7" }, .rc = -1, .err = "--pid 7 is given twice" },
	{ .argv = { "-p", "7", "-p", "007" }, .rc = -1, .err = "--pid 007 is given twice" },
	{ .times = MW_MAX_TARGETS + 1, .repeat = { "-p{i}" }, .n = MW_MAX_TARGETS, .rc = -1,
	  .err = "too many --pid (at most {N})" },
	{ .argv = { "-i", "2" }, .rc = -1, .err = "--pid PID is required" },
	{ .rc = -1, .err = "--pid PID is required, or a command to run: memwatch [options] -- CMD [ARGS...], or --exe, --comm or --cgroup to follow (see memwatch --help)" },

	/* follow mode: --exe, --comm, --cgroup, --max-targets */
	{ .argv = { "--exe", "/bin/sh" }, .fields = { "npids=0" } },
	{ .argv = { "--comm", "redis-server" }, .fields = { "npids=0" } },
	{ .argv = { "--comm", "sixteen-letters!" }, .rc = -1, .err = "--comm 'sixteen-letters!': a process name, 1 to 15 characters" },
	{ .argv = { "--comm", "" }, .rc = -1, .err = "--comm '': a process name" },
	{ .argv = { "--exe", "/etc/passwd" }, .rc = -1, .err = "--exe '/etc/passwd': not an executable file (Permission denied)" },
	{ .argv = { "--exe", "/no/such" }, .rc = -1, .err = "--exe '/no/such': not an executable file (No such file or directory)" },
	{ .argv = { "--exe", "/bin" }, .rc = -1, .err = "--exe '/bin': not an executable file" },
	{ .argv = { "--cgroup", "/no/such" }, .rc = -1, .err = "--cgroup '/no/such': No such file or directory" },
	{ .argv = { "--cgroup", "/tmp" }, .rc = -1, .err = "--cgroup '/tmp': not a cgroup v2 directory" },
	{ .argv = { "-p", "1", "--max-targets", "{N}" }, .n = MW_MAX_TARGETS, .fields = { "max_targets={N}" } },
	{ .argv = { "-p", "1", "--max-targets", "0" }, .rc = -1, .err = "--max-targets '0': from 1 to" },
	{ .argv = { "-p", "1", "--max-targets", "{N}" }, .n = MW_MAX_TARGETS + 1, .rc = -1, .err = "--max-targets '{N}'" },

	/* launch mode: -- CMD [ARGS...], --user */
	{ .argv = { "-o", "f", "--", "prog", "-p", "1", "--x" },
	  .fields = { "npids=0 pids=", "command=prog,-p,1,--x user=(null)" } },
	{ .argv = { "-o", "--", "--", "prog" }, .fields = { "output=--", "command=prog user=(null)" } },
	{ .argv = { "-l", "9100", "--user", "node", "--", "sh", "-c", "x" },
	  .fields = { "command=sh,-c,x user=node" } },
	{ .argv = { "-p", "3", "-o", "f", "--", "prog" }, .fields = { "pids=3", "command=prog user=(null)" } },
	{ .argv = { "-o", "f", "--" }, .rc = -1, .err = "-- needs a command to run" },
	{ .argv = { "--", "prog" }, .rc = -1,
	  .err = "in launch mode the program keeps stdout: write the feed with -o PATH or serve it with --listen" },
	{ .argv = { "-p", "1", "--user", "node" }, .rc = -1, .err = "--user runs a command as USER" },
	{ .argv = { "-o", "f", "--user", "", "--", "x" }, .rc = -1, .err = "--user needs a user name" },
	{ .argv = { "-p", "1", "prog" }, .rc = -1,
	  .err = "unexpected argument 'prog'; a command to run goes after --" },
	{ .argv = { "-p" }, .rc = -1, .err = "option '-p' needs a value" },

	/* --interval */
	{ .argv = { "--pid", "42", "--interval", "0.25" }, .fields = { "interval=0.25" } },
	{ .argv = { "-p", "42", "-i", "0.25" }, .fields = { "interval=0.25" } },
	{ .argv = { "-p", "1", "-i2" }, .fields = { "interval=2" } },
	{ .argv = { "-p", "1", "--interval={F}" }, .f = MW_MIN_INTERVAL_S, .fields = { "interval={F}" } },
	{ .argv = { "-p", "1", "-i", "{F}" }, .f = MW_MAX_INTERVAL_S, .fields = { "interval={F}" } },
	{ .argv = { "-p", "1", "-i", "{F}" }, .f = MW_MIN_INTERVAL_S * 0.9, .rc = -1,
	  .err = "--interval '{F}': seconds, from" },
	{ .argv = { "-p", "1", "-i", "{F}" }, .f = MW_MAX_INTERVAL_S + 0.001, .rc = -1,
	  .err = "--interval '{F}': seconds, from" },
	{ .argv = { "-p", "1", "-i", "0" }, .rc = -1, .err = "--interval '0'" },
	{ .argv = { "-p", "1", "-i", "-1" }, .rc = -1, .err = "--interval '-1'" },
	{ .argv = { "-p", "1", "-i", "abc" }, .rc = -1, .err = "--interval 'abc'" },
	{ .argv = { "-p", "1", "-i", "1e9" }, .rc = -1, .err = "--interval '1e9'" },
	{ .argv = { "-p", "1", "-i", "nan" }, .rc = -1, .err = "--interval 'nan'" },
	{ .argv = { "-p", "1", "-i", "0.0009" }, .rc = -1, .err = "--interval '0.0009'" },
	{ .argv = { "-p", "1", "--interval=" }, .rc = -1, .err = "--interval ''" },
	{ .argv = { "-p", "1", "-i" }, .rc = -1, .err = "option '-i' needs a value" },
	{ .argv = { "-p", "1", "-i", "0x1" }, .rc = -1, .err = "--interval '0x1'" },

	/* --max-overhead: a percent of one CPU in (0, 100]; none by default */
	{ .argv = { "-p", "1" }, .fields = { "max_overhead=0" } },
	{ .argv = { "-p", "1", "--max-overhead", "2" }, .fields = { "max_overhead=2" } },
	{ .argv = { "-p", "1", "--max-overhead=0.5" }, .fields = { "max_overhead=0.5" } },
	{ .argv = { "-p", "1", "--max-overhead", "{F}" }, .f = MW_MAX_OVERHEAD_PERCENT,
	  .fields = { "max_overhead={F}" } },
	{ .argv = { "-p", "1", "--max-overhead", "0" }, .rc = -1,
	  .err = "--max-overhead '0': a percent of one CPU, more than 0 and at most 100" },
	{ .argv = { "-p", "1", "--max-overhead", "100.5" }, .rc = -1, .err = "--max-overhead '100.5'" },
	{ .argv = { "-p", "1", "--max-overhead", "-1" }, .rc = -1, .err = "--max-overhead '-1'" },
	{ .argv = { "-p", "1", "--max-overhead", "5%" }, .rc = -1, .err = "--max-overhead '5%'" },
	{ .argv = { "-p", "1", "--max-overhead", "nan" }, .rc = -1, .err = "--max-overhead 'nan'" },
	{ .argv = { "-p", "1", "--max-overhead", "inf" }, .rc = -1, .err = "--max-overhead 'inf'" },
	{ .argv = { "-p", "1", "--max-overhead", "" }, .rc = -1, .err = "--max-overhead ''" },
	{ .argv = { "-p", "1", "--max-overhead", "0x2" }, .rc = -1, .err = "--max-overhead '0x2'" },
	{ .argv = { "-p", "1", "--max-overhead" }, .rc = -1, .err = "option '--max-overhead' needs a value" },

	/* --count */
	{ .argv = { "-p", "42", "--count", "7" }, .fields = { "count=7" } },
	{ .argv = { "-p", "42", "-n", "7" }, .fields = { "count=7" } },
	{ .argv = { "-p", "1", "--count=3" }, .fields = { "count=3" } },
	{ .argv = { "-p", "1", "-n", "{N}" }, .n = UINT64_MAX, .fields = { "count={N}" } },
	{ .argv = { "-p", "1", "-n", "0" }, .rc = -1, .err = "--count '0': a whole number" },
	{ .argv = { "-p", "1", "-n", "1.5" }, .rc = -1, .err = "--count '1.5'" },
	{ .argv = { "-p", "1", "-n", "-1" }, .rc = -1, .err = "--count '-1'" },
	{ .argv = { "-p", "1", "-n", "18446744073709551616" }, .rc = -1,
	  .err = "--count '18446744073709551616'" },

	/* --output */
	{ .argv = { "-p", "42", "--output", "/tmp/feed.csv" }, .fields = { "output=/tmp/feed.csv" } },
	{ .argv = { "-p", "42", "-o", "/tmp/feed.csv" }, .fields = { "output=/tmp/feed.csv" } },
	{ .argv = { "-p", "1", "-o", "" }, .rc = -1, .err = "--output needs a path" },

	/* --format */
	{ .argv = { "-p", "1", "--format", "csv" }, .fields = { "format=csv" } },
	{ .argv = { "-p", "1", "-f", "openmetrics" }, .fields = { "format=openmetrics" } },
	{ .argv = { "-p", "1", "--format=table" }, .fields = { "format=table" } },
	{ .argv = { "-p", "1", "-f", "json" }, .rc = -1,
	  .err = "--format 'json': use csv, openmetrics or table" },
	{ .argv = { "-p", "1", "-f", "CSV" }, .rc = -1, .err = "--format 'CSV'" },

	/* --listen */
	{ .argv = { "-p", "1", "--listen", "9100" }, .fields = { "listen=9100" } },
	{ .argv = { "-p", "1", "-l", "0.0.0.0:9100" }, .fields = { "listen=0.0.0.0:9100" } },
	{ .argv = { "-p", "1", "-l", "[::1]:65535" }, .fields = { "listen=[::1]:65535" } },
	{ .argv = { "-p", "1", "-l", "0" }, .rc = -1,
	  .err = "--listen '0': the port is a number from 1 to 65535" },
	{ .argv = { "-p", "1", "-l", "65536" }, .rc = -1, .err = "--listen '65536': the port" },
	{ .argv = { "-p", "1", "-l", ":9100" }, .rc = -1, .err = "--listen ':9100': bad address" },
	/* found by fuzzing: the host reached a format string; it is data */
	{ .argv = { "-p", "1", "-l", "%s%s%s%s%s%s%s%s%n:9100" }, .rc = -1,
	  .err = "--listen '%s%s%s%s%s%s%s%s%n:9100': address %s%s%s%s%s%s%s%s%n: " },

	/* --web-config (its contents: test_webconfig.c; read by main, not here) */
	{ .argv = { "-p", "1", "-l", "9100", "--web-config", "web.yml" },
	  .fields = { "web_config=web.yml" } },
	{ .argv = { "-p", "1", "--web-config=w.yml", "-l", "0.0.0.0:9100" },
	  .fields = { "listen=0.0.0.0:9100", "web_config=w.yml" } },
	{ .argv = { "-p", "1", "--web-config", "web.yml" }, .rc = -1,
	  .err = "--web-config protects the HTTP endpoint: give --listen [ADDR:]PORT too" },
	{ .argv = { "-p", "1", "-l", "9100", "--web-config", "" }, .rc = -1,
	  .err = "--web-config needs a file" },
	/* --history: rows the page keeps per process, with --listen only */
	{ .argv = { "-p", "1", "-l", "9100" }, .n = MW_DEFAULT_HISTORY, .fields = { "history={N}" } },
	{ .argv = { "-p", "1", "-l", "9100", "--history", "1" }, .fields = { "history=1" } },
	{ .argv = { "-p", "1", "--history={N}", "-l", "9100" }, .n = MW_MAX_HISTORY,
	  .fields = { "history={N}" } },
	{ .argv = { "-p", "1", "-l", "9100", "--history", "0" }, .rc = -1,
	  .err = "--history '0': from 1 to {N} rows per process", .n = MW_MAX_HISTORY },
	{ .argv = { "-p", "1", "-l", "9100", "--history", "{N}" }, .n = MW_MAX_HISTORY + 1, .rc = -1,
	  .err = "--history '{N}'" },
	{ .argv = { "-p", "1", "-l", "9100", "--history", "1h" }, .rc = -1, .err = "--history '1h'" },
	{ .argv = { "-p", "1", "--history", "60" }, .rc = -1,
	  .err = "--history keeps rows for the page that --listen serves: give --listen too" },

	/* --config (its contents: test_config.c) */
	{ .argv = { "-p", "1", "-c", "/dev/null" }, .fields = { "nstructs=0" } },
	{ .argv = { "-p", "1", "--config=/dev/null", "--struct", "A", "--insert", "f" },
	  .fields = { "nstructs=1 structs=A" } },
	{ .argv = { "-p", "1", "-c", "/nonexistent/memwatch.conf" }, .rc = -1,
	  .err = "cannot open config file /nonexistent/memwatch.conf" },

	/* --max-live-blocks */
	{ .argv = { "-p", "1", "--max-live-blocks", "4096" }, .fields = { "max_live_blocks=4096" } },
	{ .argv = { "-p", "1", "--max-live-blocks=1" }, .fields = { "max_live_blocks=1" } },
	{ .argv = { "-p", "1", "--max-live-blocks", "{N}" }, .n = MW_MAX_LIVE_BLOCKS,
	  .fields = { "max_live_blocks={N}" } },
	{ .argv = { "-p", "1", "--max-live-blocks", "0" }, .m = MW_MAX_LIVE_BLOCKS, .rc = -1,
	  .err = "--max-live-blocks '0': from 1 to {M}" },
	{ .argv = { "-p", "1", "--max-live-blocks", "{N}" }, .n = MW_MAX_LIVE_BLOCKS + 1ull,
	  .m = MW_MAX_LIVE_BLOCKS, .rc = -1, .err = "--max-live-blocks '{N}': from 1 to {M}" },

	/* --allocator */
	{ .argv = { "-p", "1", "--allocator", "auto" }, .fields = { "allocator=auto" } },
	{ .argv = { "-p", "1", "--allocator", "glibc" }, .fields = { "allocator=glibc" } },
	{ .argv = { "-p", "1", "--allocator", "jemalloc" }, .fields = { "allocator=jemalloc" } },
	{ .argv = { "-p", "1", "--allocator", "tcmalloc" }, .fields = { "allocator=tcmalloc" } },
	{ .argv = { "-p", "1", "--allocator", "mimalloc" }, .fields = { "allocator=mimalloc" } },
	{ .argv = { "-p", "1", "--allocator=/opt/lib/libmy.so" }, .fields = { "allocator=/opt/lib/libmy.so" } },
	{ .argv = { "-p", "1", "--allocator", "tcmallocx" }, .rc = -1,
	  .err = "--allocator 'tcmallocx': use auto, glibc, jemalloc, tcmalloc, mimalloc or an absolute path" },
	{ .argv = { "-p", "1", "--allocator", "lib/libmy.so" }, .rc = -1, .err = "--allocator 'lib/libmy.so'" },
	{ .argv = { "-p", "1", "--allocator", "" }, .rc = -1, .err = "--allocator ''" },

	/* allocation sites: --top, --leak-intervals, --folded, --stacks */
	{ .argv = { "-p", "1", "--top", "1" }, .fields = { "top=1 top_given=1" } },
	{ .argv = { "-p", "1", "--top={N}" }, .n = MW_MAX_TOP, .fields = { "top={N} top_given=1" } },
	{ .argv = { "-p", "1", "--top", "0" }, .m = MW_MAX_TOP, .rc = -1,
	  .err = "--top '0': from 1 to {M} sites (see memwatch --help)" },
	{ .argv = { "-p", "1", "--top", "{N}" }, .n = MW_MAX_TOP + 1, .m = MW_MAX_TOP, .rc = -1,
	  .err = "--top '{N}': from 1 to {M} sites" },
	{ .argv = { "-p", "1", "--leak-intervals", "1" }, .fields = { "leak_intervals=1" } },
	{ .argv = { "-p", "1", "--leak-intervals", "{N}" }, .n = MW_MAX_LEAK_INTERVALS,
	  .fields = { "leak_intervals={N}" } },
	{ .argv = { "-p", "1", "--leak-intervals", "0" }, .m = MW_MAX_LEAK_INTERVALS, .rc = -1,
	  .err = "--leak-intervals '0': from 1 to {M}" },
	{ .argv = { "-p", "1", "--leak-intervals", "{N}" }, .n = MW_MAX_LEAK_INTERVALS + 1,
	  .m = MW_MAX_LEAK_INTERVALS, .rc = -1, .err = "--leak-intervals '{N}': from 1 to {M}" },
	{ .argv = { "-p", "1", "--folded", "/tmp/sites.folded" }, .fields = { "folded=/tmp/sites.folded" } },
	{ .argv = { "-p", "1", "--folded", "" }, .rc = -1, .err = "--folded needs a path" },
	{ .argv = { "-p", "1", "--stacks" }, .fields = { "stacks=1" } },
	{ .argv = { "-p", "1", "--stacks=1" }, .rc = -1, .err = "'--stacks=1'" },

	/* the other switches */
	{ .argv = { "-p", "1", "--no-heap" }, .fields = { "no_heap=1" } },
	{ .argv = { "-p", "1", "--probe-entry" }, .fields = { "probe_entry=1" } },
	{ .argv = { "-p", "1", "--floor" }, .fields = { "floor=1" } },
	{ .argv = { "-p", "1", "--no-heap=yes" }, .rc = -1, .err = "'--no-heap=yes'" },
	{ .argv = { "--pid", "42", "--interval", "0.25", "--count", "7", "--output", "/tmp/feed.csv",
		    "--max-live-blocks", "4096", "--no-heap" },
	  .fields = { "pids=42 interval=0.25 count=7 output=/tmp/feed.csv",
		      "max_live_blocks=4096 no_heap=1" } },

	/* structures */
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "ret", "--remove", "g",
		    "--delta", "arg3", "--size", "48", "--struct", "B", "--insert", "h" },
	  .fields = { "nstructs=2 structs=A:48,B nfuncs=3 "
		      "funcs=insert:f@A:ret,remove:g@A:arg3,insert:h@B:one" } },
	{ .argv = { "-p", "1", "--struct", "Q", "--remove", "pop" },
	  .fields = { "nfuncs=1 funcs=remove:pop@Q:one" } },
	{ .argv = { "-p", "1", "--struct", "S", "--insert", "ns::*::insert*" },
	  .fields = { "funcs=insert:ns::*::insert*@S:one" } },
	{ .argv = { "-p", "1", "--struct", "_q9", "--insert", "a", "--struct", "{S}", "--insert", "b" },
	  .n = MW_STRUCT_NAME_MAX - 1, .fields = { "structs=_q9,{S}" } },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "1" }, .fields = { "structs=A:1" } },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "{N}" },
	  .n = MW_MAX_ELEMENT_SIZE, .fields = { "structs=A:{N}" } },
	{ .argv = { "-p", "1" }, .times = MW_MAX_STRUCTS, .repeat = { "--struct", "s{i}", "--insert", "f" },
	  .n = MW_MAX_STRUCTS, .fields = { "nstructs={N}", "last_struct=s{N}" } },
	{ .argv = { "-p", "1", "--struct", "A" }, .times = MW_MAX_FUNCS, .repeat = { "--remove", "f{i}" },
	  .n = MW_MAX_FUNCS, .fields = { "nfuncs={N}", "last_func=remove:f{N}@A:one" } },

	/* --delta, every rule */
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "one" }, .fields = { "funcs=remove:r@S:one" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "ret" }, .fields = { "funcs=remove:r@S:ret" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg1" }, .fields = { "funcs=remove:r@S:arg1" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg2" }, .fields = { "funcs=remove:r@S:arg2" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg3" }, .fields = { "funcs=remove:r@S:arg3" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg4" }, .fields = { "funcs=remove:r@S:arg4" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg5" }, .fields = { "funcs=remove:r@S:arg5" } },
	{ .argv = { "-p", "1", "--struct", "S", "--remove", "r", "--delta", "arg6" }, .fields = { "funcs=remove:r@S:arg6" } },

	/* structure errors */
	{ .argv = { "-p", "1", "--insert", "f" }, .rc = -1, .err = "--insert needs a --struct NAME before it" },
	{ .argv = { "-p", "1", "--remove", "f" }, .rc = -1, .err = "--remove needs a --struct NAME before it" },
	{ .argv = { "-p", "1", "--size", "8" }, .rc = -1, .err = "--size needs a --struct NAME before it" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "" }, .rc = -1, .err = "--insert needs a symbol name" },
	{ .argv = { "-p", "1", "--struct", "A", "--remove", "" }, .rc = -1, .err = "--remove needs a symbol name" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert" }, .rc = -1, .err = "option '--insert' needs a value" },
	{ .argv = { "-p", "1", "--delta", "ret" }, .rc = -1,
	  .err = "--delta 'ret' must follow an --insert or --remove" },
	{ .argv = { "-p", "1", "--struct", "A", "--delta", "ret", "--insert", "f" }, .rc = -1,
	  .err = "--delta 'ret' must follow" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "8", "--delta", "ret" },
	  .rc = -1, .err = "--delta 'ret' must follow" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "ret", "--delta", "one" },
	  .rc = -1, .err = "--delta 'one' must follow" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "arg7" }, .rc = -1,
	  .err = "--delta 'arg7': use one, ret or arg1..arg6" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "arg0" }, .rc = -1, .err = "--delta 'arg0'" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "arg10" }, .rc = -1, .err = "--delta 'arg10'" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "bogus" }, .rc = -1, .err = "--delta 'bogus'" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--delta", "" }, .rc = -1, .err = "--delta ''" },
	{ .argv = { "-p", "1", "--struct", "1abc", "--insert", "f" }, .rc = -1, .err = "--struct '1abc'" },
	{ .argv = { "-p", "1", "--struct", "a-b", "--insert", "f" }, .rc = -1, .err = "--struct 'a-b'" },
	{ .argv = { "-p", "1", "--struct", "", "--insert", "f" }, .rc = -1, .err = "--struct ''" },
	{ .argv = { "-p", "1", "--struct", "{S}", "--insert", "f" }, .n = MW_STRUCT_NAME_MAX,
	  .m = MW_STRUCT_NAME_MAX - 1, .rc = -1,
	  .err = "--struct '{S}': a name is [A-Za-z_][A-Za-z0-9_]*, at most {M} characters" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--struct", "A", "--insert", "g" },
	  .rc = -1, .err = "--struct 'A' is given twice" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--struct", "B" }, .rc = -1,
	  .err = "--struct B has no --insert, --remove or --read" },
	/* --read: after a --struct, once, a well-formed EXPR; alone is enough */
	{ .argv = { "-p", "1", "--read", "x" }, .rc = -1, .err = "--read 'x' needs a --struct NAME before it" },
	{ .argv = { "-p", "1", "--struct", "A", "--read", "x", "--read", "y" }, .rc = -1,
	  .err = "--struct A has two --read" },
	{ .argv = { "-p", "1", "--struct", "A", "--read", "x..y" }, .rc = -1,
	  .err = "--read 'x..y': a field's name expected at character 3" },
	{ .argv = { "-p", "1", "--struct", "A", "--read", "srv.tab->shard[2].count" },
	  .fields = { "nstructs=1 structs=A<srv.tab->shard[2].count>" } },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "0" }, .rc = -1,
	  .err = "--size '0': bytes per element" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "{N}" },
	  .n = MW_MAX_ELEMENT_SIZE + 1, .rc = -1, .err = "--size '{N}'" },
	{ .argv = { "-p", "1", "--struct", "A", "--insert", "f", "--size", "8B" }, .rc = -1, .err = "--size '8B'" },
	{ .argv = { "-p", "1" }, .times = MW_MAX_STRUCTS + 1,
	  .repeat = { "--struct", "s{i}", "--insert", "f" }, .n = MW_MAX_STRUCTS, .rc = -1,
	  .err = "too many --struct (at most {N})" },
	{ .argv = { "-p", "1", "--struct", "A" }, .times = MW_MAX_FUNCS + 1, .repeat = { "--insert", "f{i}" },
	  .n = MW_MAX_FUNCS, .rc = -1, .err = "too many --insert/--remove (at most {N})" },

	/* unknown options and stray words */
	{ .argv = { "-p", "1", "--frobnicate" }, .rc = -1, .err = "unknown option '--frobnicate'" },
	{ .argv = { "-p", "1", "-x" }, .rc = -1, .err = "unknown option '-x'" },
	{ .argv = { "-p", "1", "-xV" }, .rc = -1, .err = "unknown option '-x'" },
	{ .argv = { "-xp", "1" }, .rc = -1, .err = "unknown option '-x'" },
	{ .argv = { "-p", "1", "extra" }, .rc = -1, .err = "unexpected argument 'extra'" },
	{ .argv = { "-p", "1", "extra", "-i", "2" }, .rc = -1, .err = "unexpected argument 'extra'" },

	/* --help and --version: printed, exit 0, even without --pid */
	{ .argv = { "-h" }, .rc = 1, .out = "Usage: memwatch -p PID [options]\n" },
	{ .argv = { "--help" }, .rc = 1, .out = "Usage: memwatch -p PID [options]\n" },
	{ .argv = { "-p", "1", "-i", "2", "--help" }, .rc = 1, .out = "Usage: memwatch -p PID" },
	{ .argv = { "-V" }, .rc = 1, .out = "memwatch " MEMWATCH_VERSION "\n" },
	{ .argv = { "--version" }, .rc = 1, .out = "memwatch " MEMWATCH_VERSION "\n" },
};

/* ------------------------------------------------------------ helpers */

/* @tmpl with the {…} of struct cli_case replaced, for copy @i; malloc'd. */
static char *expand(const char *tmpl, const struct cli_case *c, int i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f, "open_memstream works");
	for (const char *p = tmpl; *p; p++) {
		if (!strncmp(p, "{N}", 3))
			fprintf(f, "%" PRIu64, c->n);
		else if (!strncmp(p, "{M}", 3))
			fprintf(f, "%" PRIu64, c->m);
		else if (!strncmp(p, "{F}", 3))
			fprintf(f, "%.17g", c->f);
		else if (!strncmp(p, "{S}", 3))
			for (uint64_t k = 0; k < c->n; k++)
				fputc('n', f);
		else if (!strncmp(p, "{i}", 3))
			fprintf(f, "%d", i);
		else {
			fputc(*p, f);
			continue;
		}
		p += 2;
	}
	fclose(f);
	return buf;
}

struct command {
	int argc;
	char **argv;
	char *line;	/* for messages, shortened */
};

static void command__build(struct command *cmd, const struct cli_case *c)
{
	size_t nargv = 0, nrep = 0, len = 0;
	FILE *f;

	while (c->argv[nargv])
		nargv++;
	while (nrep < 4 && c->repeat[nrep])
		nrep++;
	cmd->argv = calloc(2 + nargv + (size_t)c->times * nrep, sizeof(char *));
	cr_assert_not_null(cmd->argv, "argv is allocated");
	cmd->argc = 0;
	cmd->argv[cmd->argc++] = strdup("memwatch");
	for (size_t w = 0; w < nargv; w++)
		cmd->argv[cmd->argc++] = expand(c->argv[w], c, 0);
	for (int i = 1; i <= c->times; i++)
		for (size_t w = 0; w < nrep; w++)
			cmd->argv[cmd->argc++] = expand(c->repeat[w], c, i);
	f = open_memstream(&cmd->line, &len);
	cr_assert_not_null(f, "open_memstream works");
	for (int w = 0; w < cmd->argc && ftell(f) < 160; w++)
		fprintf(f, "%s'%s'", w ? " " : "", cmd->argv[w]);
	if (ftell(f) >= 160)
		fputs(" ...", f);
	fclose(f);
}

static void command__free(struct command *cmd)
{
	for (int w = 0; w < cmd->argc; w++)
		free(cmd->argv[w]);
	free(cmd->argv);
	free(cmd->line);
}

static const char *delta_name(uint32_t d, char *buf, size_t len)
{
	if (d == MW_DELTA_ONE)
		return "one";
	if (d == MW_DELTA_RET)
		return "ret";
	if (d >= MW_DELTA_ARG1 && d < MW_DELTA_ARG1 + 6)
		snprintf(buf, len, "arg%u", d - MW_DELTA_ARG1 + 1);
	else
		snprintf(buf, len, "?%u", d);
	return buf;
}

static void describe_func(FILE *f, const struct mw_options *o, int i)
{
	const struct mw_func_spec *fn = &o->funcs[i];
	char buf[24];

	fprintf(f, "%s:%s@%s:%s", fn->remove ? "remove" : "insert", fn->symbol,
		fn->struct_id >= 0 && fn->struct_id < o->nstructs ? o->structs[fn->struct_id].name : "?",
		delta_name(fn->delta, buf, sizeof(buf)));
}

/* Every option @o holds, " name=value" each, in one fixed order, and a
 * space at the end; malloc'd. */
static char *describe(const struct mw_options *o)
{
	static const char *const formats[] = { "csv", "openmetrics", "table" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f, "open_memstream works");
	fprintf(f, " npids=%d pids=", o->npids);
	for (int i = 0; i < o->npids; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)o->pids[i]);
	fprintf(f, " interval=%.17g count=%" PRIu64 " output=%s format=%s listen=%s folded=%s",
		o->interval_s, o->count, o->output ? o->output : "(null)",
		o->format <= MW_FORMAT_TABLE ? formats[o->format] : "?",
		o->listen ? o->listen : "(null)", o->folded ? o->folded : "(null)");
	fprintf(f, " top=%d top_given=%d leak_intervals=%d stacks=%d max_live_blocks=%u",
		o->top, o->top_given, o->leak_intervals, o->stacks, o->max_live_blocks);
	fprintf(f, " no_heap=%d probe_entry=%d floor=%d allocator=%s nstructs=%d structs=",
		o->no_heap, o->probe_entry, o->floor, o->allocator, o->nstructs);
	for (int i = 0; i < o->nstructs; i++) {
		fprintf(f, "%s%s", i ? "," : "", o->structs[i].name);
		if (o->structs[i].size)
			fprintf(f, ":%" PRIu64, o->structs[i].size);
		if (o->structs[i].read)
			fprintf(f, "<%s>", o->structs[i].read);
	}
	fprintf(f, " nfuncs=%d funcs=", o->nfuncs);
	for (int i = 0; i < o->nfuncs; i++) {
		fputs(i ? "," : "", f);
		describe_func(f, o, i);
	}
	fputs(" command=", f);
	for (int i = 0; o->command && o->command[i]; i++)
		fprintf(f, "%s%s", i ? "," : "", o->command[i]);
	if (!o->command)
		fputs("(null)", f);
	fprintf(f, " user=%s max_targets=%u nexes=%d ncomms=%d ncgroups=%d", o->user ? o->user : "(null)",
		o->max_targets, o->nexes, o->ncomms, o->ncgroups);
	fprintf(f, " max_overhead=%.17g", o->max_overhead);
	fprintf(f, " web_config=%s", o->web_config ? o->web_config : "(null)");
	fprintf(f, " history=%u", o->history);
	if (o->npids)
		fprintf(f, " last_pid=%d", (int)o->pids[o->npids - 1]);
	if (o->nstructs)
		fprintf(f, " last_struct=%s", o->structs[o->nstructs - 1].name);
	if (o->nfuncs) {
		fputs(" last_func=", f);
		describe_func(f, o, o->nfuncs - 1);
	}
	fputc(' ', f);
	fclose(f);
	return buf;
}

/* The parsed options hold every run of fields the case names. */
static void expect_fields(const struct cli_case *c, const struct command *cmd,
			  const struct mw_options *o)
{
	char *got = describe(o);

	for (int i = 0; i < 4 && c->fields[i]; i++) {
		char *want = expand(c->fields[i], c, 0);
		char *spaced = NULL;

		cr_assert(asprintf(&spaced, " %s ", want) > 0, "asprintf works");
		cr_assert_not_null(strstr(got, spaced), "%s: parses to '%s', got '%s'",
				   cmd->line, want, got);
		free(spaced);
		free(want);
	}
	free(got);
}

/* One line on stderr, "memwatch: " and then a message holding c->err. */
static void expect_usage_error(const struct cli_case *c, const struct command *cmd,
			       const char *err)
{
	char *want = expand(c->err, c, 0);
	size_t len = strlen(err);

	cr_assert(len > 0 && err[len - 1] == '\n' && strchr(err, '\n') == err + len - 1,
		  "%s: one line on stderr, got '%s'", cmd->line, err);
	cr_assert(!strncmp(err, "memwatch: ", 10), "%s: the message starts 'memwatch: ', got '%s'",
		  cmd->line, err);
	cr_assert_not_null(strstr(err, want), "%s: the message says '%s', got '%s'",
			   cmd->line, want, err);
	free(want);
}

/* ------------------------------------------------------------ the table */

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* The parameters are indices: Criterion copies them into a new process
 * image, where the cases' pointers would no longer hold. */
ParameterizedTestParameters(cli, parse__table_case__as_expected)
{
	static size_t ids[NCASES];

	for (size_t i = 0; i < NCASES; i++)
		ids[i] = i;
	return cr_make_param_array(size_t, ids, NCASES);
}

ParameterizedTest(size_t *id, cli, parse__table_case__as_expected)
{
	const struct cli_case *c = &cases[*id];
	struct capture cap_out, cap_err;
	struct command cmd;
	struct mw_options o;
	const char *expects;
	char *out, *err;
	int rc;

	expects = c->rc == 0 ? c->fields[0] : c->rc == 1 ? c->out : c->err;
	cr_assert_not_null(expects, "case %zu says what it expects", *id);
	command__build(&cmd, c);
	capture__start(&cap_out, stdout);
	capture__start(&cap_err, stderr);
	rc = cli__parse(cmd.argc, cmd.argv, &o);
	err = capture__end(&cap_err);
	out = capture__end(&cap_out);

	cr_assert_eq(rc, c->rc, "%s: cli__parse returns %d, got %d (stderr '%s')",
		     cmd.line, c->rc, rc, err);
	if (rc == 0)
		expect_fields(c, &cmd, &o);
	if (rc == -1)
		expect_usage_error(c, &cmd, err);
	else
		cr_assert_str_empty(err, "%s: nothing on stderr, got '%s'", cmd.line, err);
	if (rc == 1)
		cr_assert(!strncmp(out, c->out, strlen(c->out)), "%s: stdout starts '%s', got '%s'",
			  cmd.line, c->out, out);
	else
		cr_assert_str_empty(out, "%s: nothing on stdout, got '%s'", cmd.line, out);
	free(out);
	free(err);
	cli__free(&o);
	command__free(&cmd);
}

/* ------------------------------------------------------------ two parses */

Test(cli, parse__called_twice__second_call_starts_fresh)
{
	char *first[] = { "memwatch", "-p", "5", "-n", "4", "--no-heap", "--struct", "A",
			  "--insert", "f", NULL };
	char *second[] = { "memwatch", "-p", "6", NULL };
	struct mw_options o;

	cr_assert_eq(cli__parse(10, first, &o), 0, "the first command line parses");
	cli__free(&o);
	cr_assert_eq(cli__parse(3, second, &o), 0, "the second command line parses");
	cr_assert_eq(o.npids, 1, "the second parse has only its own pid");
	cr_assert_eq(o.pids[0], 6, "the second parse reads its own argv from the start");
	cr_assert_eq(o.count, 0, "the count is back to its default");
	cr_assert_eq(o.no_heap, false, "--no-heap does not leak into the next parse");
	cr_assert_eq(o.nstructs, 0, "structures do not leak into the next parse");
	cr_assert_eq(o.nfuncs, 0, "functions do not leak into the next parse");
	cli__free(&o);
}

/* ------------------------------------------------------------ number parsers */

Test(cli, parse_u64__whole_numbers_in_range__accepted)
{
	static const struct {
		const char *s;
		uint64_t min, max, want;
	} ok[] = {
		{ "0", 0, 10, 0 },			/* the minimum */
		{ "10", 0, 10, 10 },			/* the maximum */
		{ "5", 5, 5, 5 },			/* min == max == value */
		{ "18446744073709551615", 0, UINT64_MAX, UINT64_MAX },
		{ "0042", 0, 100, 42 },			/* decimal, not octal */
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 99;

		cr_assert_eq(cli__parse_u64(ok[i].s, ok[i].min, ok[i].max, &v), 0,
			     "'%s' in [%" PRIu64 ", %" PRIu64 "] is accepted", ok[i].s, ok[i].min, ok[i].max);
		cr_assert_eq(v, ok[i].want, "'%s' is %" PRIu64 ", got %" PRIu64, ok[i].s, ok[i].want, v);
	}
}

Test(cli, parse_u64__bad_or_out_of_range__rejected_output_untouched)
{
	static const struct {
		const char *s;
		uint64_t min, max;
	} bad[] = {
		{ "", 0, UINT64_MAX }, { " 1", 0, UINT64_MAX }, { "1 ", 0, UINT64_MAX },
		{ "+1", 0, UINT64_MAX }, { "-1", 0, UINT64_MAX }, { "-0", 0, UINT64_MAX },
		{ "1a", 0, UINT64_MAX }, { "0x10", 0, UINT64_MAX }, { "1e3", 0, UINT64_MAX },
		{ "1.0", 0, UINT64_MAX }, { "18446744073709551616", 0, UINT64_MAX },
		{ "99999999999999999999999", 0, UINT64_MAX },
		{ "11", 0, 10 },			/* above the maximum */
		{ "4", 5, 10 },				/* below the minimum */
		{ NULL, 0, 10 },
	};
	uint64_t v = 77;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(cli__parse_u64(bad[i].s, bad[i].min, bad[i].max, &v), -1,
			     "'%s' in [%" PRIu64 ", %" PRIu64 "] is rejected",
			     bad[i].s ? bad[i].s : "(NULL)", bad[i].min, bad[i].max);
	cr_assert_eq(v, 77, "a rejected string leaves the output as it was");
}

Test(cli, parse_seconds__decimal_forms__accepted)
{
	static const struct {
		const char *s;
		double want;
	} ok[] = {
		{ "0.2", 0.2 }, { "1", 1.0 }, { ".5", 0.5 }, { "5.", 5.0 },
		{ "0.001", 0.001 }, { "86400", 86400.0 }, { "2.5e1", 25.0 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		double v = -1;

		cr_assert_eq(cli__parse_seconds(ok[i].s, &v), 0, "'%s' is accepted", ok[i].s);
		cr_assert_float_eq(v, ok[i].want, 1e-12, "'%s' is %g s, got %g",
				   ok[i].s, ok[i].want, v);
	}
}

Test(cli, parse_seconds__bad_or_out_of_range__rejected_output_untouched)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "-1", "0", "0.0", "0.0009", "86400.001", "1e9",
		"nan", "inf", "infinity", "abc", "1s", "1,5", "1e999", NULL,
	};
	double v = 7.0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(cli__parse_seconds(bad[i], &v), -1, "'%s' is rejected",
			     bad[i] ? bad[i] : "(NULL)");
	cr_assert_float_eq(v, 7.0, 1e-12, "a rejected string leaves the output as it was");
}
