// SPDX-License-Identifier: GPL-2.0
/*
 * test_live.c - the live-block table's size: the power of two at or
 * above 1.25 x the blocks it must have room for, two at least.
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
