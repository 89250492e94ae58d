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
/* The same on @skel's calls array, mapped into memwatch, with threads
 * looked up in /proc: how many, or -errno. */
int calls__sweep(struct memwatch_bpf *skel);

#endif
