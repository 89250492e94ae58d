// SPDX-License-Identifier: GPL-2.0
/*
 * demo.c - the program `make demo` observes: a small cache that grows for
 * a few seconds, then is trimmed, in a loop, so the feed shows the heap
 * and the structure moving. Its insert and remove functions are the ones
 * the demo names with --struct cache --insert cache_insert ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct entry {
	struct entry *next;
	char *value;
};

static struct entry *head;
static long count;

/* Adds one entry: two allocations, charged to the cache. */
__attribute__((noinline)) void cache_insert(size_t value_size)
{
	struct entry *e = malloc(sizeof(*e));

	e->value = malloc(value_size);
	memset(e->value, 'x', value_size);
	e->next = head;
	head = e;
	count++;
}

/* Removes the newest entry; returns 1 if there was one. */
__attribute__((noinline)) int cache_remove(void)
{
	struct entry *e = head;

	if (!e)
		return 0;
	head = e->next;
	free(e->value);
	free(e);
	count--;
	return 1;
}

int main(void)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	for (unsigned long step = 0;; step++) {
		/* 3 s of growth (+50 entries per tick), 2 s of trimming */
		if (step % 50 < 30)
			for (int i = 0; i < 50; i++)
				cache_insert(64 + (size_t)(rand() % 4096));
		else
			for (int i = 0; i < 60; i++)
				cache_remove();
		nanosleep(&tick, NULL);
	}
}
