// SPDX-License-Identifier: GPL-2.0
/*
 * test_oom.c - the size from which an allocation must fail: parsing the
 * target's RLIMIT_AS and the kernel's memory figures.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probes/oom.h"

static FILE *text(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

Test(oom, limits__unlimited_address_space)
{
	FILE *f = text("Limit                     Soft Limit           Hard Limit           Units     \n"
		       "Max stack size            8388608              unlimited            bytes     \n"
		       "Max address space         unlimited            unlimited            bytes     \n");

	cr_expect_eq(oom__parse_limits(f), UINT64_MAX, "unlimited: no bound");
	fclose(f);
}

Test(oom, limits__soft_address_space_limit)
{
	FILE *f = text("Max address space         4294967296           unlimited            bytes     \n");

	cr_expect_eq(oom__parse_limits(f), 4294967296ull, "the soft limit, in bytes");
	fclose(f);
}

Test(oom, meminfo__field_in_bytes)
{
	FILE *f = text("MemTotal:       24579164 kB\nMemFree:        20000000 kB\n"
		       "SwapTotal:             0 kB\nCommitLimit:    12289580 kB\n");

	cr_expect_eq(oom__parse_meminfo(f, "CommitLimit"), 12289580ull * 1024, "kB to bytes");
	rewind(f);
	cr_expect_eq(oom__parse_meminfo(f, "Mem"), 0, "a field name must match whole");
	rewind(f);
	cr_expect_eq(oom__parse_meminfo(f, "SwapTotal"), 0, "no swap");
	fclose(f);
}

Test(oom, never_fits__this_process_is_bounded)
{
	struct mw_fits fits;

	oom__never_fits(getpid(), &fits);
	cr_expect(fits.any > 0 && fits.any <= MW_ADDRESS_SPACE,
		  "never above the address space, never 0: %llu", (unsigned long long)fits.any);
	cr_expect(fits.reserved > 0 && fits.reserved <= fits.any,
		  "reserving mappings are bounded at least as tightly: %llu",
		  (unsigned long long)fits.reserved);
}
