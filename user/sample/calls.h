/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calls.h - the calls array's user-space side (struct mw_call_slot in
 * memwatch.h): letting go of the indices that threads which died inside
 * an allocator call still hold.
 */
#ifndef MW_CALLS_H
#define MW_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memwatch_bpf;
struct mw_call_slot;

/* Whether thread @tid of process @tgid is gone. */
typedef bool (*mw_thread_gone_fn)(uint32_t tgid, uint32_t tid);

/* Lets go of each of the @n records of @v held by a thread @gone says is
 * gone: its call closed, then its holder cleared (compare-and-swap, so
 * that a record taken meanwhile is left alone). Returns how many. */
size_t calls__let_go(struct mw_call_slot *v, size_t n, mw_thread_gone_fn gone);

/* The calls array mapped into memwatch for the session: mapped once, as
 * a sweep each interval that mapped it anew (two system calls, 100 times
 * a second at -i 0.01) made memwatch's RSS 512 kB higher while it was
 * mapped, and a reading of it then looked like growth. */
struct mw_calls {
	struct mw_call_slot *v;	/* NULL: not mapped */
	size_t n;
};

/* Maps @skel's calls array into @c: 0 or -errno. */
int calls__map(struct mw_calls *c, struct memwatch_bpf *skel);
/* calls__let_go over @c, with threads looked up in /proc: how many (none
 * if it is not mapped). */
size_t calls__sweep(struct mw_calls *c);
void calls__unmap(struct mw_calls *c);

#endif
