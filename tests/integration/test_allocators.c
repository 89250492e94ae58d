// SPDX-License-Identifier: GPL-2.0
/*
 * test_allocators.c - every allocator family found without being told:
 * the allocation script linked against jemalloc, tcmalloc and mimalloc
 * (each with its own extras: mallocx/rallocx/xallocx/sdallocx/dallocx,
 * tc_new/tc_delete_sized, mi_zalloc/mi_reallocn/mi_expand/mi_free_size)
 * must give the target's own tally exactly, from four threads.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "session.h"

static void family_exact(const char *target, const char *family)
{
	const char *targv[] = { target, "4", "20", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, targv, NULL);
	cr_expect(strstr(proc_stderr(&s.mw), family),
		  "stderr names the allocator found (%s): [%s]", family, proc_stderr(&s.mw));
	for (int i = 0; i < 2; i++) {
		reply = session_command(&s, i ? "free\n" : "run\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "heap_live_bytes"), reply_int(reply, "live_bytes"),
			     "%s: heap_live_bytes equals the target's tally (%s)", family, reply);
		cr_expect_eq(session_int(&s, "heap_live_allocations"),
			     reply_int(reply, "live_allocations"),
			     "%s: heap_live_allocations equals the tally (%s)", family, reply);
		cr_expect_eq(session_int(&s, "heap_failed_calls"), reply_int(reply, "failed"),
			     "%s: failed calls counted (%s)", family, reply);
		cr_expect_eq(session_int(&s, "heap_untracked_frees"), reply_int(reply, "untracked"),
			     "%s: each free counted once, wrappers included (%s)", family, reply);
		cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "%s: every call paired", family);
	}
	session_stop(&s);
}

Test(allocators, jemalloc__found_and_exact, .timeout = 120)
{
	family_exact(TARGET("alloc_jemalloc"), "allocator jemalloc in ");
}

Test(allocators, tcmalloc__found_and_exact, .timeout = 120)
{
	family_exact(TARGET("alloc_tcmalloc"), "allocator tcmalloc in ");
}

Test(allocators, mimalloc__found_and_exact, .timeout = 120)
{
	family_exact(TARGET("alloc_mimalloc"), "allocator mimalloc in ");
}

Test(allocators, glibc__named_on_stderr, .timeout = 60)
{
	family_exact(TARGET("alloc_script"), "allocator glibc in ");
}

Test(allocators, override__unknown_family_or_absent_exits, .timeout = 60)
{
	const char *targv[] = { TARGET("alloc_script"), "1", "1", NULL };
	struct proc target, mw;
	char pid[16];

	proc_spawn(&target, targv);
	cr_assert(proc_line(&target, 5000), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--allocator", "hoard", NULL };
		proc_spawn(&mw, argv);
		cr_expect_eq(proc_wait(&mw, 10000), 2, "an unknown family is a usage error");
	}
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--allocator", "jemalloc", NULL };
		proc_spawn(&mw, argv);
		cr_expect_eq(proc_wait(&mw, 10000), 1, "a family the target does not map exits 1");
		cr_expect(strstr(proc_stderr(&mw), "maps no such allocator"), "and says so: [%s]",
			  proc_stderr(&mw));
	}
	proc_send(&target, "quit\n");
	proc_wait(&target, 5000);
}

/* C++ new and delete in every form: through libstdc++ (which calls
 * malloc: one count, not two) and jemalloc's own operators. */
static void cxx_exact(const char *target, const char *family)
{
	const char *targv[] = { target, "30", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, targv, NULL);
	cr_expect(strstr(proc_stderr(&s.mw), family), "allocator found: [%s]", proc_stderr(&s.mw));
	for (int i = 0; i < 2; i++) {
		reply = session_command(&s, i ? "free\n" : "run\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "heap_live_bytes"), reply_int(reply, "live_bytes"),
			     "%s: new/delete live bytes equal the tally (%s)", target, reply);
		cr_expect_eq(session_int(&s, "heap_live_allocations"),
			     reply_int(reply, "live_allocations"),
			     "%s: each new counted once (%s)", target, reply);
		cr_expect_eq(session_int(&s, "heap_untracked_frees"), 0,
			     "%s: each delete counted once", target);
	}
	session_stop(&s);
}

Test(allocators, cxx_new_delete_libstdcxx__exact, .timeout = 120)
{
	cxx_exact(TARGET("cxx_new"), "allocator glibc in ");
}

Test(allocators, cxx_new_delete_jemalloc__exact, .timeout = 120)
{
	cxx_exact(TARGET("cxx_jemalloc"), "allocator jemalloc in ");
}

/* A statically linked allocator under tikv-jemallocator's prefixed names,
 * beside glibc: both found, both exact. */
Test(allocators, static_prefixed_in_executable__found_and_exact, .timeout = 120)
{
	family_exact(TARGET("static_rjem"), "jemalloc _rjem_ in ");
}
