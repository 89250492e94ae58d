/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibcmem.h - what glibc's view reads through, shared by glibcview.c (the
 * arena walk) and glibcid.c (the libc's identity): the target's memory with
 * process_vm_readv, within the user address range, and regular files only.
 * Internal to those files; the view's API is glibcview.h.
 */
#ifndef MW_GLIBCMEM_H
#define MW_GLIBCMEM_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Lowest and one past the highest user address glibc's view follows
 * (x86-64, generous enough for 5-level paging); sizes above it are garbage
 * too. */
#define MW_USER_ADDR_MIN	4096ull
#define MW_USER_ADDR_END	(1ull << 56)

/* Reads @len bytes at @addr of @pid. 0; -EFAULT when the range is not
 * (wholly) mapped, which to a walk means "changed under us"; -ESRCH, -EPERM. */
static inline int glibcmem__read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno == ENOMEM ? -EFAULT : -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static inline bool glibcmem__range_ok(uint64_t addr, uint64_t len)
{
	return addr >= MW_USER_ADDR_MIN && addr < MW_USER_ADDR_END &&
	       len <= MW_USER_ADDR_END - addr;
}

/* Opens a regular file only: a path under the target's root may name a
 * FIFO or a device, whose open or read would block. -errno on failure. */
static inline int glibcmem__open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

#endif
