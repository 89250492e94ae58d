// SPDX-License-Identifier: GPL-2.0
/*
 * read_c.c - integration target for --read on C: integers memwatch reads
 * from the target's memory by their DWARF types, while four threads
 * change them. Built -O2 -g (and once without -g).
 *
 *   srv                 a global struct server
 *   srv.tab             a pointer to a heap-allocated table, replaced by
 *                       "swap" (the old one freed) and NULL after "drop"
 *   srv.tab->shard[2].count   a counter in an array inside it
 *   srv.generation      an unsigned 64-bit counter
 *   level               a static int, negative at times
 *
 * Commands: "run N" has four threads add to and take from the shards N
 * times each, then, quiescent, replies with what memwatch must read:
 * "ran count2=C generation=G level=L"; "swap" moves the table to a new
 * block; "drop" frees it and leaves srv.tab NULL; "quit".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "say.h"

#define SHARDS	4

struct shard {
	long count;
	char pad[56];		/* a cache line each */
};

struct table {
	int nshards;
	struct shard shard[SHARDS];
};

struct server {
	const char *name;
	struct table *tab;
	unsigned long long generation;
};

struct server srv = { .name = "read_c" };
static int level;
static long iterations;

static void *worker(void *arg)
{
	long t = (long)arg;

	for (long i = 0; i < iterations; i++) {
		struct shard *s = &srv.tab->shard[(t + i) % SHARDS];

		__atomic_add_fetch(&s->count, (i % 3) ? 1 : -1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&srv.generation, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&level, (t & 1) ? 2 : -3, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run(long n)
{
	pthread_t th[4];

	iterations = n;
	for (long t = 0; t < 4; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	say("ran count2=%ld generation=%llu level=%d\n", srv.tab->shard[2].count,
	    srv.generation, level);
}

/* The table moves: a new block, the old one freed. */
static void swap(void)
{
	struct table *t = malloc(sizeof(*t));

	memcpy(t, srv.tab, sizeof(*t));
	free(srv.tab);
	srv.tab = t;
	say("swapped count2=%ld\n", srv.tab->shard[2].count);
}

int main(void)
{
	char line[64];
	long n;

	srv.tab = calloc(1, sizeof(*srv.tab));
	srv.tab->nshards = SHARDS;
	say("ready pid=%d malloc=%p\n", (int)getpid(), (void *)malloc);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "run %ld", &n) == 1) {
			run(n);
		} else if (!strncmp(line, "swap", 4)) {
			swap();
		} else if (!strncmp(line, "drop", 4)) {
			free(srv.tab);
			srv.tab = NULL;
			say("dropped\n");
		} else {
			break;
		}
	}
	return 0;
}
