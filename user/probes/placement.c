// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - move a probe past leading instructions that the kernel
 * would single-step, following what they do to the registers and the
 * stack pointer so the BPF program can still see the entry's state; and
 * find where a function returns. The decoding is Capstone's (Debian's
 * libcapstone-dev), not ours.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "probes/placement.h"

#define MW_MAX_SKIP_BYTES	64	/* look no further for an emulated one */
#define MW_MAX_SKIP_INSNS	24
#define MW_MAX_FUNC_BYTES	65536	/* functions larger are not scanned */
#define MW_INSN_BYTES		15	/* the longest x86 instruction */

/* ------------------------------------------------ what the kernel emulates */

/*
 * Linux 6.18's arch/x86/kernel/uprobes.c emulates: direct jmp (eb, e9),
 * call (e8) and jcc (70-7f, 0f 80-8f), also with a bnd (f2) prefix; push
 * of a register (50-57, and 41 50-57 for r8-r15: no other REX); nop (90,
 * after 66 or f3 prefixes) and the canonical multi-byte nops. Measured
 * here: nopl 0x8(%rax) or a 66-prefixed nopw of 9 bytes are stepped.
 * Linux 6.1 emulates nop (90) but single-steps the multi-byte nops
 * (measured in a guest): calibrate__nops finds which, and the session
 * says so here.
 */
static bool nops_emulated = true;

void placement__nops_emulated(bool emulated)
{
	nops_emulated = emulated;
}

static const uint8_t canonical_nops[][8] = {
	{ 3, 0x0f, 0x1f, 0x00 },
	{ 4, 0x0f, 0x1f, 0x40, 0x00 },
	{ 5, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 7, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
};
static const uint8_t nop8[] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };

bool placement__emulated(const uint8_t *c, size_t len)
{
	size_t i = 0;

	if (!len)
		return false;
	while (i < len && (c[i] == 0x66 || c[i] == 0xf3))
		i++;
	if (i < len && c[i] == 0x90)
		return true;
	for (size_t k = 0; nops_emulated && k < sizeof(canonical_nops) / sizeof(canonical_nops[0]); k++)
		if (len >= canonical_nops[k][0] &&
		    !memcmp(c, &canonical_nops[k][1], canonical_nops[k][0]))
			return true;
	if (nops_emulated && len >= sizeof(nop8) && !memcmp(c, nop8, sizeof(nop8)))
		return true;
	if ((c[0] >= 0x50 && c[0] <= 0x57) ||
	    (len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57))
		return true;
	i = c[0] == 0xf2 ? 1 : 0;
	if (i >= len)
		return false;
	if (c[i] == 0xeb || c[i] == 0xe9 || c[i] == 0xe8 || (c[i] >= 0x70 && c[i] <= 0x7f))
		return true;
	return i + 1 < len && c[i] == 0x0f && c[i + 1] >= 0x80 && c[i + 1] <= 0x8f;
}

/* ------------------------------------------------------ registers tracked */

#define SP_FAMILY	(-2)

/* The 64-bit register a general-purpose register is part of: enum
 * mw_reg, SP_FAMILY for the stack pointer, -1 for any other. */
static int family(x86_reg r)
{
	switch (r) {
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:	return MW_REG_DI;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:	return MW_REG_SI;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH:
		return MW_REG_DX;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH:
		return MW_REG_CX;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B:	return MW_REG_R8;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B:	return MW_REG_R9;
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH:
		return MW_REG_AX;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH:
		return MW_REG_BX;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:	return MW_REG_BP;
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: case X86_REG_R10B: return MW_REG_R10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: case X86_REG_R11B: return MW_REG_R11;
	case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: case X86_REG_R12B: return MW_REG_R12;
	case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: case X86_REG_R13B: return MW_REG_R13;
	case X86_REG_R14: case X86_REG_R14D: case X86_REG_R14W: case X86_REG_R14B: return MW_REG_R14;
	case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: case X86_REG_R15B: return MW_REG_R15;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:	return SP_FAMILY;
	default:
		return -1;
	}
}

/* The 64-bit form: a copy of the whole value, or an immediate to rsp. */
static bool is_reg64(const cs_x86_op *op)
{
	return op->type == X86_OP_REG && op->size == 8;
}

/*
 * What the skipped code has done so far: where each argument the program
 * reads is now (a set of registers holding it), and how far the stack
 * pointer has moved down from the entry.
 */
struct state {
	uint16_t loc[MW_NARGS];	/* bit r: enum mw_reg r holds argument n + 1 */
	int64_t sp_off;
};

static bool is_branch(csh h, const cs_insn *in)
{
	return cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
	       cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_INT) ||
	       cs_insn_group(h, in, CS_GRP_IRET);
}

/* Instructions with effects the operand lists do not show, or that move
 * the stack pointer in ways not followed here. */
static bool is_unfollowed(unsigned id)
{
	switch (id) {
	case X86_INS_INVALID: case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_HLT: case X86_INS_UD2: case X86_INS_INT3:
	case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFQ: case X86_INS_PUSHF:
	case X86_INS_PUSHFQ: case X86_INS_ENTER: case X86_INS_LEAVE:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_XSAVE: case X86_INS_XSAVEC: case X86_INS_XSAVEOPT: case X86_INS_FXSAVE:
	case X86_INS_CPUID: case X86_INS_RDTSC: case X86_INS_RDTSCP:
		return true;
	default:
		return false;
	}
}

/* An instruction whose first memory operand is only read, or not
 * accessed at all, whatever Capstone's access flags say. */
static bool reads_only(unsigned id)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_LEA: case X86_INS_NOP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHW: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHNTA:
	case X86_INS_BT: case X86_INS_UCOMISD: case X86_INS_UCOMISS:
		return true;
	default:
		return false;
	}
}

/* Stores: only below the entry's stack pointer (the new frame and the
 * red zone), never where the return address or the caller's frame is,
 * or to the object's own data (rip-relative: a counter, a static), which
 * no stack is within reach of. */
static enum mw_step_why check_stores(const cs_insn *in, const struct state *st)
{
	const cs_x86 *x = &in->detail->x86;

	if (x->prefix[0] == X86_PREFIX_LOCK)
		return MW_STEP_STORE;
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		if (!(op->access & CS_AC_WRITE) && (i > 0 || reads_only(in->id)))
			continue;
		if (op->mem.base == X86_REG_RIP && op->mem.index == X86_REG_INVALID &&
		    op->mem.segment == X86_REG_INVALID)
			continue;
		if (op->mem.base != X86_REG_RSP || op->mem.index != X86_REG_INVALID ||
		    op->mem.segment != X86_REG_INVALID ||
		    op->mem.disp + (int64_t)op->size > st->sp_off)
			return MW_STEP_STORE;
	}
	return MW_STEP_NO;
}

/* The stack pointer's move by @in (push reg, sub/add $imm,%rsp), or
 * false if it moves it another way. */
static bool sp_move(const cs_insn *in, int64_t *down)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id == X86_INS_PUSH && x->op_count == 1 && is_reg64(&x->operands[0])) {
		*down = 8;
		return true;
	}
	if ((in->id == X86_INS_SUB || in->id == X86_INS_ADD) && x->op_count == 2 &&
	    x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_RSP &&
	    x->operands[1].type == X86_OP_IMM) {
		*down = in->id == X86_INS_SUB ? x->operands[1].imm : -x->operands[1].imm;
		return true;
	}
	return false;
}

/* Runs @in over @st: MW_STEP_NO if the entry's state stays known. */
static enum mw_step_why step(csh h, const cs_insn *in, const struct mw_needs *needs,
			     struct state *st)
{
	const cs_x86 *x = &in->detail->x86;
	uint16_t clobbered = 0, copied_from = 0;
	int copy_to = -1;
	int64_t down = 0;
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	enum mw_step_why why;

	if (in->id == X86_INS_ENDBR64)
		return MW_STEP_NO;	/* a nop outside an indirect branch */
	if (is_branch(h, in) || is_unfollowed(in->id) || cs_regs_access(h, in, rd, &nrd, wr, &nwr))
		return MW_STEP_INSN;
	if ((why = check_stores(in, st)) != MW_STEP_NO)
		return why;
	for (int i = 0; i < nwr; i++) {
		int f = family((x86_reg)wr[i]);

		if (f == SP_FAMILY) {
			if (!sp_move(in, &down))
				return MW_STEP_INSN;
			if (needs->pinned)
				return MW_STEP_RETURN;
		} else if (f >= 0) {
			clobbered |= (uint16_t)(1u << f);
		}
	}
	if (st->sp_off + down < 0)
		return MW_STEP_INSN;	/* above the entry's frame: not followed */
	if (in->id == X86_INS_MOV && x->op_count == 2 && is_reg64(&x->operands[0]) &&
	    is_reg64(&x->operands[1]) && family(x->operands[1].reg) >= 0) {
		copy_to = family(x->operands[0].reg);
		copied_from = (uint16_t)(1u << family(x->operands[1].reg));
	}
	for (int a = 0; a < MW_NARGS; a++) {
		uint16_t loc = st->loc[a];

		if (!(needs->args & (1u << a)))
			continue;
		st->loc[a] = loc & (uint16_t)~clobbered;
		if (copy_to >= 0 && (loc & copied_from))
			st->loc[a] |= (uint16_t)(1u << copy_to);
		if (!st->loc[a])
			return MW_STEP_ARGUMENT;
	}
	st->sp_off += down;
	return MW_STEP_NO;
}

/* The instruction before an indirect jump tears the frame down (add
 * $imm,%rsp, pop, leave): the jump leaves the function, a tail call
 * through a pointer, not a jump table into it. */
static bool leaves(const cs_insn *before)
{
	const cs_x86 *x = &before->detail->x86;

	if (before->id == X86_INS_POP || before->id == X86_INS_LEAVE)
		return true;
	return before->id == X86_INS_ADD && x->op_count == 2 &&
	       x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_RSP &&
	       x->operands[1].type == X86_OP_IMM;
}

/* True if a branch in the function lands in (0, shift], or its target
 * cannot be known (an indirect jump could land anywhere, unless it is a
 * tail call). */
static bool lands_in(csh h, const cs_insn *insn, size_t n, uint64_t shift)
{
	for (size_t i = 0; i < n; i++) {
		const cs_x86 *x = &insn[i].detail->x86;

		if (!cs_insn_group(h, &insn[i], CS_GRP_JUMP) &&
		    !cs_insn_group(h, &insn[i], CS_GRP_CALL))
			continue;
		if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM) {
			if (cs_insn_group(h, &insn[i], CS_GRP_JUMP) && !(i > 0 && leaves(&insn[i - 1])))
				return true;	/* indirect jump */
			continue;		/* indirect call returns after it */
		}
		if ((uint64_t)x->operands[0].imm > 0 && (uint64_t)x->operands[0].imm <= shift)
			return true;
	}
	return false;
}

void placement__entry(struct mw_placement *out, const struct mw_abi *abi, bool stepped,
		      enum mw_step_why why)
{
	memset(out, 0, sizeof(*out));
	for (int a = 0; a < MW_NARGS; a++)
		out->place.arg[a] = abi ? abi->arg[a] : (uint8_t)a;
	out->stepped = stepped;
	out->why = stepped ? why : MW_STEP_NO;
}

static void describe(struct mw_placement *out, const cs_insn *in)
{
	snprintf(out->insn, sizeof(out->insn), "%.31s%s%.120s", in->mnemonic,
		 in->op_str[0] ? " " : "", in->op_str);
}

/* ------------------------------------------------------ Go's stack check */

#define MW_GO_STACKGUARD	16	/* g.stackguard0, after g.stack */
#define MW_GO_CHECK_INSNS	6	/* the check is among the first */
#define MW_GO_STUB_INSNS	32	/* the morestack stub: spills, call, reloads */

/* The condition code of the jcc at @c (the low nibble of its opcode). */
static uint8_t jcc_cond(const uint8_t *c)
{
	return (uint8_t)((c[0] == 0x0f ? c[1] : c[0]) & 0xf);
}

/* A conditional jump to @in's code: its target, or -1. */
static int64_t jcc_target(csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (!cs_insn_group(h, in, CS_GRP_JUMP) || in->id == X86_INS_JMP ||
	    x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return -1;
	return x->operands[0].imm;
}

/* The stub at @target calls something (runtime.morestack) and jumps back
 * to the function's first instruction. */
static bool restarts(csh h, const cs_insn *insn, size_t n, int64_t target)
{
	bool called = false;

	for (size_t i = 0; i < n; i++) {
		if ((int64_t)insn[i].address != target)
			continue;
		for (size_t k = i; k < n && k < i + MW_GO_STUB_INSNS; k++) {
			const cs_x86 *x = &insn[k].detail->x86;

			if (insn[k].id == X86_INS_CALL)
				called = true;
			else if (insn[k].id == X86_INS_JMP)
				return called && x->op_count == 1 &&
				       x->operands[0].type == X86_OP_IMM && x->operands[0].imm == 0;
			else if (cs_insn_group(h, &insn[k], CS_GRP_RET))
				return false;
		}
		return false;
	}
	return false;
}

/* A compare with the goroutine's stack guard: a memory operand at
 * MW_GO_STACKGUARD from g's register (r14 under the register ABI). */
static bool compares_guard(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id != X86_INS_CMP)
		return false;
	for (int k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];

		if (op->type == X86_OP_MEM && op->mem.disp == MW_GO_STACKGUARD &&
		    op->mem.index == X86_REG_INVALID && op->mem.base != X86_REG_RIP &&
		    op->mem.base != X86_REG_INVALID)
			return true;
	}
	return false;
}

/*
 * Go's prologue compares the stack pointer (or sp less the frame, in r12)
 * with g.stackguard0 and, when the stack must grow (or the scheduler asks
 * for the goroutine), jumps to a stub that calls runtime.morestack and
 * jumps back to the first instruction: an entry probe would see such a
 * call twice. The probe goes on that jcc (emulated) instead, with its
 * condition as the guard: the BPF program counts the hit only when the
 * jump will not be taken. Returns true if the function has the check.
 */
static bool go_stack_check(csh h, const uint8_t *code, const cs_insn *insn, size_t n,
			   const struct mw_needs *needs, struct state *st,
			   struct mw_placement *out)
{
	for (size_t i = 0; i + 1 < n && i < MW_GO_CHECK_INSNS; i++) {
		const cs_insn *jcc = &insn[i + 1];
		int64_t target;

		if (!compares_guard(&insn[i]))
			continue;
		target = jcc_target(h, jcc);
		if (target <= (int64_t)jcc->address || !restarts(h, insn, n, target) ||
		    !placement__emulated(code + jcc->address, jcc->size))
			return false;
		out->shift = jcc->address;
		out->place.guard = (uint8_t)(1 + jcc_cond(code + jcc->address));
		/* what runs before it: the compare, and r12 = sp - frame */
		for (size_t k = 0; k <= i; k++) {
			if (cs_insn_group(h, &insn[k], CS_GRP_JUMP))
				continue;	/* a huge frame's underflow check */
			if (step(h, &insn[k], needs, st) != MW_STEP_NO) {
				describe(out, &insn[k]);
				out->stepped = false;
				out->why = MW_STEP_LOST;	/* not to be probed */
				return true;
			}
		}
		out->place.sp_off = (int32_t)st->sp_off;
		for (int a = 0; a < MW_NARGS; a++)
			if (needs->args & (1u << a))
				out->place.arg[a] = (uint8_t)__builtin_ctz(st->loc[a]);
		out->stepped = false;
		out->why = MW_STEP_NO;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------ placement */

void placement__find(const uint8_t *code, size_t size, const struct mw_needs *needs,
		     struct mw_placement *out)
{
	struct state st = { .sp_off = 0 };
	enum mw_step_why why = MW_STEP_FAR;
	size_t n = 0, i, to = 0;	/* to: the emulated instruction reached */
	bool go = needs->abi && needs->abi->go;
	cs_insn *insn = NULL;
	csh h;

	placement__entry(out, needs->abi, !placement__emulated(code, size), MW_STEP_UNDECODED);
	if ((!out->stepped && !go) || !size || size > MW_MAX_FUNC_BYTES ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(h, code, size, 0, 0, &insn);
	for (int a = 0; a < MW_NARGS; a++)
		st.loc[a] = (uint16_t)(1u << out->place.arg[a]);
	if (go && go_stack_check(h, code, insn, n, needs, &st, out)) {
		if (n)
			cs_free(insn, n);
		cs_close(&h);
		return;
	}
	/* Go code without a check whose entry is emulated stays there */
	for (i = out->stepped ? 0 : n;
	     i < n && i < MW_MAX_SKIP_INSNS && insn[i].address < MW_MAX_SKIP_BYTES; i++) {
		if (placement__emulated(code + insn[i].address, size - insn[i].address)) {
			to = insn[i].address;
			break;
		}
		why = step(h, &insn[i], needs, &st);
		if (why != MW_STEP_NO) {
			describe(out, &insn[i]);
			break;
		}
		why = MW_STEP_FAR;
	}
	if (!n) {
		why = MW_STEP_UNDECODED;
	} else if (to && lands_in(h, insn, n, to)) {
		why = MW_STEP_LANDS;
	} else if (to) {
		out->shift = to;
		out->place.sp_off = (int32_t)st.sp_off;
		for (int a = 0; a < MW_NARGS; a++)
			if (needs->args & (1u << a))
				out->place.arg[a] = (uint8_t)__builtin_ctz(st.loc[a]);
		out->stepped = false;
		out->why = MW_STEP_NO;
	}
	if (out->stepped)
		out->why = why;
	if (n)
		cs_free(insn, n);
	cs_close(&h);
}

const char *placement__why(const struct mw_placement *p, char *buf, size_t len)
{
	switch (p->why) {
	case MW_STEP_NO:
		snprintf(buf, len, "emulated");
		break;
	case MW_STEP_ASKED:
		snprintf(buf, len, "--probe-entry keeps every probe at the entry");
		break;
	case MW_STEP_RETURN:
		snprintf(buf, len, "its return probe needs the return address on top of the stack, and '%s' moves the stack pointer first", p->insn);
		break;
	case MW_STEP_ARGUMENT:
		snprintf(buf, len, "'%s' overwrites an argument memwatch reads", p->insn);
		break;
	case MW_STEP_STORE:
		snprintf(buf, len, "'%s' may store into the caller's frame", p->insn);
		break;
	case MW_STEP_INSN:
		snprintf(buf, len, "'%s' comes before any instruction the kernel emulates", p->insn);
		break;
	case MW_STEP_FAR:
		snprintf(buf, len, "no instruction the kernel emulates within %d bytes of the entry", MW_MAX_SKIP_BYTES);
		break;
	case MW_STEP_LANDS:
		snprintf(buf, len, "a branch of the function lands in its first instructions");
		break;
	case MW_STEP_UNDECODED:
		snprintf(buf, len, "its code could not be read or decoded");
		break;
	case MW_STEP_HERE:
		snprintf(buf, len, "an inlined copy is probed where it starts, on '%s'", p->insn);
		break;
	case MW_STEP_LOST:
		snprintf(buf, len, "'%s', before its stack check, overwrites an argument memwatch reads", p->insn);
		break;
	}
	return buf;
}

/* True if @addr lies in one of the @n parts. */
static bool in_parts(const struct mw_code_part *parts, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= parts[i].offset && addr - parts[i].offset < parts[i].size)
			return true;
	return false;
}

int placement__returns(const struct mw_code_part *parts, size_t nparts,
		       uint64_t *out, size_t max)
{
	int found = 0;
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -1;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	for (size_t p = 0; p < nparts && found >= 0; p++) {
		const struct mw_code_part *part = &parts[p];
		size_t n, end = 0;
		cs_insn *insn;

		if (!part->size || part->size > MW_MAX_FUNC_BYTES) {
			found = -1;
			break;
		}
		n = cs_disasm(h, part->code, part->size, part->offset, 0, &insn);
		for (size_t i = 0; i < n && found >= 0; i++) {
			const cs_x86 *x = &insn[i].detail->x86;

			end = insn[i].address + insn[i].size - part->offset;
			if (cs_insn_group(h, &insn[i], CS_GRP_RET)) {
				if ((size_t)found == max)
					found = -1;
				else
					out[found++] = insn[i].address;
			} else if (cs_insn_group(h, &insn[i], CS_GRP_JUMP) &&
				   x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
				   !in_parts(parts, nparts, (uint64_t)x->operands[0].imm)) {
				found = -1;	/* a tail call: it leaves without a ret */
			}
		}
		if (end != part->size)	/* undecodable bytes: unsure */
			found = -1;
		if (n)
			cs_free(insn, n);
	}
	cs_close(&h);
	return found;
}

/* @size bytes at file offset @offset of @path, or NULL (unreadable). */
static uint8_t *read_code(const char *path, uint64_t offset, uint64_t size)
{
	uint8_t *code = malloc(size);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = code && fd >= 0 &&
		  pread(fd, code, size, (off_t)offset) == (ssize_t)size;

	if (fd >= 0)
		close(fd);
	if (!ok) {
		free(code);
		return NULL;
	}
	return code;
}

void placement__find_file(const char *path, uint64_t offset, uint64_t size,
			  const struct mw_needs *needs, struct mw_placement *out)
{
	uint8_t *code = NULL;

	if (size && size <= MW_MAX_FUNC_BYTES)
		code = read_code(path, offset, size);
	if (!code) {
		placement__entry(out, needs->abi, true, MW_STEP_UNDECODED);	/* unknown: say so */
		return;
	}
	placement__find(code, size, needs, out);
	free(code);
}

void placement__here_file(const char *path, uint64_t offset, const struct mw_abi *abi,
			  struct mw_placement *out)
{
	uint8_t *code = read_code(path, offset, MW_INSN_BYTES);
	bool emulated = code && placement__emulated(code, MW_INSN_BYTES);
	cs_insn *insn = NULL;
	csh h;

	placement__entry(out, abi, !emulated, emulated ? MW_STEP_NO : MW_STEP_HERE);
	snprintf(out->insn, sizeof(out->insn), "?");
	if (code && cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK) {
		if (cs_disasm(h, code, MW_INSN_BYTES, 0, 1, &insn) == 1) {
			describe(out, insn);
			cs_free(insn, 1);
		}
		cs_close(&h);
	}
	free(code);
}

bool placement__starts_insn(const char *path, uint64_t fn, uint64_t size, uint64_t at)
{
	uint8_t *code = size && size <= MW_MAX_FUNC_BYTES ? read_code(path, fn, size) : NULL;
	cs_insn *insn = NULL;
	bool found = false;
	size_t n = 0;
	csh h;

	if (!code || at < fn || at >= fn + size || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		free(code);
		return false;
	}
	n = cs_disasm(h, code, size, 0, 0, &insn);
	for (size_t i = 0; i < n && !found && insn[i].address <= at - fn; i++)
		found = insn[i].address == at - fn;
	if (n)
		cs_free(insn, n);
	cs_close(&h);
	free(code);
	return found;
}

int placement__returns_file(const char *path, struct mw_code_part *parts,
			    size_t nparts, uint64_t *out, size_t max)
{
	int n = -1;
	size_t i;

	for (i = 0; i < nparts; i++)
		if (parts[i].size > MW_MAX_FUNC_BYTES ||
		    !(parts[i].code = read_code(path, parts[i].offset, parts[i].size)))
			break;
	if (i == nparts)
		n = placement__returns(parts, nparts, out, max);
	while (i-- > 0) {
		free((void *)parts[i].code);
		parts[i].code = NULL;
	}
	return n;
}
