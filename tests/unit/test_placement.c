// SPDX-License-Identifier: GPL-2.0
/*
 * test_placement.c - where probes go: past leading instructions the kernel
 * would single-step, only when provably equivalent to the entry.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include "placement.h"

Test(placement, glibc_free__moves_to_the_branch)
{
	/* glibc 2.36 free: test %rdi,%rdi; je ...; push %rbp; lea ...(%rdi),%rsi */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0x00, 0x00, 0x00, 0x55,
		0x48, 0x8d, 0x77, 0xf0, 0x53, 0xc3,
	};

	cr_expect_eq(placement__shift(code, sizeof(code)), 3,
		     "test writes only flags: probe the je at +3");
}

Test(placement, glibc_posix_memalign__moves_past_rip_relative_cmp)
{
	/* cmpb $0x0,0x140201(%rip); push %r12; mov %rdx,%r12 */
	static const uint8_t code[] = {
		0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x41, 0x54, 0x49, 0x89, 0xd4, 0xc3,
	};

	cr_expect_eq(placement__shift(code, sizeof(code)), 7, "cmpb skipped, probe the push");
}

Test(placement, emulated_first_instruction__stays_at_entry)
{
	static const uint8_t code[] = { 0x41, 0x54, 0x55, 0x53, 0xc3 };	/* push %r12 ... */

	cr_expect_eq(placement__shift(code, sizeof(code)), 0, "push is emulated: no move");
}

Test(placement, writes_an_argument_register__stays_at_entry)
{
	/* mov %rsi,%rax would be fine; mov %rdi,%rsi writes an argument */
	static const uint8_t code[] = { 0x48, 0x89, 0xfe, 0x55, 0xc3 };

	cr_expect_eq(placement__shift(code, sizeof(code)), 0,
		     "an instruction that writes rsi must run after the probe");
}

Test(placement, writes_the_stack_pointer__stays_at_entry)
{
	static const uint8_t code[] = { 0x48, 0x83, 0xec, 0x18, 0x55, 0xc3 };	/* sub $0x18,%rsp */

	cr_expect_eq(placement__shift(code, sizeof(code)), 0,
		     "the stack pointer pairs entries and returns: it must not move");
}

Test(placement, branch_into_the_skipped_range__stays_at_entry)
{
	/* 0: test %rdi,%rdi; 3: je +0 -> 9; 9: jmp back to 3 (the new address) */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x0f, 0x84, 0x00, 0x00, 0x00, 0x00, 0xeb, 0xf8,
	};

	cr_expect_eq(placement__shift(code, sizeof(code)), 0,
		     "a branch lands on the new address: it would fire twice");
}

Test(placement, indirect_jump__stays_at_entry)
{
	/* test %rdi,%rdi; je; jmp *%rax */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x74, 0x02, 0xff, 0xe0, 0xc3,
	};

	cr_expect_eq(placement__shift(code, sizeof(code)), 0,
		     "an indirect jump could land anywhere: unsure means entry");
}

Test(placement, undecodable__stays_at_entry)
{
	static const uint8_t code[] = { 0x0f, 0x0b, 0xff, 0xff };	/* ud2, junk */

	cr_expect_eq(placement__shift(code, sizeof(code)), 0, "no decode, no move");
	cr_expect_eq(placement__shift(code, 0), 0, "an empty function");
}

/* ------------------------------------------------------------ returns */

Test(placement, returns__every_ret_of_the_body)
{
	/* 0: test %edi,%edi; 2: je +3 -> 7; 4: mov %edi,%eax; 6: ret;
	 * 7: xor %eax,%eax; 9: ret */
	static const uint8_t code[] = { 0x85, 0xff, 0x74, 0x03, 0x89, 0xf8, 0xc3,
					0x31, 0xc0, 0xc3 };
	struct mw_code_part part = { code, 0x1000, sizeof(code) };
	uint64_t out[4];

	cr_assert_eq(placement__returns(&part, 1, out, 4), 2, "two return instructions");
	cr_expect_eq(out[0], 0x1006, "the first ret, at its offset in the file");
	cr_expect_eq(out[1], 0x1009, "the second ret");
}

Test(placement, returns__a_tail_call_is_not_a_return)
{
	/* 0: test %edi,%edi; 2: je +1 -> 5; 4: ret; 5: jmp far away */
	static const uint8_t code[] = { 0x85, 0xff, 0x74, 0x01, 0xc3,
					0xe9, 0x00, 0x10, 0x00, 0x00 };
	struct mw_code_part part = { code, 0, sizeof(code) };
	uint64_t out[4];

	cr_expect_eq(placement__returns(&part, 1, out, 4), -1,
		     "a jump out of the function leaves it without a ret: unsure");
}

Test(placement, returns__the_cold_part_is_part_of_the_function)
{
	/* body at 0x100: test; je to the cold part at 0x200; ret.
	 * cold part: mov $1,%eax; ret */
	static const uint8_t body[] = { 0x85, 0xff, 0x0f, 0x84, 0xf8, 0x00, 0x00, 0x00, 0xc3 };
	static const uint8_t cold[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };
	struct mw_code_part parts[] = {
		{ body, 0x100, sizeof(body) }, { cold, 0x200, sizeof(cold) },
	};
	uint64_t out[4];

	cr_assert_eq(placement__returns(parts, 2, out, 4), 2,
		     "the jump into the cold part stays inside; both rets count");
	cr_expect_eq(out[0], 0x108, "the body's ret");
	cr_expect_eq(out[1], 0x205, "the cold part's ret");
	cr_expect_eq(placement__returns(parts, 1, out, 4), -1,
		     "without its cold part, the jump there looks like a tail call");
}

Test(placement, returns__more_than_max_is_unsure)
{
	static const uint8_t code[] = { 0xc3, 0xc3, 0xc3 };
	struct mw_code_part part = { code, 0, sizeof(code) };
	uint64_t out[2];

	cr_expect_eq(placement__returns(&part, 1, out, 2), -1,
		     "a return left unprobed would be missed: unsure");
}

Test(placement, returns__undecodable_bytes_are_unsure)
{
	static const uint8_t code[] = { 0xc3, 0x06 };	/* ret; push %es: invalid in 64-bit */
	struct mw_code_part part = { code, 0, sizeof(code) };
	uint64_t out[2];

	cr_expect_eq(placement__returns(&part, 1, out, 2), -1,
		     "code that cannot be decoded to its end may hide a return");
}

Test(placement, ret__is_not_emulated)
{
	/* mov %edi,%eax; and $1,%eax; ret: nothing emulated before the end */
	static const uint8_t code[] = { 0x89, 0xf8, 0x83, 0xe0, 0x01, 0xc3 };

	cr_expect_eq(placement__shift(code, sizeof(code)), 0,
		     "the kernel single-steps ret: moving onto it gains nothing, and "
		     "would put the entry probe on the function's return probe");
}
