// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_procmaps.c - libFuzzer harness for the /proc/PID/maps parser. The
 * input is read through fmemopen as if it were the maps file of a hostile
 * (or merely odd) process; then libc and a path are looked up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "process/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_maps maps;
	FILE *f;

	if (size == 0)
		return 0;	/* fmemopen refuses an empty buffer */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (procmaps__parse(f, &maps)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	procmaps__find_libc(&maps);
	procmaps__find_path(&maps, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	if (maps.n) {
		/* a copy: the lookup must not rely on the needle being in the table */
		char *p = strdup(maps.v[maps.n - 1].path);

		if (p && procmaps__find_path(&maps, p) == NULL)
			abort();	/* the last mapping's own path must be found */
		free(p);
	}
	procmaps__free(&maps);
	return 0;
}
