/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - a plan (plan.h) run against a live target's memory: the
 * root's address in the running process, each pointer read anew, the
 * integer at the end. What it reads may change under it: a pointer into
 * memory no longer mapped is a failed walk, retried a few times, never
 * a wrong figure.
 */
#ifndef MW_WALK_H
#define MW_WALK_H

#include <stdint.h>
#include <sys/types.h>
#include "read/plan.h"

#define MW_WALK_TRIES	3	/* a walk whose memory changed under it */

/* Runs @p in @pid, whose object holding the root is loaded @bias bytes
 * from its link-time addresses: the integer into @value. 0; -EFAULT when
 * a pointer led nowhere every try (a null, or memory not mapped: the
 * structure changed under the walk, or is not there yet); -ESRCH once the
 * process is gone. */
int walk__integer(pid_t pid, const struct mw_plan *p, uint64_t bias, int64_t *value);

#endif
