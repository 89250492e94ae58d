// SPDX-License-Identifier: GPL-2.0
/*
 * test_calls.c - letting go of the calls array's indices held by threads
 * that are gone: those, and only those, closed and freed.
 */
#include <criterion/criterion.h>
#include "memwatch.h"
#include "sample/calls.h"

#define ID(tgid, tid)	((uint64_t)(tgid) << 32 | (tid))

/* threads 101 and 103 of process 100 are gone; 102 and 200's live on */
static bool gone(uint32_t tgid, uint32_t tid)
{
	return tgid == 100 && (tid == 101 || tid == 103);
}

Test(calls, let_go__only_the_records_of_threads_gone)
{
	struct mw_call_slot v[6] = {
		[0] = { .owner = ID(100, 101), .call = { .sp = 0x7ff0, .size = 64 } },
		[1] = { .owner = ID(100, 102), .call = { .sp = 0x7fe0 } },
		[2] = { .owner = 0 },
		[3] = { .owner = ID(100, 103), .fallbacks = 2, .call = { .sp = 0x7fd0 } },
		[4] = { .owner = ID(200, 101), .call = { .sp = 0x7fc0 } },
	};

	cr_assert_eq(calls__let_go(v, 6, gone), 2);
	cr_expect_eq(v[0].owner, 0);
	cr_expect_eq(v[0].call.sp, 0, "its call closed with it");
	cr_expect_eq(v[1].owner, ID(100, 102), "a live thread's call stays");
	cr_expect_eq(v[1].call.sp, 0x7fe0);
	cr_expect_eq(v[3].owner, 0);
	cr_expect_eq(v[3].fallbacks, 2, "other threads' calls in task storage still counted");
	cr_expect_eq(v[4].owner, ID(200, 101), "the same thread id in another process");
	cr_expect_eq(v[4].call.sp, 0x7fc0);
	cr_expect_eq(calls__let_go(v, 6, gone), 0, "nothing left to let go");
}
