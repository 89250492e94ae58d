// SPDX-License-Identifier: GPL-2.0
/*
 * chains.c - integration target for whole stacks, built as releases are
 * (-O2, no frame pointers, CET prologues). Six chains allocate from known
 * call chains 5 to 20 frames deep: through a callback in libchains.so,
 * through glibc's qsort (Debian's libc, no frame pointers) calling a
 * comparator, or straight down; in the main thread or a worker. Each
 * allocation's leaf first takes the stack glibc's backtrace(3) computes
 * for itself (the same .eh_frame), then mallocs its chain's size and
 * keeps the block: the target's own record of every allocation's stack
 * and of the live bytes each chain holds.
 * Commands: run (every chain allocates ROUNDS times), chain K ("chain K
 * size S count N same Y bt A0 A1 ..."; same=0 when a chain's stack ever
 * differed between its calls), quit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "say.h"

#define NCHAINS 6
#define ROUNDS 50
#define MAXF 40

void chains_each(void (*fn)(void *), void *arg, int times);	/* libchains.so */

struct chain {
	int k, depth, via, in_worker;	/* via: 0 library callback, 1 qsort, 2 direct */
	size_t size;
	void *bt[MAXF];
	int nbt, count, same;
};

static struct chain chains[NCHAINS];
static void *kept[NCHAINS * ROUNDS * 2];
static int nkept;
static pthread_barrier_t go, done;
static volatile int quit;
static struct chain *sorting;	/* the chain qsort's comparator serves */

__attribute__((noinline)) static void leaf(struct chain *c)
{
	void *bt[MAXF];
	int n = backtrace(bt, MAXF);
	void *p = malloc(c->size);

	if (!c->count) {
		memcpy(c->bt, bt, sizeof(bt));
		c->nbt = n;
		c->same = 1;
	} else if (n != c->nbt || memcmp(c->bt + 1, bt + 1, (size_t)(n - 1) * sizeof(void *))) {
		c->same = 0;
	}
	c->count++;
	__atomic_store_n(&kept[__atomic_fetch_add(&nkept, 1, __ATOMIC_RELAXED)], p,
			 __ATOMIC_RELAXED);
}

static void on_item(void *arg)
{
	leaf(arg);
	__asm__ volatile("" ::: "memory");
}

static int by_value(const void *a, const void *b)
{
	leaf(sorting);
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void descend(struct chain *c, int levels)
{
	if (levels > 0) {
		descend(c, levels - 1);
	} else if (c->via == 0) {
		chains_each(on_item, c, 1);
	} else if (c->via == 1) {
		int pair[2] = { 2, 1 };	/* two items: one comparison */

		sorting = c;
		qsort(pair, 2, sizeof(int), by_value);
	} else {
		leaf(c);
	}
	__asm__ volatile("" ::: "memory");	/* every level a frame: no tail call */
}

__attribute__((noinline)) static void run_chains(int in_worker)
{
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < NCHAINS; k++)
			if (chains[k].in_worker == in_worker)
				descend(&chains[k], chains[k].depth);
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&go);
		if (quit)
			return NULL;
		run_chains(1);
		pthread_barrier_wait(&done);
	}
}

static void reply_chain(int k)
{
	char line[512];
	struct chain *c = &chains[k];
	int len;

	len = snprintf(line, sizeof(line), "chain %d size %zu count %d same %d bt", k, c->size,
		       c->count, c->same);
	for (int i = 0; i < c->nbt && len < (int)sizeof(line) - 24; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %p", c->bt[i]);
	say("%s\n", line);
}

int main(void)
{
	pthread_t tid;
	char line[64];
	void *warm[4];
	int n;

	for (int k = 0; k < NCHAINS; k++) {
		/* depths 2..17 in descend, 5..20 frames with the rest */
		chains[k] = (struct chain){ .k = k, .depth = 2 + 3 * k, .via = k % 3,
					    .in_worker = k % 2, .size = 1000 + 16 * (size_t)k };
	}
	backtrace(warm, 4);	/* loads libgcc_s before anyone watches */
	pthread_barrier_init(&go, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&tid, NULL, worker, NULL);
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	while ((n = (int)read(0, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		if (!strncmp(line, "run", 3)) {
			run_chains(0);
			pthread_barrier_wait(&go);
			pthread_barrier_wait(&done);
			say("ran chains=%d\n", NCHAINS);
		} else if (!strncmp(line, "chain ", 6) && atoi(line + 6) >= 0 &&
			   atoi(line + 6) < NCHAINS) {
			reply_chain(atoi(line + 6));
		} else {
			break;
		}
	}
	quit = 1;
	pthread_barrier_wait(&go);
	pthread_join(tid, NULL);
	return 0;
}
