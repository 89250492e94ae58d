// SPDX-License-Identifier: GPL-2.0
/*
 * test_live.c - the live-block table's size: a main part the power of
 * two at or above 1.25 x the blocks it must have room for, two at least,
 * and a spill part a quarter of it, two at least.
 */
#include <criterion/criterion.h>
#include "sample/live.h"

Test(live, entries__power_of_two_with_a_quarter_spare)
{
	cr_expect_eq(live__entries(1), 2, "two at least: a hash shift below 64");
	cr_expect_eq(live__entries(50), 64);
	cr_expect_eq(live__entries(52), 128, "65 wanted");
	cr_expect_eq(live__entries(1u << 20), 1u << 21, "the default: 1,310,720 wanted");
	cr_expect_eq(live__entries(1u << 28), 1ull << 29, "the largest --max-live-blocks");
}

Test(live, spill_entries__a_quarter_two_at_least)
{
	cr_expect_eq(live__spill_entries(2), 2, "two at least: a hash shift below 64");
	cr_expect_eq(live__spill_entries(4), 2);
	cr_expect_eq(live__spill_entries(8), 2);
	cr_expect_eq(live__spill_entries(64), 16, "--max-live-blocks 51: one region and 16");
	cr_expect_eq(live__spill_entries(1u << 21), 1u << 19, "the default");
	cr_expect(live__entries(1u << 28) + live__spill_entries(live__entries(1u << 28)) <
		  (1ull << 31), "the largest table's indices stay below MW_LIVE_SPILL");
}
