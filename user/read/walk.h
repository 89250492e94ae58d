/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - a plan (plan.h) run against a live target's memory: the
 * root's address in the running process, each pointer read anew, then
 * what the plan ends on: an integer, or a container's header, from which
 * its length and own buffers follow. What it reads may change under it:
 * a header is read twice and must read the same, every field is checked
 * against the others and the address space, and a buffer must be mapped.
 * A walk that finds otherwise is retried a few times, then failed: never
 * a wrong figure.
 */
#ifndef MW_WALK_H
#define MW_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "read/plan.h"

#define MW_WALK_TRIES	3	/* a walk whose memory changed under it */

struct mw_reading {
	int64_t length;		/* the integer, or the container's elements */
	uint64_t retained;	/* heap bytes owned: its buffers, the Boxes
				 * and shared blocks on the way */
	bool retained_known;	/* retained holds every byte it owns; false
				 * when its elements own memory of their own */
};

/* Runs @p in @pid from the root's address there, @start (a variable's
 * link-time address plus its object's load bias; a parameter's value). 0; -EFAULT when a pointer led nowhere
 * every try (a null, or memory not mapped: the structure changed under
 * the walk, or is not there yet); -EAGAIN when what it read never held
 * together (a header torn by a writer, or not the type it should be);
 * -ESRCH once the process is gone. */
int walk__run(pid_t pid, const struct mw_plan *p, uint64_t start, struct mw_reading *out);

/* The same over a header already in memory, @hdr (@p->shape.span bytes)
 * read at @addr: what the fuzzer drives. Buffers are not probed. */
int walk__header(const struct mw_shape *s, const uint8_t *hdr, uint64_t addr,
		 struct mw_reading *out);

#endif
