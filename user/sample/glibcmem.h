/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibcmem.h - what glibc's view reads through, shared by glibcview.c (the
 * arena walk) and glibcid.c (the libc's identity): the target's memory
 * (process/memory.h), and regular files only. Internal to those files;
 * the view's API is glibcview.h.
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
#include "process/memory.h"

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
