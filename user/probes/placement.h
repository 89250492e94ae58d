/* SPDX-License-Identifier: GPL-2.0 */
/*
 * placement.h - where to put a function's probe. The kernel emulates a few
 * instructions under a uprobe (push reg, direct jmp/call, jcc, canonical
 * nops) and must single-step every other (ret among them; ~45x dearer
 * here): glibc's free starts with test %rdi,%rdi, jemalloc's with two
 * movs. The probe goes on the first emulated instruction instead, with
 * what the BPF program needs to recover the entry's state.
 */
#ifndef MW_PLACEMENT_H
#define MW_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "memwatch.h"

/* Where a function's integer arguments are at its entry: System V's
 * registers for C, C++ and Rust; Go's own (golang.h) for Go code. */
struct mw_abi {
	uint8_t arg[MW_NARGS];	/* enum mw_reg holding argument n + 1 */
	bool go;		/* Go code: its prologue's stack check may call
				 * runtime.morestack, which copies the stack and
				 * restarts the function at its first instruction */
};

/* What a probe's BPF program reads at the entry of its function. */
struct mw_needs {
	uint8_t args;		/* bit n: integer argument n + 1 */
	bool pinned;		/* it has a return probe: the kernel takes the
				 * return address from [rsp] when it hits, so
				 * the stack pointer must not have moved */
	const struct mw_abi *abi;	/* NULL: System V's */
};

/* Why a probe stays on an instruction the kernel single-steps. */
enum mw_step_why {
	MW_STEP_NO,		/* it does not: the probed instruction is emulated */
	MW_STEP_ASKED,		/* --probe-entry */
	MW_STEP_RETURN,		/* the stack pointer moves before an emulated
				 * instruction, and a return probe needs it */
	MW_STEP_ARGUMENT,	/* an argument the program reads is overwritten */
	MW_STEP_STORE,		/* a store that may reach the caller's frame */
	MW_STEP_INSN,		/* an instruction not followed (ret, indirect
				 * branch, pop, string op, ...) */
	MW_STEP_FAR,		/* no emulated instruction near the entry */
	MW_STEP_LANDS,		/* a branch lands in the code that would be skipped */
	MW_STEP_UNDECODED,	/* the code could not be read or decoded */
	MW_STEP_HERE,		/* probed where it must be: an inlined copy */
	MW_STEP_LOST,		/* Go: an argument read is overwritten before
				 * the stack check, so no probe can see it
				 * (with stepped false: not to be probed) */
};

struct mw_placement {
	uint64_t shift;		/* bytes past the function's start */
	struct mw_place place;	/* the entry's state there (memwatch.h) */
	bool stepped;		/* the probed instruction is single-stepped */
	enum mw_step_why why;	/* then why */
	char insn[160];		/* the instruction that stopped the search */
};

/*
 * Where to probe the function whose machine code is @code[0..size): on
 * its first instruction if the kernel emulates it; else on the first
 * emulated one reached by straight-line code that keeps the entry's state
 * recoverable for @needs (placement.c says how), when no branch of the
 * function lands in between. Otherwise at the entry, single-stepped.
 * Go code with a stack check is probed on the check's jcc, with a guard
 * (memwatch.h): a call is then seen once, however often it restarts.
 */
void placement__find(const uint8_t *code, size_t size, const struct mw_needs *needs,
		     struct mw_placement *out);
/* The same for the function at file offset @offset of @path, @size bytes
 * long (read from the file). */
void placement__find_file(const char *path, uint64_t offset, uint64_t size,
			  const struct mw_needs *needs, struct mw_placement *out);
/* Whether an instruction starts at file offset @at of the function at
 * @path+@fn, @size bytes long (decoded from its start). */
bool placement__starts_insn(const char *path, uint64_t fn, uint64_t size, uint64_t at);
/* @out: on the instruction at @path+@offset, never moved (arguments where
 * @abi puts them): stepped unless the kernel emulates it. */
void placement__here_file(const char *path, uint64_t offset, const struct mw_abi *abi,
			  struct mw_placement *out);
/* @out: at the function's entry (arguments where @abi puts them; NULL:
 * System V), @stepped or not, for @why. */
void placement__entry(struct mw_placement *out, const struct mw_abi *abi, bool stepped,
		      enum mw_step_why why);
/* Whether the x86 uprobe code of Linux 6.18 emulates the instruction at
 * @code (@len bytes available) instead of single-stepping it. */
bool placement__emulated(const uint8_t *code, size_t len);
/* Whether the running kernel emulates the multi-byte nops (0f 1f ...;
 * Linux 6.18 does, 6.1 does not; calibrate__nops finds out): true
 * until told. nop (90) is emulated everywhere. */
void placement__nops_emulated(bool emulated);
/* One phrase for @p's why, e.g. "a return probe needs [rsp] before
 * sub $0x28,%rsp", for the single-stepped warning. */
const char *placement__why(const struct mw_placement *p, char *buf, size_t len);

/* One part of a function's machine code: its bytes and where they are. */
struct mw_code_part {
	const uint8_t *code;
	uint64_t offset;	/* of code[0]: a file offset, or any base */
	uint64_t size;
};

/*
 * Where a function returns: the offsets of the return instructions in
 * its @nparts parts (its body, and the .cold part GCC splits off) into
 * @out, at most @max. Returns how many, or -1 when it may also leave
 * another way (a direct jump out of its parts: a tail call) or cannot be
 * decoded to its end. Indirect jumps are taken for jump tables inside it.
 */
int placement__returns(const struct mw_code_part *parts, size_t nparts,
		       uint64_t *out, size_t max);
/* The same for a function in the file @path: each part's code is read
 * from its file offset (and left NULL again). -1 also when unreadable. */
int placement__returns_file(const char *path, struct mw_code_part *parts,
			    size_t nparts, uint64_t *out, size_t max);

#endif
