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
