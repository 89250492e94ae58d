// SPDX-License-Identifier: GPL-2.0
/*
 * feed.c - route each interval's snapshots to the chosen writer (csv.c or
 * expo.c) and the chosen output. memwatch runs as root and the output path
 * may sit in a directory others can write: no symlink is ever followed,
 * temporary names come from mkstemp, and files are created 0644.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "export/csv.h"
#include "export/expo.h"
#include "export/atomicfile.h"
#include "export/feed.h"
#include "log.h"

int feed__open(struct mw_feed *f, enum mw_format fmt, const char *path,
	       const struct mw_layout *layout)
{
	int fd;

	f->format = fmt;
	f->path = path;
	f->layout = layout;
	f->out = stdout;
	f->table.tty = !path && isatty(STDOUT_FILENO);
	if (!path)
		return 0;
	if (fmt == MW_FORMAT_OPENMETRICS) {
		f->out = NULL;	/* each exposition replaces the file */
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f->out = fdopen(fd, "w"))) {
		mw_err("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

void feed__open_none(struct mw_feed *f, const struct mw_layout *layout)
{
	memset(f, 0, sizeof(*f));
	f->layout = layout;
	f->off = true;
}

int feed__start(struct mw_feed *f)
{
	int err;

	if (f->off || f->format != MW_FORMAT_CSV)
		return 0;
	err = csv__write_header(f->out, f->layout);
	if (err)
		mw_err("cannot write the feed: %s", strerror(-err));
	return err ? -1 : 0;
}

static int write_exposition(struct mw_feed *f, const struct mw_snapshot *const *all,
			    int nall)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	if (f->out)
		return expo__write(f->out, MW_EXPO_OPENMETRICS, f->layout, all, nall);
	mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	err = expo__write(mem, MW_EXPO_OPENMETRICS, f->layout, all, nall);
	fclose(mem);
	if (!err)
		err = atomicfile__replace(f->path, buf, len);
	free(buf);
	return err;
}

int feed__write(struct mw_feed *f, const struct mw_snapshot *const *fresh,
		int nfresh, const struct mw_snapshot *const *all, int nall)
{
	int err = 0;

	if (f->off)
		return 0;
	if (f->format == MW_FORMAT_OPENMETRICS) {
		err = write_exposition(f, all, nall);
	} else if (f->format == MW_FORMAT_TABLE) {
		err = table__write(f->out, &f->table, f->layout, all, nall);
	} else {
		for (int i = 0; i < nfresh && !err; i++)
			err = csv__write_row(f->out, f->layout, fresh[i]);
	}
	if (err)
		mw_err("cannot write the feed%s%s: %s", f->path ? " to " : "",
		       f->path ? f->path : "", strerror(-err));
	return err ? -1 : 0;
}

void feed__close(struct mw_feed *f)
{
	if (f->out && f->out != stdout)
		fclose(f->out);
	f->out = NULL;
}
