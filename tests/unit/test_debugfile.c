// SPDX-License-Identifier: GPL-2.0
/* test_debugfile.c - where a build's debug file is looked for, in order. */
#include <criterion/criterion.h>
#include "symbols/debugfile.h"

Test(debugfile, host_first_then_the_target_root)
{
	char p[MW_DEBUG_CANDIDATES][PATH_MAX];

	cr_assert_eq(debugfile__candidates("/proc/42/root", "93ac61ec", p), 2, "two places");
	cr_expect_str_eq(p[0], "/usr/lib/debug/.build-id/93/ac61ec.debug",
			 "the host's first: not the target's to forge");
	cr_expect_str_eq(p[1], "/proc/42/root/usr/lib/debug/.build-id/93/ac61ec.debug",
			 "then the target's own");
}

Test(debugfile, no_root__the_host_only)
{
	char p[MW_DEBUG_CANDIDATES][PATH_MAX];

	cr_expect_eq(debugfile__candidates(NULL, "93ac61ec", p), 1, "no root: one place");
	cr_expect_eq(debugfile__candidates("", "93ac61ec", p), 1, "empty root: one place");
	cr_expect_eq(debugfile__candidates("/r", "9", p), 0, "a build-id too short names nothing");
}
