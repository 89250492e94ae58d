// SPDX-License-Identifier: GPL-2.0
/*
 * atomicfile.c - replace a file so that no reader ever sees half of it:
 * write a temporary beside it, then rename it into place. The textfile
 * exposition and the folded stacks are written this way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "export/atomicfile.h"

int atomicfile__replace(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, err = 0;

	/* ".NAME.XXXXXX" beside NAME: the collector reads only *.prom */
	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(slash - path + 1),
			 path, slash + 1);
	else
		snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);	/* O_EXCL: never an existing name */
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644))
		err = -errno;
	for (size_t done = 0; !err && done < len;) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0)
			err = -errno;
		else
			done += (size_t)n;
	}
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))	/* replaces a link, never follows it */
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

