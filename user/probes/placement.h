/* SPDX-License-Identifier: GPL-2.0 */
/*
 * placement.h - where to put a function's probe. The kernel emulates some
 * instructions under a uprobe (push, jmp, jcc, call, nop) and must
 * single-step the others (ret among them; ~45x dearer here): glibc's free
 * starts with test %rdi,%rdi. When it is provably the same as the entry,
 * the probe goes on the first emulated instruction instead.
 */
#ifndef MW_PLACEMENT_H
#define MW_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The offset past a function's start at which probing is equivalent to
 * probing its entry, for a function whose machine code is @code[0..size):
 * every skipped instruction is straight-line, writes neither an argument
 * register nor the stack pointer, and no branch in the function lands in
 * the skipped range or on the new address. 0 when unsure.
 */
size_t placement__shift(const uint8_t *code, size_t size);

/* The same for the function at file offset @offset of @path, @size bytes
 * long (read from the file). 0 when unsure or unreadable. */
size_t placement__shift_file(const char *path, uint64_t offset, uint64_t size);

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
