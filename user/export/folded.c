// SPDX-License-Identifier: GPL-2.0
/*
 * folded.c - folded stacks of live bytes. Each site is one frame, the
 * function the allocator returns to ("object`function"); with several
 * targets a root frame "pid-N" keeps them apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export/atomicfile.h"
#include "export/folded.h"
#include "log.h"

int folded__print(FILE *f, const struct mw_snapshot *const *snaps, int n)
{
	for (int t = 0; t < n; t++) {
		/* a detached heap's sites are stale */
		const struct mw_sites *s = snaps[t]->heap_attached ? snaps[t]->sites : NULL;

		for (size_t i = 0; s && i < s->nrows; i++) {
			if (s->rows[i].live_bytes <= 0)
				continue;
			if (n > 1)
				fprintf(f, "pid-%d;", (int)snaps[t]->pid);
			fprintf(f, "%s %" PRId64 "\n", s->rows[i].folded ? s->rows[i].folded :
				s->rows[i].frame, s->rows[i].live_bytes);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int folded__write(const char *path, const struct mw_snapshot *const *snaps, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int err;

	if (!mem) {
		mw_err("out of memory");
		return -1;
	}
	err = folded__print(mem, snaps, n);
	fclose(mem);
	if (!err)
		err = atomicfile__replace(path, buf, len);
	free(buf);
	if (err)
		mw_err("cannot write %s: %s", path, strerror(-err));
	return err ? -1 : 0;
}
