/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackwalk.h - a stack walked with the mapped objects' unwind tables (cfi.h),
 * from a thread's %rip, %rsp and %rbp, through its memory, one frame at a
 * time: the walk the BPF program will make at an allocation, here in user
 * space, where it is checked against the target's own backtrace(3).
 */
#ifndef MW_STACKWALK_H
#define MW_STACKWALK_H

#include <stddef.h>
#include <stdint.h>
#include "stacks/cfi.h"
#include "symbols/elfsym.h"

struct mw_regs {
	uint64_t ip, sp, bp;
};

/* An executable mapping of an object, with its table. */
struct mw_unwind_map {
	uint64_t start, end;	/* mapped addresses */
	uint64_t offset;	/* file offset of start */
	const struct mw_elf *elf;	/* file offsets to link-time addresses */
	const struct mw_cfi *cfi;
};

/* How a walk ended. */
enum mw_walk_end {
	MW_WALK_ROOT,		/* at a thread's outermost frame: whole */
	MW_WALK_TRUNCATED,	/* no table row, or a rule it cannot follow,
				 * or memory it cannot read */
	MW_WALK_DEPTH,		/* @max frames */
};

/* Reads @len bytes at @addr of the walked thread's memory; 0 or -errno. */
typedef int (*mw_stack_read)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * Walks from @regs through @maps (sorted by start): the frames' addresses
 * into @frames, leaf first (frame 0 is @regs.ip, then each return
 * address), at most @max. Returns how many; *@end says why it stopped.
 */
int stackwalk__run(const struct mw_unwind_map *maps, size_t nmaps, mw_stack_read read,
		   void *ctx, struct mw_regs regs, uint64_t *frames, int max,
		   enum mw_walk_end *end);

#endif
