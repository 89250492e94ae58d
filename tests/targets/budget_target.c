// SPDX-License-Identifier: GPL-2.0
/*
 * budget_target.c - a target for --max-overhead and the overhead
 * estimate. Commands on stdin, one reply line each:
 *   spin MS     malloc(64)+free pairs for MS milliseconds: "spun pairs=N
 *               ns=X" (ns per pair, as this process sees it)
 *   spin 0      the same until the next line comes on stdin (which is
 *               then read as a command): "spinning" first
 *   add K       K calls of reg_add (the structure's insert; each keeps a
 *               block of 16 to 48 bytes): "reg elements=E batch_bytes=B"
 *               (B: what these K allocated)
 *   side K      K calls of side_add (another structure's insert, which
 *               allocates nothing): "side elements=E"
 *   keep K      K blocks of 48 bytes, kept live: "kept blocks=K bytes=B"
 *   trickle K MS  K blocks of 64 bytes, kept, one every MS/K ms:
 *               "trickled blocks=K bytes=B"
 * Usage: budget_target
 */
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "say.h"

struct elem {
	struct elem *next;
	char pad[];
};

static struct elem *reg;
static long long reg_elements;
static long long side_elements;
static void *kept[100000];
static int nkept;

/* The structure's insert: one element of 16 to 48 bytes. Returns its size. */
__attribute__((noinline)) size_t reg_add(size_t i)
{
	size_t size = 16 + (i % 5) * 8;
	struct elem *e = malloc(size);

	if (!e)
		_exit(4);
	e->next = reg;
	reg = e;
	reg_elements++;
	return size;
}

/* Another structure's insert, called rarely. */
__attribute__((noinline)) void side_add(void)
{
	__asm__ volatile("" ::: "memory");
	side_elements++;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Whether a line waits on stdin (nothing of it read yet: the commands
 * come one at a time, each after the last one's reply). */
static bool input_waits(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

static void spin(long ms)
{
	void *volatile p;
	double t0 = now_ns(), end = t0 + ms * 1e6, t = t0;
	long pairs = 0;

	if (!ms)
		say("spinning\n");
	while (ms ? t < end : !input_waits()) {
		for (int i = 0; i < 64; i++) {
			p = malloc(64);
			free(p);
		}
		pairs += 64;
		t = now_ns();
	}
	say("spun pairs=%ld ns=%.1f\n", pairs, (t - t0) / pairs);
}

static void keep(long k, size_t size, long every_us)
{
	long long bytes = 0;

	for (long i = 0; i < k && nkept < (int)(sizeof(kept) / sizeof(kept[0])); i++) {
		kept[nkept] = malloc(size);
		if (!kept[nkept++])
			_exit(4);
		bytes += (long long)size;
		if (every_us)
			usleep((useconds_t)every_us);
	}
	if (every_us)
		say("trickled blocks=%ld bytes=%lld\n", k, bytes);
	else
		say("kept blocks=%ld bytes=%lld\n", k, bytes);
}

int main(void)
{
	char line[128];

	say("ready pid=%d malloc=%p\n", (int)getpid(), (void *)malloc);
	while (fgets(line, sizeof(line), stdin)) {
		long a = 0, b = 0;
		long long bytes = 0;

		if (sscanf(line, "spin %ld", &a) == 1) {
			spin(a);
		} else if (sscanf(line, "add %ld", &a) == 1) {
			for (long i = 0; i < a; i++)
				bytes += (long long)reg_add((size_t)i);
			say("reg elements=%lld batch_bytes=%lld\n", reg_elements, bytes);
		} else if (sscanf(line, "side %ld", &a) == 1) {
			for (long i = 0; i < a; i++)
				side_add();
			say("side elements=%lld\n", side_elements);
		} else if (sscanf(line, "keep %ld", &a) == 1) {
			keep(a, 48, 0);
		} else if (sscanf(line, "trickle %ld %ld", &a, &b) == 2 && a > 0) {
			keep(a, 64, b * 1000 / a);
		} else if (!strncmp(line, "stop", 4)) {
			/* what ended a spin 0: no reply of its own */
		} else {
			say("error unknown command\n");
		}
	}
	return 0;
}
