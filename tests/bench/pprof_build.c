// SPDX-License-Identifier: GPL-2.0
/*
 * pprof_build.c - what building the heap profiles costs memwatch each
 * interval: pprof__build over N sites (one sample each, every address
 * its own function and line), both kinds, best and median of R runs.
 * Usage: pprof_build N R
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "export/pprof.h"

static char (*names)[48];

static void where(void *ctx, int pid, uint64_t addr, struct mw_where *w)
{
	size_t i = (size_t)((addr - 0x1000) / 16);

	memset(w, 0, sizeof(*w));
	w->build_id = "0123456789abcdef0123456789abcdef01234567";
	w->map_start = 0x1000;
	w->map_limit = 0x10000000;
	w->object = "/srv/node/bin/validator";
	w->function = names[i];
	w->file = "src/consensus/dag.rs";
	w->line = (int64_t)i;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	uint64_t *addrs = calloc(n, sizeof(*addrs));
	struct mw_pprof_sample *v = calloc(n, sizeof(*v));
	double *ms = calloc((size_t)runs, sizeof(*ms));
	size_t bytes = 0;

	names = calloc(n, sizeof(*names));
	if (!addrs || !v || !ms || !names || runs < 1)
		return 1;
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "consensus::fn_%zu", i);
		addrs[i] = 0x1000 + 16 * i;
		v[i] = (struct mw_pprof_sample){ 1, &addrs[i], 1, NULL, (int64_t)i,
						 (int64_t)i * 64, (int64_t)i, (int64_t)i * 32 };
	}
	for (int r = 0; r < runs; r++) {
		struct timespec t0, t1;
		uint8_t *out[MW_PPROF__KINDS];
		size_t len[MW_PPROF__KINDS];

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (pprof__build(v, n, 0, where, NULL, out, len))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		bytes = len[MW_PPROF_HEAP];
		free(out[0]);
		free(out[1]);
	}
	qsort(ms, (size_t)runs, sizeof(*ms), by_value);
	printf("%zu sites: best %.1f ms, median %.1f ms for both kinds; %zu bytes gzipped\n",
	       n, ms[0], ms[runs / 2], bytes);
	free(addrs);
	free(v);
	free(ms);
	free(names);
	return 0;
}
