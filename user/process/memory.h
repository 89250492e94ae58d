/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memory.h - a target's memory, read from outside with process_vm_readv
 * (the target is never stopped and never written), within the user
 * address range. Whoever reads a live process must expect what it reads
 * to change, or vanish, under it.
 */
#ifndef MW_MEMORY_H
#define MW_MEMORY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Lowest and one past the highest user address followed (x86-64,
 * generous enough for 5-level paging); sizes above it are garbage too. */
#define MW_USER_ADDR_MIN	4096ull
#define MW_USER_ADDR_END	(1ull << 56)

/* Reads @len bytes at @addr of @pid. 0; -EFAULT when the range is not
 * (wholly) mapped, which to a walk means "changed under us"; -ESRCH, -EPERM. */
static inline int memory__read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno == ENOMEM ? -EFAULT : -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* Whether [@addr, @addr + @len) can be a user range at all. */
static inline bool memory__range_ok(uint64_t addr, uint64_t len)
{
	return addr >= MW_USER_ADDR_MIN && addr < MW_USER_ADDR_END &&
	       len <= MW_USER_ADDR_END - addr;
}

#endif
