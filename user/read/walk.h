/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - a plan (plan.h) run against a target's memory: the root's
 * address, each pointer on the path read anew, then what the plan ends
 * on: an integer; a container, its header read whole and decoded
 * (decode.h), its elements walked for what they own (elements.h); or a
 * struct's fields. What it reads may change under it: the top header is
 * read again at the end and must read the same, every header is checked,
 * every buffer must be mapped. A walk that finds otherwise is retried a
 * few times, then failed: never a wrong figure.
 */
#ifndef MW_WALK_H
#define MW_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "process/procmaps.h"
#include "read/plan.h"

#define MW_WALK_TRIES	3	/* a walk whose memory changed under it */

/* Where a walk reads: a live process, or (the fuzzer) an image. */
struct mw_mem {
	/* @len bytes at @addr into @buf: 0, -EFAULT (not mapped), -ESRCH
	 * (the process is gone), -EPERM */
	int (*read)(const struct mw_mem *m, uint64_t addr, void *buf, size_t len);
	pid_t pid;
	const void *image;
	/* the target's mappings when known (sorted): a buffer a header claims
	 * is checked against them, not read */
	const struct mw_maps *maps;
};

/* @m reading process @pid's memory, with process_vm_readv. */
void walk__process(struct mw_mem *m, pid_t pid);

struct mw_reading {
	int64_t length;		/* the integer, or the container's elements */
	bool length_known;	/* false for a struct, which has no length */
	uint64_t retained;	/* heap bytes owned: its buffers, the Boxes and
				 * shared blocks on the way, what its elements own */
	uint64_t visited;	/* elements, nodes and blocks the walk went through */
};

/* Runs @p in @m from the root's address there, @start (a variable's
 * link-time address plus its object's load bias; a parameter's value),
 * visiting at most @limit elements, nodes and blocks. 0; -EFAULT when a
 * pointer led nowhere every try (a null, or memory not mapped: the
 * structure changed under the walk, or is not there yet); -EAGAIN when
 * what it read never held together (a header torn by a writer, or not
 * the type it should be); -E2BIG past @limit; -ESRCH once the process is
 * gone; -ENOMEM. */
int walk__run(const struct mw_mem *m, const struct mw_plan *p, uint64_t start, uint64_t limit,
	      struct mw_reading *out);

#endif
