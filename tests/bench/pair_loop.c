// SPDX-License-Identifier: GPL-2.0
/*
 * pair_loop.c - benchmark target: on each line from stdin, runs N
 * malloc(64)+free pairs (N from argv) and prints the nanoseconds per pair.
 * It waits for stdin so that memwatch can attach between runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		double t0 = now_ns();

		for (long i = 0; i < n; i++) {
			void *volatile p = malloc(64);
			free(p);
		}
		printf("%.0f\n", (now_ns() - t0) / n);
	}
	return 0;
}
