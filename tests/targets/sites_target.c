// SPDX-License-Identifier: GPL-2.0
/*
 * sites_target.c - integration target for allocation sites. Known
 * functions allocate from the executable and from a shared library
 * (libsites.so), from three threads, and the target tallies the live
 * bytes each function holds; registry_insert is called from two places.
 * Commands: run, grow (grow_cache holds 1000 bytes more), quit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "say.h"

void *lib_alloc(size_t n);	/* libsites.so: malloc(n), kept by the caller */

#define NTHREADS 3

static void *kept[100000];
static int nkept;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t go, done;
static volatile int quit;
static long long grow_bytes, buffer_bytes, lib_bytes, calls_a, calls_b;

static void keep(void *p)
{
	pthread_mutex_lock(&lock);
	kept[nkept++] = p;
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void grow_cache(void)
{
	keep(malloc(100));
	__atomic_add_fetch(&grow_bytes, 100, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void make_buffers(void)
{
	keep(malloc(4096));
	__atomic_add_fetch(&buffer_bytes, 4096, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void temp_work(void)
{
	free(malloc(333));	/* never live */
}

__attribute__((noinline)) void registry_insert(int key)
{
	(void)key;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void path_a(int k)
{
	registry_insert(k);
	__atomic_add_fetch(&calls_a, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void path_b(int k)
{
	registry_insert(k);
	__atomic_add_fetch(&calls_b, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	long t = (long)arg;

	for (;;) {
		pthread_barrier_wait(&go);
		if (quit)
			return NULL;
		for (int i = 0; i < 40; i++) {
			grow_cache();
			if (i % 2)
				make_buffers();
			temp_work();
			keep(lib_alloc(777));
			__atomic_add_fetch(&lib_bytes, 777, __ATOMIC_RELAXED);
			if (i % 4 == (int)t)
				path_a(i);
			else
				path_b(i);
		}
		pthread_barrier_wait(&done);
	}
}

static void reply(const char *what)
{
	say("%s grow_cache=%lld make_buffers=%lld lib_alloc=%lld path_a=%lld path_b=%lld\n",
	    what, grow_bytes, buffer_bytes, lib_bytes, calls_a, calls_b);
}

int main(void)
{
	pthread_t tids[NTHREADS];
	char line[64], ready[128];
	int n;

	pthread_barrier_init(&go, NULL, NTHREADS + 1);
	pthread_barrier_init(&done, NULL, NTHREADS + 1);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&tids[t], NULL, worker, (void *)t);
	free(lib_alloc(1));	/* bind the library's symbols before attach */
	n = snprintf(ready, sizeof(ready), "ready pid=%d malloc=%p\n", (int)getpid(),
		     dlsym(RTLD_DEFAULT, "malloc"));
	if (write(1, ready, (size_t)n) != n)
		return 3;
	while ((n = (int)read(0, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		if (!strncmp(line, "run", 3)) {
			pthread_barrier_wait(&go);
			pthread_barrier_wait(&done);
			reply("ran");
		} else if (!strncmp(line, "grow", 4)) {
			for (int i = 0; i < 10; i++)
				grow_cache();
			reply("grew");
		} else {
			break;
		}
	}
	quit = 1;
	pthread_barrier_wait(&go);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(tids[t], NULL);
	return 0;
}
