// SPDX-License-Identifier: GPL-2.0
/*
 * test_allocators.c - every allocator family found without being told:
 * the allocation script linked against jemalloc, tcmalloc and mimalloc
 * (each with its own extras: mallocx/rallocx/xallocx/sdallocx/dallocx,
 * tc_new/tc_delete_sized, mi_zalloc/mi_reallocn/mi_expand/mi_free_size)
 * must give the target's own tally exactly, from four threads.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "session.h"

static void family_exact_with(const char *target, const char *family,
			      const char *const extra[])
{
	const char *targv[] = { target, "4", "20", NULL };
	struct session s;

	session_start_target(&s, targv, extra);
	cr_expect(strstr(proc_stderr(&s.mw), family),
		  "stderr names the allocator found (%s): [%s]", family, proc_stderr(&s.mw));
	for (int i = 0; i < 2; i++)
		session_expect_tally(&s, session_command(&s, i ? "free\n" : "run\n"));
	session_stop(&s);
}

/* Exact with probes placed past single-stepped instructions (the
 * default) and with every probe at the entry (--probe-entry). */
static void family_exact(const char *target, const char *family)
{
	const char *entry[] = { "--probe-entry", NULL };

	family_exact_with(target, family, NULL);
	family_exact_with(target, family, entry);
}

Test(allocators, jemalloc__found_and_exact, .timeout = MW_TIMEOUT)
{
	family_exact(TARGET("alloc_jemalloc"), "allocator jemalloc in ");
}

Test(allocators, tcmalloc__found_and_exact, .timeout = MW_TIMEOUT)
{
	family_exact(TARGET("alloc_tcmalloc"), "allocator tcmalloc in ");
}

Test(allocators, mimalloc__found_and_exact, .timeout = MW_TIMEOUT)
{
	family_exact(TARGET("alloc_mimalloc"), "allocator mimalloc in ");
}

Test(allocators, glibc__named_on_stderr, .timeout = MW_TIMEOUT)
{
	family_exact(TARGET("alloc_script"), "allocator glibc in ");
}

Test(allocators, override__unknown_family_or_absent_exits, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("alloc_script"), "1", "1", NULL };
	struct proc target, mw;
	char pid[16];

	proc_spawn(&target, targv);
	cr_assert(proc_line(&target), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--allocator", "hoard", NULL };
		proc_spawn(&mw, argv);
		cr_expect_eq(proc_wait(&mw), 2, "an unknown family is a usage error");
	}
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--allocator", "jemalloc", NULL };
		proc_spawn(&mw, argv);
		cr_expect_eq(proc_wait(&mw), 1, "a family the target does not map exits 1");
		cr_expect(strstr(proc_stderr(&mw), "maps no such allocator"), "and says so: [%s]",
			  proc_stderr(&mw));
	}
	proc_send(&target, "quit\n");
	proc_wait(&target);
}

/* C++ new and delete in every form: through libstdc++ (which calls
 * malloc: one count, not two) and jemalloc's own operators. */
static void cxx_exact(const char *target, const char *family)
{
	const char *targv[] = { target, "30", NULL };
	struct session s;

	session_start_target(&s, targv, NULL);
	cr_expect(strstr(proc_stderr(&s.mw), family), "allocator found: [%s]", proc_stderr(&s.mw));
	for (int i = 0; i < 2; i++)
		session_expect_tally(&s, session_command(&s, i ? "free\n" : "run\n"));
	session_stop(&s);
}

Test(allocators, cxx_new_delete_libstdcxx__exact, .timeout = MW_TIMEOUT)
{
	cxx_exact(TARGET("cxx_new"), "allocator glibc in ");
}

Test(allocators, cxx_new_delete_jemalloc__exact, .timeout = MW_TIMEOUT)
{
	cxx_exact(TARGET("cxx_jemalloc"), "allocator jemalloc in ");
}

/* A statically linked allocator under tikv-jemallocator's prefixed names,
 * beside glibc: both found, both exact. */
Test(allocators, static_prefixed_in_executable__found_and_exact, .timeout = MW_TIMEOUT)
{
	family_exact(TARGET("static_rjem"), "jemalloc _rjem_ in ");
}

/* A real server from Debian that links jemalloc: redis-server, observed
 * with a structure named by two of its own functions (dbAdd adds a key,
 * dbSyncDelete removes one; GETDEL calls it out of line, while DEL's call
 * is inlined into delGenericCommand, so the workload deletes by GETDEL).
 * The element count must equal what redis itself reports (DBSIZE). */
static long long redis(const char *port, const char *commands)
{
	char cmd[256], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "redis-cli -p %s > /dev/null", port);
	p = popen(cmd, "w");
	cr_assert(p, "redis-cli runs");
	fputs(commands, p);
	pclose(p);
	snprintf(cmd, sizeof(cmd), "redis-cli -p %s DBSIZE", port);
	p = popen(cmd, "r");
	cr_assert(p && fgets(out, sizeof(out), p), "DBSIZE answers");
	pclose(p);
	return atoll(out);
}

Test(allocators, redis_server_jemalloc__keys_equal_dbsize, .timeout = MW_TIMEOUT)
{
	char port[16], mwpid[16], header[4096], row[4096], *line;
	char work[1 << 16];
	struct proc server, mw;
	long long dbsize;
	size_t n = 0;

	snprintf(port, sizeof(port), "%d", free_port());
	const char *sargv[] = { "/usr/bin/redis-server", "--port", port, "--save", "",
				"--appendonly", "no", "--bind", "127.0.0.1", NULL };
	proc_spawn(&server, sargv);
	/* until it answers: it takes a moment to listen */
	snprintf(work, sizeof(work), "redis-cli -p %s PING 2>/dev/null | grep -q PONG", port);
	cr_assert(wait_until(system(work) == 0, "redis-server to answer PING on port %s", port),
		  "redis-server answers");
	cr_assert(redis(port, "") == 0, "redis-server answers, empty");
	snprintf(mwpid, sizeof(mwpid), "%d", (int)server.pid);
	const char *argv[] = { MEMWATCH, "-p", mwpid, "-i", "0.2", "--struct", "keys",
			       "--insert", "dbAdd", "--remove", "dbSyncDelete", NULL };
	proc_spawn(&mw, argv);
	line = proc_line(&mw);
	cr_assert(line, "memwatch attached to redis; stderr: %s", proc_stderr(&mw));
	snprintf(header, sizeof(header), "%s", line);
	cr_expect(strstr(proc_stderr(&mw), "allocator jemalloc in "),
		  "jemalloc found in redis: [%s]", proc_stderr(&mw));

	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(work + n, sizeof(work) - n, "SET key:%d value-%d\n", i, i);
	for (int i = 0; i < 300; i += 3)
		n += (size_t)snprintf(work + n, sizeof(work) - n, "GETDEL key:%d\n", i);
	for (int i = 250; i < 400; i++)		/* overwrites and new keys */
		n += (size_t)snprintf(work + n, sizeof(work) - n, "SET key:%d again\n", i);
	dbsize = redis(port, work);
	cr_assert_gt(dbsize, 0, "redis holds keys");
	/* the second row from now was sampled after the work */
	proc_skip(&mw, NULL, 0);
	cr_assert(proc_lines(&mw, 2, row, sizeof(row)), "rows keep coming: %s", proc_stderr(&mw));
	cr_expect_eq(csv_int(header, row, "keys_elements"), dbsize,
		     "keys_elements equals redis's own DBSIZE");
	cr_expect_gt(csv_int(header, row, "heap_live_bytes"), 0, "redis's heap is observed");
	cr_expect_gt(csv_int(header, row, "keys_bytes"), 0, "bytes charged to the keys");
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "memwatch ends with 0");
	proc_kill(&server, SIGTERM);
	proc_wait(&server);
}
