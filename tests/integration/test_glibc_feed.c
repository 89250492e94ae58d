// SPDX-License-Identifier: GPL-2.0
/*
 * test_glibc_feed.c - glibc's own figures through memwatch's feeds: with
 * --no-heap (no probe at all), the glibc_* CSV columns equal what the
 * target's own mallinfo2() reports at that moment, with fragmentation and
 * with over 2 GiB mmapped; the OpenMetrics families carry them too.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"

static void expect_mallinfo(const char *header, const char *row, const char *info)
{
	static const char *const pairs[][2] = {
		{ "glibc_arena_bytes", "arena" }, { "glibc_in_use_bytes", "uordblks" },
		{ "glibc_free_bytes", "fordblks" }, { "glibc_mmapped_bytes", "hblkhd" },
		{ "glibc_free_chunks", "ordblks" }, { "glibc_fastbin_chunks", "smblks" },
		{ "glibc_fastbin_free_bytes", "fsmblks" }, { "glibc_mmapped_chunks", "hblks" },
		{ "glibc_releasable_bytes", "keepcost" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		cr_expect_eq(csv_int(header, row, pairs[i][0]), reply_int(info, pairs[i][1]),
			     "%s equals the target's mallinfo2 %s (%s)", pairs[i][0], pairs[i][1], info);
}

Test(glibc_feed, no_heap__columns_equal_mallinfo2, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("mallinfo_target"), NULL };
	char header[8192], row[8192], info[1024], pid[16], *line;
	struct proc target, mw;

	proc_spawn(&target, targv);
	cr_assert(proc_line(&target), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "--no-heap", "-i", "0.1", NULL };
	proc_spawn(&mw, argv);
	line = proc_line(&mw);
	cr_assert(line, "header; stderr: %s", proc_stderr(&mw));
	snprintf(header, sizeof(header), "%s", line);
	cr_assert_geq(csv_col(header, "glibc_arena_bytes"), 0, "glibc columns present: %s", header);
	const char *steps[] = { "one\n", "frag\n", "huge\n" };
	for (size_t i = 0; i < 3; i++) {
		proc_send(&target, steps[i]);
		line = proc_line(&target);
		cr_assert(line && !strncmp(line, "info", 4), "target reports mallinfo2 after %s", steps[i]);
		snprintf(info, sizeof(info), "%s", line);
		/* the second row from now was sampled after the step */
		proc_skip(&mw, NULL, 0);
		cr_assert(proc_lines(&mw, 2, row, sizeof(row)), "rows keep coming");
		expect_mallinfo(header, row, info);
		cr_expect_eq(csv_int(header, row, "glibc_consistent"), 1, "a quiescent heap reads consistent");
	}
	cr_expect_gt(csv_int(header, row, "glibc_mmapped_bytes"), 2LL << 30,
		     "over 2 GiB mmapped, in 64 bits");
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	proc_send(&target, "quit\n");
	proc_wait(&target);
}

Test(glibc_feed, openmetrics__glibc_families, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("mallinfo_target"), NULL };
	char pid[16], *line, info[1024];
	struct proc target, mw;
	long long arena = -1;
	int eofs = 0;

	proc_spawn(&target, targv);
	cr_assert(proc_line(&target), "target ready");
	proc_send(&target, "one\n");
	line = proc_line(&target);
	cr_assert(line, "info");
	snprintf(info, sizeof(info), "%s", line);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "--no-heap", "-i", "0.1", "-n", "2",
			       "-f", "openmetrics", NULL };
	proc_spawn(&mw, argv);
	while ((line = proc_line(&mw))) {
		eofs += !strcmp(line, "# EOF");
		sscanf(line, "memwatch_glibc_arena_bytes{pid=\"%*d\",comm=\"mallinfo_target\"} %lld",
		       &arena);
	}
	cr_expect_eq(eofs, 2, "two expositions");
	cr_expect_eq(arena, reply_int(info, "arena"), "memwatch_glibc_arena_bytes = mallinfo2 arena");
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	proc_send(&target, "quit\n");
	proc_wait(&target);
}
