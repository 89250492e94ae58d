// SPDX-License-Identifier: GPL-2.0
/*
 * stackwalk.c - one stack walked by the unwind tables. Each frame: the row of
 * the table that covers the frame's address (a return address minus one:
 * the call, not what follows it), the CFA from %rsp or %rbp by its rule,
 * the return address at CFA-8, %rbp from where the row says it was
 * saved, and %rsp the CFA. Nothing is guessed: a frame without a row
 * ends the walk, as truncated.
 */
#include "stacks/stackwalk.h"

static const struct mw_unwind_map *map_of(const struct mw_unwind_map *m, size_t n, uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < m[mid].start)
			hi = mid;
		else if (ip >= m[mid].end)
			lo = mid + 1;
		else
			return &m[mid];
	}
	return NULL;
}

/* The canonical frame address of the frame at @ip by @row. */
static uint64_t cfa_of(const struct mw_cfi_row *row, const struct mw_regs *r, uint64_t ip)
{
	switch (row->kind) {
	case MW_CFA_RSP:
		return r->sp + (uint64_t)(int64_t)row->off;
	case MW_CFA_RBP:
		return r->bp + (uint64_t)(int64_t)row->off;
	case MW_CFA_PLT:
		return r->sp + (uint64_t)(int64_t)row->off + ((ip & 15) >= row->plt ? 8 : 0);
	}
	return 0;
}

int stackwalk__run(const struct mw_unwind_map *maps, size_t nmaps, mw_stack_read read,
		   void *ctx, struct mw_regs regs, uint64_t *frames, int max,
		   enum mw_walk_end *end)
{
	int n = 0;

	*end = MW_WALK_DEPTH;
	if (max <= 0)
		return 0;
	frames[n++] = regs.ip;
	while (n < max) {
		/* past frame 0, the address is a return: its call is before it */
		uint64_t at = n > 1 ? regs.ip - 1 : regs.ip;
		const struct mw_unwind_map *m = map_of(maps, nmaps, at);
		const struct mw_cfi_row *row;
		uint64_t cfa, ra, vaddr;

		*end = MW_WALK_TRUNCATED;
		if (!m)
			return n;
		vaddr = elfsym__offset_to_vaddr(m->elf, at - m->start + m->offset);
		row = vaddr ? cfi__find(m->cfi, vaddr) : NULL;
		if (!row)
			return n;
		if (row->kind == MW_CFA_END) {
			*end = MW_WALK_ROOT;
			return n;
		}
		if (row->kind == MW_CFA_OTHER)
			return n;
		cfa = cfa_of(row, &regs, regs.ip);
		if (read(ctx, cfa - 8, &ra, sizeof(ra)))
			return n;
		if (row->rbp && read(ctx, cfa + (uint64_t)(int64_t)row->rbp, &regs.bp,
				     sizeof(regs.bp)))
			return n;
		if (!ra) {	/* a zeroed return address closes the chain */
			*end = MW_WALK_ROOT;
			return n;
		}
		regs.sp = cfa;
		regs.ip = ra;
		frames[n++] = ra;
		*end = MW_WALK_DEPTH;
	}
	return n;
}
