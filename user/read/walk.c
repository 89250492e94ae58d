// SPDX-License-Identifier: GPL-2.0
/*
 * walk.c - a plan's steps over the target's memory, with process_vm_readv
 * (process/memory.h): each deref reads one pointer, the end one integer.
 * Every address is checked against the user range before it is read.
 */
#include <errno.h>
#include <string.h>
#include "process/memory.h"
#include "read/walk.h"

/* One try: 0, -EFAULT, -ESRCH or -EPERM. */
static int walk_once(pid_t pid, const struct mw_plan *p, uint64_t bias, int64_t *value)
{
	uint64_t addr = p->root + bias, u = 0;
	int err;

	for (int i = 0; i < p->nsteps; i++) {
		if (p->step[i].op == MW_PLAN_ADD) {
			addr += (uint64_t)p->step[i].n;
			continue;
		}
		if (!memory__range_ok(addr, sizeof(addr)))
			return -EFAULT;
		err = memory__read(pid, addr, &addr, sizeof(addr));
		if (err)
			return err;
	}
	if (!memory__range_ok(addr, p->size))
		return -EFAULT;
	err = memory__read(pid, addr, &u, p->size);	/* little-endian */
	if (err)
		return err;
	if (p->is_signed && p->size < 8 && (u >> (p->size * 8 - 1) & 1))
		u |= ~0ull << (p->size * 8);
	*value = (int64_t)u;
	return 0;
}

int walk__integer(pid_t pid, const struct mw_plan *p, uint64_t bias, int64_t *value)
{
	int err = -EFAULT;

	for (int i = 0; i < MW_WALK_TRIES && err == -EFAULT; i++)
		err = walk_once(pid, p, bias, value);
	return err;
}
