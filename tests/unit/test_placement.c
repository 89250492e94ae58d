// SPDX-License-Identifier: GPL-2.0
/*
 * test_placement.c - where probes go: past leading instructions the kernel
 * would single-step, with the entry's stack pointer and arguments still
 * known; at the entry, and said why, when not.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "probes/placement.h"

#define ARG(n)	(1u << ((n) - 1))

static struct mw_placement find(const uint8_t *code, size_t size, uint8_t args, bool pinned)
{
	struct mw_needs needs = { .args = args, .pinned = pinned };
	struct mw_placement p;

	placement__find(code, size, &needs, &p);
	return p;
}

static void expect_moved(const struct mw_placement *p, uint64_t shift, int32_t sp_off,
			 const char *what)
{
	cr_expect_eq(p->shift, shift, "%s: probe at +%llu, got +%llu (%s)", what,
		     (unsigned long long)shift, (unsigned long long)p->shift, p->insn);
	cr_expect_eq(p->place.sp_off, sp_off, "%s: entry sp = sp + %d, got %d", what,
		     sp_off, p->place.sp_off);
	cr_expect_not(p->stepped, "%s: not single-stepped", what);
}

static void expect_stepped(const struct mw_placement *p, enum mw_step_why why, const char *what)
{
	cr_expect_eq(p->shift, 0, "%s: stays at the entry (+%llu)", what, (unsigned long long)p->shift);
	cr_expect(p->stepped, "%s: single-stepped, and said so", what);
	cr_expect_eq(p->why, why, "%s: why %d, got %d (%s)", what, why, p->why, p->insn);
	for (int a = 0; a < MW_NARGS; a++)
		cr_expect_eq(p->place.arg[a], a, "%s: at the entry, argument %d is in its own register",
			     what, a + 1);
}

Test(placement, glibc_free__moves_to_the_branch)
{
	/* glibc 2.36 free: test %rdi,%rdi; je ...; push %rbp; lea ...(%rdi),%rsi */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0x00, 0x00, 0x00, 0x55,
		0x48, 0x8d, 0x77, 0xf0, 0x53, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_moved(&p, 3, 0, "test writes only flags");
	cr_expect_eq(p.place.arg[0], MW_REG_DI, "the pointer is still in rdi");
}

Test(placement, glibc_posix_memalign__moves_past_rip_relative_cmp)
{
	/* cmpb $0x0,0x140201(%rip); push %r12; mov %rdx,%r12 */
	static const uint8_t code[] = {
		0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x41, 0x54, 0x49, 0x89, 0xd4, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1) | ARG(3), true);

	expect_moved(&p, 7, 0, "cmpb skipped, probe the push, return probe intact");
}

Test(placement, emulated_first_instruction__stays_at_entry)
{
	static const uint8_t code[] = { 0x41, 0x54, 0x55, 0x53, 0xc3 };	/* push %r12 ... */
	struct mw_placement p = find(code, sizeof(code), ARG(1), true);

	expect_moved(&p, 0, 0, "push is emulated: no move");
	cr_expect_eq(p.why, MW_STEP_NO);
}

Test(placement, jemalloc_free__past_its_movs)
{
	/* jemalloc 5.3 free: mov %rdi,%rax; mov 0xa530e(%rip),%rdx; mov %rdi,%rcx;
	 * shr $0x1a,%rax; and $0xffffffffc0000000,%rcx; (here) push %rbx */
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8, 0x48, 0x8b, 0x15, 0x0e, 0x53, 0x0a, 0x00, 0x48, 0x89, 0xf9,
		0x48, 0xc1, 0xe8, 0x1a, 0x48, 0x81, 0xe1, 0x00, 0x00, 0x00, 0xc0, 0x53, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_moved(&p, 24, 0, "movs, a shift and an and: free reads only its pointer");
	cr_expect_eq(p.place.arg[0], MW_REG_DI, "still in rdi");
}

Test(placement, copies__followed_until_the_last_is_overwritten)
{
	/* mov %rdi,%rax; xor %edi,%edi; push %rbx */
	static const uint8_t copied[] = { 0x48, 0x89, 0xf8, 0x31, 0xff, 0x53, 0xc3 };
	/* mov %rdi,%rax; shr $0x3,%rax; xor %edi,%edi; push: the copy changed */
	static const uint8_t changed[] = { 0x48, 0x89, 0xf8, 0x48, 0xc1, 0xe8, 0x03, 0x31, 0xff, 0x53, 0xc3 };
	/* mov %edi,%eax (32 bits: not a copy of a pointer); xor %edi,%edi; push */
	static const uint8_t narrow[] = { 0x89, 0xf8, 0x31, 0xff, 0x53, 0xc3 };
	struct mw_placement p = find(copied, sizeof(copied), ARG(1), false);

	expect_moved(&p, 5, 0, "argument 1 lives on in rax");
	cr_expect_eq(p.place.arg[0], MW_REG_AX, "rax holds it: got %d", p.place.arg[0]);
	p = find(changed, sizeof(changed), ARG(1), false);
	expect_stepped(&p, MW_STEP_ARGUMENT, "no unchanged copy is left");
	p = find(narrow, sizeof(narrow), ARG(1), false);
	expect_stepped(&p, MW_STEP_ARGUMENT, "a 32-bit move truncates");
}

Test(placement, mimalloc_malloc__the_size_moves_to_rsi)
{
	/* mov 0xb449(%rip),%rax; mov %rdi,%rsi; mov %fs:(%rax),%rdi;
	 * cmp $0x400,%rsi; ja +0x29 */
	static const uint8_t code[] = {
		0x48, 0x8b, 0x05, 0x49, 0xb4, 0x00, 0x00, 0x48, 0x89, 0xfe,
		0x64, 0x48, 0x8b, 0x38, 0x48, 0x81, 0xfe, 0x00, 0x04, 0x00, 0x00,
		0x77, 0x29, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), true);

	expect_moved(&p, 21, 0, "to the ja, the stack untouched for the return probe");
	cr_expect_eq(p.place.arg[0], MW_REG_SI, "the size is in rsi now");
}

Test(placement, argument_overwritten_without_a_copy__stays_at_entry)
{
	/* mov %rdi,%rsi writes argument 2; push */
	static const uint8_t code[] = { 0x48, 0x89, 0xfe, 0x55, 0xc3 };
	struct mw_placement p = find(code, sizeof(code), ARG(1) | ARG(2), false);

	expect_stepped(&p, MW_STEP_ARGUMENT, "argument 2 is lost");
	p = find(code, sizeof(code), ARG(1), false);
	expect_moved(&p, 3, 0, "a probe that reads only argument 1 can skip it");
	p = find(code, sizeof(code), 0, false);
	expect_moved(&p, 3, 0, "one that reads no argument too");
}

Test(placement, sub_rsp__followed_unless_a_return_probe)
{
	/* redis's moduleNotifyKeyUnlink: sub $0x28,%rsp; ...; push */
	static const uint8_t code[] = { 0x48, 0x83, 0xec, 0x28, 0x55, 0xc3 };
	struct mw_placement p = find(code, sizeof(code), ARG(2), false);

	expect_moved(&p, 4, 0x28, "the entry's sp is 0x28 above");
	p = find(code, sizeof(code), ARG(2), true);
	expect_stepped(&p, MW_STEP_RETURN, "a return probe needs [rsp] at the return address");
}

Test(placement, pushes_and_sub__add_up)
{
	/* push %rbp; push %rbx: emulated already; so: sub $0x10,%rsp; add $0x8,%rsp; push */
	static const uint8_t code[] = {
		0x48, 0x83, 0xec, 0x10, 0x48, 0x83, 0xc4, 0x08, 0x53, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), 0, false);

	expect_moved(&p, 8, 8, "down 16, up 8");
}

Test(placement, red_zone_store__skipped_caller_frame_store__not)
{
	/* mov %dil,-0x38(%rsp); push %rbx */
	static const uint8_t red[] = { 0x40, 0x88, 0x7c, 0x24, 0xc8, 0x53, 0xc3 };
	/* mov %rdi,0x8(%rsp): over the caller's frame; push */
	static const uint8_t up[] = { 0x48, 0x89, 0x7c, 0x24, 0x08, 0x53, 0xc3 };
	/* mov %rdi,(%rax): anywhere */
	static const uint8_t any[] = { 0x48, 0x89, 0x38, 0x53, 0xc3 };
	struct mw_placement p = find(red, sizeof(red), ARG(1), false);

	expect_moved(&p, 5, 0, "a store below the entry's sp");
	p = find(up, sizeof(up), 0, false);
	expect_stepped(&p, MW_STEP_STORE, "a store above it");
	p = find(any, sizeof(any), 0, false);
	expect_stepped(&p, MW_STEP_STORE, "a store through a pointer");
}

Test(placement, rip_relative_store__skipped_locked_one__not)
{
	/* -O2 table_remove: endbr64; mov 0x2a6d(%rip),%rax; addq $0x1,0x2ab5(%rip);
	 * test %rax,%rax; je ... (a counter of the object's own, not a frame) */
	static const uint8_t code[] = {
		0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8b, 0x05, 0x6d, 0x2a, 0x00, 0x00,
		0x48, 0x83, 0x05, 0xb5, 0x2a, 0x00, 0x00, 0x01, 0x48, 0x85, 0xc0,
		0x74, 0x49, 0xc3,
	};
	/* lock addq $0x1,0x2ab5(%rip); push %rbx */
	static const uint8_t locked[] = {
		0xf0, 0x48, 0x83, 0x05, 0xb5, 0x2a, 0x00, 0x00, 0x01, 0x53, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_moved(&p, 22, 0, "past the counter to the je");
	cr_expect_eq(p.place.arg[0], MW_REG_DI, "the key is still in rdi");
	p = find(locked, sizeof(locked), 0, false);
	expect_stepped(&p, MW_STEP_STORE, "a locked store stays");
}

Test(placement, sub_then_store_in_the_new_frame__skipped)
{
	/* sub $0x18,%rsp; mov %rdi,0x8(%rsp); jmp +0 */
	static const uint8_t code[] = {
		0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x7c, 0x24, 0x08, 0xeb, 0x00, 0xc3,
	};
	/* sub $0x8,%rsp; mov %rdi,0x8(%rsp): the return address */
	static const uint8_t ra[] = { 0x48, 0x83, 0xec, 0x08, 0x48, 0x89, 0x7c, 0x24, 0x08, 0x53, 0xc3 };
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_moved(&p, 9, 0x18, "the store is in the new frame");
	p = find(ra, sizeof(ra), 0, false);
	expect_stepped(&p, MW_STEP_STORE, "a store over the return address");
}

Test(placement, endbr64__skipped)
{
	/* CET build: endbr64; push %rbp */
	static const uint8_t code[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0xc3 };
	/* endbr64; sub $0x28,%rsp; push %rbx */
	static const uint8_t sub[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x28, 0x53, 0xc3 };
	struct mw_placement p = find(code, sizeof(code), ARG(1), true);

	expect_moved(&p, 4, 0, "endbr64 is a nop here: probe the push, even with a return probe");
	p = find(sub, sizeof(sub), ARG(1), false);
	expect_moved(&p, 8, 0x28, "endbr64 and sub");
	p = find(sub, sizeof(sub), ARG(1), true);
	expect_stepped(&p, MW_STEP_RETURN, "endbr64 then sub, with a return probe");
}

Test(placement, branch_into_the_skipped_range__stays_at_entry)
{
	/* 0: test %rdi,%rdi; 3: je +0 -> 9; 9: jmp back to 3 (the new address) */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x0f, 0x84, 0x00, 0x00, 0x00, 0x00, 0xeb, 0xf8,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_stepped(&p, MW_STEP_LANDS, "a branch lands on the new address: it would fire twice");
}

Test(placement, indirect_jump__stays_at_entry)
{
	/* test %rdi,%rdi; je; jmp *%rax */
	static const uint8_t code[] = {
		0x48, 0x85, 0xff, 0x74, 0x02, 0xff, 0xe0, 0xc3,
	};
	struct mw_placement p = find(code, sizeof(code), ARG(1), false);

	expect_stepped(&p, MW_STEP_LANDS, "an indirect jump could land anywhere: unsure means entry");
}

Test(placement, indirect_tail_call__is_not_a_jump_in)
{
	/* redis's moduleNotifyKeyUnlink, shortened: sub $0x28,%rsp;
	 * mov %rax,0x18(%rsp); cmp $0x5,%al; je +4; add $0x28,%rsp; ret;
	 * add $0x28,%rsp; jmp *%rdx (leaves: a tail call) */
	static const uint8_t code[] = {
		0x48, 0x83, 0xec, 0x28, 0x48, 0x89, 0x44, 0x24, 0x18, 0x3c, 0x05,
		0x74, 0x05, 0x48, 0x83, 0xc4, 0x28, 0xc3, 0x48, 0x83, 0xc4, 0x28, 0xff, 0xe2,
	};
	/* the same, but the jmp *%rdx inside the frame: a jump table */
	static const uint8_t table[] = {
		0x48, 0x83, 0xec, 0x28, 0x48, 0x89, 0x44, 0x24, 0x18, 0x3c, 0x05,
		0x74, 0x05, 0x48, 0x83, 0xc4, 0x28, 0xc3, 0x90, 0x90, 0x90, 0x90, 0xff, 0xe2,
	};
	struct mw_placement p = find(code, sizeof(code), 0, false);

	expect_moved(&p, 11, 0x28, "to the je: the indirect jump leaves the function");
	p = find(table, sizeof(table), 0, false);
	expect_stepped(&p, MW_STEP_LANDS, "an indirect jump inside the frame could land anywhere");
}

Test(placement, undecodable__stays_at_entry)
{
	static const uint8_t code[] = { 0x0f, 0x0b, 0xff, 0xff };	/* ud2, junk */
	struct mw_placement p = find(code, sizeof(code), 0, false);

	expect_stepped(&p, MW_STEP_INSN, "ud2 is not followed");
	p = find(code, 0, 0, false);
	expect_stepped(&p, MW_STEP_UNDECODED, "an empty function");
}

Test(placement, why__names_the_instruction)
{
	static const uint8_t code[] = { 0x48, 0x83, 0xec, 0x28, 0x55, 0xc3 };
	struct mw_placement p = find(code, sizeof(code), 0, true);
	char buf[256];

	cr_expect(strstr(placement__why(&p, buf, sizeof(buf)), "sub rsp, 0x28"),
		  "the warning shows the instruction: %s", buf);
}

/* The kernel's list (Linux 6.18 arch/x86/kernel/uprobes.c; each checked by
 * timing on this machine: see integration/test_probe_cost.c). */
Test(placement, emulated__the_kernels_list)
{
	static const struct { uint8_t n, b[9]; bool emulated; const char *what; } cases[] = {
		{ 1, { 0x90 }, true, "nop" },
		{ 2, { 0x66, 0x90 }, true, "xchg %ax,%ax" },
		{ 2, { 0xf3, 0x90 }, true, "pause" },
		{ 3, { 0x0f, 0x1f, 0x00 }, true, "nopl (%rax)" },
		{ 4, { 0x0f, 0x1f, 0x40, 0x00 }, true, "nopl 0(%rax)" },
		{ 4, { 0x0f, 0x1f, 0x40, 0x08 }, false, "nopl 8(%rax): not canonical" },
		{ 3, { 0x0f, 0x1f, 0x01 }, false, "nopl (%rcx): not canonical" },
		{ 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, true, "nopw 0(%rax,%rax)" },
		{ 8, { 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 }, true, "nopl 0(%rax,%rax) 8 bytes" },
		{ 9, { 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 }, false, "nopw, 9 bytes" },
		{ 1, { 0x53 }, true, "push %rbx" },
		{ 2, { 0x41, 0x54 }, true, "push %r12" },
		{ 2, { 0x49, 0x54 }, false, "push %r12 with REX.W" },
		{ 2, { 0x40, 0x53 }, false, "push %rbx with an empty REX" },
		{ 2, { 0x6a, 0x00 }, false, "push $0" },
		{ 2, { 0xeb, 0x00 }, true, "jmp rel8" },
		{ 5, { 0xe9, 0, 0, 0, 0 }, true, "jmp rel32" },
		{ 6, { 0xf2, 0xe9, 0, 0, 0, 0 }, true, "bnd jmp" },
		{ 5, { 0xe8, 0, 0, 0, 0 }, true, "call rel32" },
		{ 2, { 0x74, 0x00 }, true, "je rel8" },
		{ 6, { 0x0f, 0x84, 0, 0, 0, 0 }, true, "je rel32" },
		{ 1, { 0xc3 }, false, "ret" },
		{ 4, { 0xf3, 0x0f, 0x1e, 0xfa }, false, "endbr64" },
		{ 3, { 0x48, 0x89, 0xf8 }, false, "mov %rdi,%rax" },
		{ 4, { 0x48, 0x83, 0xec, 0x28 }, false, "sub $0x28,%rsp" },
		{ 3, { 0x48, 0x85, 0xff }, false, "test %rdi,%rdi" },
		{ 2, { 0xff, 0xe0 }, false, "jmp *%rax" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(placement__emulated(cases[i].b, cases[i].n), cases[i].emulated,
			     "%s: %s", cases[i].what, cases[i].emulated ? "emulated" : "single-stepped");
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
	struct mw_placement p = find(code, sizeof(code), 0, false);

	expect_stepped(&p, MW_STEP_INSN, "the kernel single-steps ret: moving onto it gains nothing");
}

/* ------------------------------------------------------ Go's stack check */

static const struct mw_abi go_abi = {
	{ MW_REG_AX, MW_REG_BX, MW_REG_CX, MW_REG_DI, MW_REG_SI, MW_REG_R8 }, true,
};

static struct mw_placement find_go(const uint8_t *code, size_t size, uint8_t args)
{
	struct mw_needs needs = { .args = args, .abi = &go_abi };
	struct mw_placement p;

	placement__find(code, size, &needs, &p);
	return p;
}

/*
 * As go build (Go 1.19) makes main.regRemove: lea -0x28(%rsp),%r12; cmp
 * 0x10(%r14),%r12; jbe stub; the body; the stub: spill, call
 * runtime.morestack_noctxt, reload, jmp to the first instruction.
 */
Test(placement, go_stack_check__probe_on_its_jcc_with_a_guard)
{
	static const uint8_t code[] = {
		0x4c, 0x8d, 0x64, 0x24, 0xd8,			/* 0: lea -0x28(%rsp),%r12 */
		0x4d, 0x3b, 0x66, 0x10,				/* 5: cmp 0x10(%r14),%r12 */
		0x0f, 0x86, 0x0f, 0x00, 0x00, 0x00,		/* 9: jbe 30 */
		0x48, 0x81, 0xec, 0xa8, 0x00, 0x00, 0x00,	/* 15: sub $0xa8,%rsp */
		0x48, 0x81, 0xc4, 0xa8, 0x00, 0x00, 0x00,	/* 22: add $0xa8,%rsp */
		0xc3,						/* 29: ret */
		0x48, 0x89, 0x44, 0x24, 0x08,			/* 30: mov %rax,0x8(%rsp) */
		0x90,						/* 35: nop */
		0xe8, 0x00, 0x00, 0x00, 0x00,			/* 36: call (morestack) */
		0x48, 0x8b, 0x44, 0x24, 0x08,			/* 41: mov 0x8(%rsp),%rax */
		0xe9, 0xcd, 0xff, 0xff, 0xff,			/* 46: jmp 0 */
	};
	struct mw_placement p = find_go(code, sizeof(code), ARG(3));

	cr_expect_eq(p.shift, 9, "on the jbe, got +%llu", (unsigned long long)p.shift);
	cr_expect_not(p.stepped, "a jcc is emulated");
	cr_expect_eq(p.place.guard, 1 + 6, "the guard is jbe's condition (6), plus one");
	cr_expect_eq(p.place.arg[2], MW_REG_CX, "argument 3 is where Go's ABI put it: rcx");
	cr_expect_eq(p.place.sp_off, 0, "the stack pointer has not moved");

	/* the same code as C's: the check is not looked for */
	p = find(code, sizeof(code), ARG(1), false);
	cr_expect_eq(p.place.guard, 0, "no guard outside Go code");
}

Test(placement, go_small_frame_check__short_jbe)
{
	/* main.descend: cmp 0x10(%r14),%rsp; jbe stub (short); push %rbp */
	static const uint8_t code[] = {
		0x49, 0x3b, 0x66, 0x10,		/* 0: cmp 0x10(%r14),%rsp */
		0x76, 0x03,			/* 4: jbe 9 */
		0x55,				/* 6: push %rbp */
		0x5d,				/* 7: pop %rbp */
		0xc3,				/* 8: ret */
		0xe8, 0x00, 0x00, 0x00, 0x00,	/* 9: call (morestack) */
		0xeb, 0xf0,			/* 14: jmp 0 */
	};
	struct mw_placement p = find_go(code, sizeof(code), ARG(1));

	cr_expect_eq(p.shift, 4, "on the short jbe, got +%llu", (unsigned long long)p.shift);
	cr_expect_eq(p.place.guard, 1 + 6, "jbe's condition");
	cr_expect_eq(p.place.arg[0], MW_REG_AX, "argument 1 in rax");
}

Test(placement, go_jcc_that_does_not_restart__no_guard)
{
	/* a compare at 16(%r14) whose branch goes to a plain return: not a
	 * stack check, so the entry (emulated push) stays */
	static const uint8_t code[] = {
		0x49, 0x3b, 0x66, 0x10,		/* 0: cmp 0x10(%r14),%rsp */
		0x76, 0x01,			/* 4: jbe 7 */
		0x90,				/* 6: nop */
		0xc3,				/* 7: ret */
	};
	struct mw_placement p = find_go(code, sizeof(code), ARG(1));

	cr_expect_eq(p.place.guard, 0, "no guard without a jump back to the start");
	cr_expect_eq(p.shift, 4, "the usual placement: the first emulated instruction");
}

Test(placement, go_leaf_without_check__entry_in_go_registers)
{
	/* main.bump: inc %rax; ret (a leaf: no stack check) */
	static const uint8_t code[] = { 0x48, 0xff, 0xc0, 0xc3 };
	struct mw_placement p = find_go(code, sizeof(code), ARG(1));

	cr_expect_eq(p.shift, 0, "stays at the entry");
	cr_expect(p.stepped, "single-stepped: inc overwrites the argument");
	cr_expect_eq(p.place.guard, 0, "no guard");
	cr_expect_eq(p.place.arg[0], MW_REG_AX, "argument 1 is Go's rax, not System V's rdi");
}

Test(placement, go_argument_overwritten_before_the_check__lost)
{
	/* mov %rsp,%rax (writes argument 1) before the check */
	static const uint8_t code[] = {
		0x48, 0x89, 0xe0,		/* 0: mov %rsp,%rax */
		0x49, 0x3b, 0x66, 0x10,		/* 3: cmp 0x10(%r14),%rsp */
		0x76, 0x02,			/* 7: jbe 11 */
		0x90,				/* 9: nop */
		0xc3,				/* 10: ret */
		0xe8, 0x00, 0x00, 0x00, 0x00,	/* 11: call */
		0xeb, 0xee,			/* 16: jmp 0 */
	};
	struct mw_placement p = find_go(code, sizeof(code), ARG(1));
	char why[256];

	cr_expect_eq(p.why, MW_STEP_LOST, "the argument cannot be read past the check");
	cr_expect(strstr(placement__why(&p, why, sizeof(why)), "before its stack check"),
		  "and it says so: %s", why);
}

/* What each allocator op reads, from mw_op_args (memwatch.h), the one
 * table both the BPF program and placement follow. */
Test(placement, op_args__each_op_reads_its_values)
{
	static const struct { enum mw_op op; uint8_t reads; } cases[] = {
		{ MW_OP_MALLOC, ARG(1) }, { MW_OP_CALLOC, ARG(1) | ARG(2) },
		{ MW_OP_REALLOC, ARG(1) | ARG(2) }, { MW_OP_REALLOCARRAY, ARG(1) | ARG(2) | ARG(3) },
		{ MW_OP_MEMALIGN, ARG(2) }, { MW_OP_POSIX_MEMALIGN, ARG(1) | ARG(3) },
		{ MW_OP_FREE, ARG(1) }, { MW_OP_XALLOCX, ARG(1) | ARG(2) | ARG(3) },
		{ MW_OP_EXPAND, ARG(1) | ARG(2) }, { MW_OP_NONE, 0 }, { MW_OP__COUNT, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(mw_op_reads(cases[i].op), cases[i].reads, "op %d reads 0x%x, got 0x%x",
			     cases[i].op, cases[i].reads, mw_op_reads(cases[i].op));
}
