// SPDX-License-Identifier: GPL-2.0
/*
 * calls.c - the calls array's user-space side. A thread holds its index
 * of the array while one of its allocator calls is open and lets it go
 * at the call's return (bpf/memwatch.bpf.c, call_hold). A thread that
 * dies inside a call, killed with its process or by another thread's
 * execve while it was in malloc, never returns: its index stays held, and
 * the threads that share it record their calls in their task storage, the
 * slower way, until memwatch lets it go here, once an interval. Held
 * indices are the calls open at that instant, a handful at most; a
 * thread is gone when /proc has no task of that id in its process.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "memwatch.h"		/* before the skeleton: its types */
#include "memwatch.skel.h"
#include "sample/calls.h"

size_t calls__let_go(struct mw_call_slot *v, size_t n, mw_thread_gone_fn gone)
{
	size_t freed = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t owner = __atomic_load_n(&v[i].owner, __ATOMIC_ACQUIRE);

		if (!owner || owner == MW_CALL_LETTING_GO ||
		    !gone((uint32_t)(owner >> 32), (uint32_t)owner))
			continue;
		/* held by no thread while its call is closed (a thread given
		 * the same id meanwhile cannot take it half-closed), then let
		 * go, as the holder does: the call closed before the index */
		if (!__atomic_compare_exchange_n(&v[i].owner, &owner, MW_CALL_LETTING_GO, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&v[i].call.sp, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&v[i].owner, 0, __ATOMIC_RELEASE);
		freed++;
	}
	return freed;
}

static bool thread_gone(uint32_t tgid, uint32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u", tgid, tid);
	return access(path, F_OK) && errno == ENOENT;
}

int calls__map(struct mw_calls *c, struct memwatch_bpf *skel)
{
	size_t n = bpf_map__max_entries(skel->maps.calls);
	void *v;

	v = mmap(NULL, n * sizeof(*c->v), PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(skel->maps.calls), 0);
	if (v == MAP_FAILED) {
		*c = (struct mw_calls){ 0 };
		return -errno;
	}
	*c = (struct mw_calls){ .v = v, .n = n };
	return 0;
}

size_t calls__sweep(struct mw_calls *c)
{
	return c->v ? calls__let_go(c->v, c->n, thread_gone) : 0;
}

void calls__unmap(struct mw_calls *c)
{
	if (c->v)
		munmap(c->v, c->n * sizeof(*c->v));
	c->v = NULL;
}
