// SPDX-License-Identifier: GPL-2.0
/*
 * test_cookies.c - the packed layouts of include/memwatch.h: every field a
 * cookie or a key carries comes back out whole, at its limit, next to
 * every other field at its limit.
 */
#include <criterion/criterion.h>
#include "memwatch.h"

#define USER_ADDR_MAX	((1ull << 47) - 1)

Test(cookies, structure__id_delta_flags_slot_round_trip)
{
	__u64 flags = MW_SF_REMOVE | MW_SF_RETPROBE | MW_SF_SCOPE | MW_SF_HEAD | MW_SF_PART;
	__u32 id = MW_MAX_STRUCTS - 1, delta = MW_DELTA_ARG1 + 5;
	__u64 c = MW_COOKIE_WITH_SLOT(MW_SF_COOKIE(id, delta) | flags, MW_MAX_TARGETS - 1);

	cr_expect_eq(MW_SF_ID(c), id, "structure id");
	cr_expect_eq(MW_SF_DELTA(c), delta, "delta rule (argument 6)");
	cr_expect_eq(MW_COOKIE_SLOT(c), MW_MAX_TARGETS - 1, "slot");
	cr_expect_eq(c & flags, flags, "kind flags kept");
	cr_expect_eq(MW_SF_ID(MW_SF_COOKIE(0, MW_DELTA_RET)), 0, "id 0 is id 0");
	cr_expect_eq(MW_SF_DELTA(MW_SF_COOKIE(0xffff, MW_DELTA_ONE)), MW_DELTA_ONE,
		     "an id at its limit does not spill into the delta");
}

Test(cookies, allocator__op_flags_slot_round_trip)
{
	__u64 flags = MW_ALLOC_PAIRED | MW_ALLOC_THROWS | MW_ALLOC_NORESERVE;
	__u64 c = MW_COOKIE_WITH_SLOT(MW_ALLOC_COOKIE(MW_OP__COUNT - 1) | flags,
				      MW_MAX_TARGETS - 1);

	cr_expect_eq(MW_ALLOC_OP(c), MW_OP__COUNT - 1, "op");
	cr_expect_eq(MW_COOKIE_SLOT(c), MW_MAX_TARGETS - 1, "slot");
	cr_expect_eq(c & flags, flags, "flags kept");
	cr_expect_eq(MW_ALLOC_OP(MW_ALLOC_COOKIE(MW_OP_FREE) | MW_ALLOC_PAIRED), MW_OP_FREE,
		     "a flag is not part of the op");
}

Test(cookies, block_and_site_keys__slot_stack_address_round_trip)
{
	__u64 k = MW_BLOCK_KEY(MW_MAX_TARGETS - 1, USER_ADDR_MAX);
	__u64 site = MW_SITE(USER_ADDR_MAX, MW_MAX_STACKS);	/* stack id + 1 */

	cr_expect_eq(MW_KEY_ADDR(k), USER_ADDR_MAX, "the highest user address survives");
	cr_expect_eq(MW_BLOCK_KEY_SLOT(k), MW_MAX_TARGETS - 1, "slot");
	cr_expect_eq(MW_BLOCK_KEY_SLOT(MW_BLOCK_KEY(0, USER_ADDR_MAX)), 0,
		     "the address does not touch the slot");
	cr_expect_eq(MW_BLOCK_KEY_SLOT(MW_BLOCK_KEY(MW_MAX_TARGETS, 0x1000)), 0,
		     "a slot is masked to its bits");
	cr_expect_lt((k >> MW_KEY_SLOT_SHIFT), (1ull << 16), "the slot stays below the key's top");
	cr_expect_eq(MW_KEY_STACK(site), MW_MAX_STACKS, "the last stack id + 1");
	cr_expect_eq(MW_KEY_ADDR(site), USER_ADDR_MAX, "the stack does not touch the address");
	cr_expect_eq(MW_KEY_STACK(MW_SITE(USER_ADDR_MAX, 0)), 0, "nor the address the stack");
}

Test(cookies, place__index_beside_the_highest_slot)
{
	__u64 c = MW_COOKIE_WITH_PLACE(MW_COOKIE_WITH_SLOT(MW_ALLOC_COOKIE(MW_OP_FREE),
							   MW_MAX_TARGETS - 1),
				       MW_MAX_PLACES - 1);

	cr_expect_eq(MW_COOKIE_SLOT(c), MW_MAX_TARGETS - 1, "slot");
	cr_expect_eq(MW_COOKIE_PLACE(c), MW_MAX_PLACES - 1, "place");
	cr_expect_eq(MW_ALLOC_OP(c), MW_OP_FREE, "op");
}
