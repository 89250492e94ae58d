// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - move a probe past leading instructions that the kernel
 * would single-step, when that changes nothing the BPF programs see; and
 * find where a function returns. The decoding is Capstone's (Debian's
 * libcapstone-dev), not ours.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "placement.h"

#define MW_MAX_SKIP_BYTES	32	/* look no further for an emulated one */
#define MW_MAX_FUNC_BYTES	65536	/* functions larger are not scanned */

/* Registers the BPF programs read at entry (the six integer arguments)
 * and the stack pointer that pairs entries with returns. */
static bool is_watched(x86_reg r)
{
	switch (r) {
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH:
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH:
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B:
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B:
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return true;
	default:
		return false;
	}
}

static bool is_branch(csh h, const cs_insn *in)
{
	return cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
	       cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_INT) ||
	       cs_insn_group(h, in, CS_GRP_IRET);
}

/* Instructions the x86 uprobe code emulates rather than single-steps. */
static bool is_emulated(csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_NOP:	/* ret is not: it is single-stepped */
		return true;
	case X86_INS_PUSH:	/* push of a register */
		return x->op_count == 1 && x->operands[0].type == X86_OP_REG;
	case X86_INS_JMP:
	case X86_INS_CALL:	/* direct, relative */
		return x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE:
	case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP:
	case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP: case X86_INS_JS:
		return true;	/* conditional jumps; not jrcxz or loop */
	default:
		return false;
	}
}

/* Straight-line, and writes nothing the programs read. */
static bool is_skippable(csh h, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (is_branch(h, in) || in->id == X86_INS_SYSCALL || in->id == X86_INS_INVALID)
		return false;
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr))
		return false;
	for (int i = 0; i < nwr; i++)
		if (is_watched((x86_reg)wr[i]))
			return false;
	return true;
}

/* True if a branch in the function lands in (0, shift], or its target
 * cannot be known (an indirect jump could land anywhere). */
static bool lands_in(csh h, const cs_insn *insn, size_t n, uint64_t shift)
{
	for (size_t i = 0; i < n; i++) {
		const cs_x86 *x = &insn[i].detail->x86;

		if (!cs_insn_group(h, &insn[i], CS_GRP_JUMP) &&
		    !cs_insn_group(h, &insn[i], CS_GRP_CALL))
			continue;
		if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM) {
			if (cs_insn_group(h, &insn[i], CS_GRP_JUMP))
				return true;	/* indirect jump */
			continue;		/* indirect call returns after it */
		}
		if ((uint64_t)x->operands[0].imm > 0 && (uint64_t)x->operands[0].imm <= shift)
			return true;
	}
	return false;
}

size_t placement__shift(const uint8_t *code, size_t size)
{
	size_t n, shift = 0, i;
	cs_insn *insn;
	csh h;

	if (!size || size > MW_MAX_FUNC_BYTES ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(h, code, size, 0, 0, &insn);
	for (i = 0; i < n && !is_emulated(h, &insn[i]); i++) {
		if (!is_skippable(h, &insn[i]) || insn[i].address >= MW_MAX_SKIP_BYTES)
			break;
	}
	/* the first emulated instruction, reached only by skippable ones,
	 * and no decoding gap (cs_disasm stops at undecodable bytes) */
	if (i > 0 && i < n && is_emulated(h, &insn[i]) &&
	    insn[i].address < MW_MAX_SKIP_BYTES &&
	    !lands_in(h, insn, n, insn[i].address))
		shift = (size_t)insn[i].address;
	if (n)
		cs_free(insn, n);
	cs_close(&h);
	return shift;
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

size_t placement__shift_file(const char *path, uint64_t offset, uint64_t size)
{
	uint8_t *code;
	size_t shift;

	if (!size || size > MW_MAX_FUNC_BYTES || !(code = read_code(path, offset, size)))
		return 0;
	shift = placement__shift(code, size);
	free(code);
	return shift;
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
