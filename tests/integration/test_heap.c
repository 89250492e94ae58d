// SPDX-License-Identifier: GPL-2.0
/*
 * test_heap.c - exact live-heap accounting against a real target: the
 * alloc_script target runs every glibc entry point and every exactness
 * rule from several threads and prints its own tally, which memwatch's
 * feed must equal exactly, before and after the target frees everything.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "memwatch.h"
#include "session.h"

static void script_exact(const char *threads, const char *rounds)
{
	struct session s;

	session_start(&s, threads, rounds, NULL);
	session_expect_tally(&s, session_command(&s, "run\n"));
	cr_expect_gt(session_int(&s, "heap_live_bytes"), 0, "the script left blocks live");
	session_expect_tally(&s, session_command(&s, "free\n"));
	cr_expect_eq(session_int(&s, "heap_live_bytes"), 0, "all freed: 0 bytes");
	cr_expect_eq(session_int(&s, "heap_live_allocations"), 0, "all freed: 0 blocks");
	session_stop(&s);
	cr_expect_eq(s.mw.status, 0, "SIGTERM ends memwatch with 0");
}

Test(heap, script_one_thread__equals_target_tally, .timeout = MW_TIMEOUT)
{
	script_exact("1", "30");
}

Test(heap, script_four_threads__equals_target_tally, .timeout = MW_TIMEOUT)
{
	script_exact("4", "30");
}

Test(heap, script_eight_threads_twice__equals_target_tally, .timeout = MW_TIMEOUT)
{
	struct session s;

	session_start(&s, "8", "15", NULL);
	for (int i = 0; i < 2; i++) {
		session_expect_tally(&s, session_command(&s, "run\n"));
		session_expect_tally(&s, session_command(&s, "free\n"));
	}
	session_stop(&s);
}

Test(heap, table_full__counted_and_warned, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--max-live-blocks", "50", NULL };
	struct session s;

	/* One thread: with two, one thread's last free of a block it had
	 * tracked can follow the other's last allocation, leaving 49. */
	session_start(&s, "1", "10", extra);
	session_command(&s, "run\n");
	session_settle(&s);
	/* room for 50 at least: 64 entries in the main part (1.25 x 50 up to
	 * a power of two) and 16 in the spill part, each key within 32 of
	 * where its search starts */
	cr_expect(session_int(&s, "heap_live_allocations") >= 50 &&
		  session_int(&s, "heap_live_allocations") <= 80,
		  "the table holds its 50 blocks, and no more than its 80 entries: %lld",
		  session_int(&s, "heap_live_allocations"));
	cr_expect_gt(session_int(&s, "lost_table_full"), 0,
		     "blocks that did not fit are counted");
	cr_expect(strstr(proc_stderr(&s.mw), "memwatch: ") &&
		  strstr(proc_stderr(&s.mw), "no longer exact"),
		  "stderr says once that figures stopped being exact: %s", proc_stderr(&s.mw));
	session_stop(&s);
}

/*
 * A freed block's entry is made never-used again where no search must go
 * past it: after 20,000 allocations at ever other addresses, all freed,
 * the live-block table (room for 1,000 blocks: 2,048 entries) holds next
 * to nothing, where freed entries kept as tombstones would fill it and
 * send every search to its 32nd entry. The figures stay exact.
 */
Test(heap, churn__freed_entries_cleared_not_kept, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--max-live-blocks", "1000", NULL };
	struct session s;
	long long used;

	session_start(&s, "1", "1", extra);
	session_expect_tally(&s, session_command(&s, "churn 20000\n"));
	cr_expect_eq(session_int(&s, "heap_alloc_calls"), 20000, "every allocation seen");
	used = newest_map_count("live", "k != 0");
	cr_expect(used >= 0 && used <= 32,
		  "at most 32 of 2,048 entries still used (freed or live): %lld", used);
	session_stop(&s);
}

/*
 * The table keeps blocks at neighbouring addresses in neighbouring
 * entries, the search of a 512-byte group of addresses starting in the
 * region its hash picks. A table of one region (--max-live-blocks 51: 64
 * entries and 16 in the spill part) and jemalloc's blocks of 8 bytes
 * placed by the target: 34 at the first offsets of one group, then 17 at
 * the first offsets of another whose search starts at most 2 entries
 * past the first's (the offset turned round by the group's hash:
 * MW_LIVE_HOME), whose first keys then find no room within 32 entries of
 * where their search starts and go to the spill part. Every block is counted, none lost to a full table, each free
 * finds its block (untracked 0), and the spills map shows its bit.
 */
Test(heap, packed_tiny_blocks__spilled_and_exact, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("alloc_jemalloc"), "1", "1", "pack", NULL };
	const char *extra[] = { "--max-live-blocks", "51", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, targv, extra);
	reply = session_command(&s, "dense pack\n");
	cr_assert(strstr(reply, "placed=1"),
		  "jemalloc handed back the blocks the target placed: %s", reply);
	session_expect_tally(&s, reply);
	cr_expect_eq(session_int(&s, "heap_live_allocations"), 51, "every packed block live");
	cr_expect_eq(newest_map_count("spills", "k != 0"), 1, "the region's bit is set");
	session_expect_tally(&s, session_command(&s, "dense 0\n"));
	cr_expect_eq(session_int(&s, "heap_untracked_frees"), 0, "each free found its block");
	session_stop(&s);
}

Test(heap, probes__only_in_the_target_pid, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { TARGET("alloc_script"), "1", "1", NULL };
	struct session s;
	struct proc other;
	uint64_t other_malloc;
	int before;

	proc_spawn(&other, argv);
	other_malloc = (uint64_t)reply_int(proc_line(&other), "malloc");
	before = peek_byte(other.pid, other_malloc);
	session_start(&s, "1", "1", NULL);
	cr_expect_eq(peek_byte(s.target.pid, s.malloc_addr), 0xcc,
		     "the target's malloc holds a breakpoint while attached");
	cr_expect_eq(peek_byte(other.pid, other_malloc), before,
		     "another process's malloc is untouched: it pays nothing");
	session_stop(&s);
	proc_send(&other, "quit\n");
	proc_wait(&other);
}

/* glibc's free starts with test %rdi,%rdi, which the kernel single-steps:
 * the probe goes on the je after it, unless --probe-entry. Figures are
 * exact either way (the script tests run both). */
Test(heap, free_probe__placed_past_test_unless_probe_entry, .timeout = MW_TIMEOUT)
{
	const char *entry[] = { "--probe-entry", NULL };
	struct session s;
	uint64_t free_addr;

	session_start(&s, "1", "1", NULL);
	free_addr = (uint64_t)reply_int(s.ready, "free");
	cr_expect_neq(peek_byte(s.target.pid, free_addr), 0xcc, "no breakpoint on free's test");
	cr_expect_eq(peek_byte(s.target.pid, free_addr + 3), 0xcc, "the breakpoint is on the je at +3");
	session_stop(&s);

	session_start(&s, "1", "1", entry);
	cr_expect_eq(peek_byte(s.target.pid, free_addr = (uint64_t)reply_int(s.ready, "free")), 0xcc,
		     "--probe-entry: the breakpoint is on free's first instruction");
	session_stop(&s);
}

Test(heap, script_four_threads_probe_entry__equals_target_tally, .timeout = MW_TIMEOUT)
{
	const char *entry[] = { "--probe-entry", NULL };
	struct session s;

	session_start(&s, "4", "20", entry);
	session_expect_tally(&s, session_command(&s, "run\n"));
	session_expect_tally(&s, session_command(&s, "free\n"));
	session_stop(&s);
}

/* The most of process @pid's threads whose ids share one index of
 * memwatch's calls array (thread id modulo MW_CALL_SLOTS). */
static int most_sharing_an_index(pid_t pid)
{
	long tids[64];
	char path[64];
	struct dirent *d;
	int n = 0, most = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < 64)
		if (d->d_name[0] != '.')
			tids[n++] = atol(d->d_name);
	closedir(dir);
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++)
			k += (tids[j] - tids[i]) % MW_CALL_SLOTS == 0;
		most = k > most ? k : most;
	}
	return most;
}

/*
 * Four threads that hold one index of the calls array: a call entered
 * while another thread's call holds it is recorded in the thread's task
 * storage, and its return must find it there, not the holder's call
 * (a one-process session's return finds its call by the note its entry
 * left under its stack pointer: that note says task storage).
 */
Test(heap, threads_sharing_a_calls_index__equals_target_tally, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("alloc_script"), "4", "30", "shared", NULL };
	struct session s;

	session_start_target(&s, targv, NULL);
	cr_assert_geq(most_sharing_an_index(s.target.pid), 4,
		      "the four workers' ids share one index of the calls array");
	for (int i = 0; i < 2; i++) {
		session_expect_tally(&s, session_command(&s, "run\n"));
		session_expect_tally(&s, session_command(&s, "free\n"));
	}
	session_stop(&s);
}
