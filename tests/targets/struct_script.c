// SPDX-License-Identifier: GPL-2.0
/*
 * struct_script.c - integration target for structures. Two structures
 * shared by four threads under a mutex:
 *   table: a chained hash table; table_insert returns 1 for a new key and
 *          0 when it replaced one (--delta ret), table_remove returns 0 when
 *          the key is missing (--delta ret); the bucket array grows with
 *          realloc inside insert, and shrinks with realloc outside it.
 *   index: a list of nodes; index_add is called from inside table_insert
 *          (the innermost insert wins), index_add_batch adds its second
 *          argument's count (--delta arg2), index_del removes one.
 * The target keeps its own tally of elements, and of the bytes allocated
 * inside each structure's insert functions that are still live.
 * Commands on stdin: run, shrink, clear, burst (the main thread calls
 * index_add 200 times from one call site, with only a plain function call
 * between: a loop like a service's), quit. Usage: struct_script ROUNDS
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

#define NTHREADS 4
#define KEYSPACE 97

struct entry { int key; char *value; size_t vsize; struct entry *next; };
struct inode { int key; struct inode *next; };

static struct entry **buckets;
static size_t nbuckets = 4;
static int buckets_charged;	/* allocated inside table_insert? */
static struct inode *index_head;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t go, done;
static volatile int command;
static int rounds;

/* the target's own tally */
static long long table_elements, table_bytes, index_elements, index_bytes;


static void *must(void *p)
{
	if (!p) {
		say("error allocation failed\n");
		exit(4);
	}
	return p;
}

/* ------------------------------------------------------------ index */

__attribute__((noinline)) void index_add(int key)
{
	struct inode *n = must(malloc(sizeof(*n)));

	index_bytes += sizeof(*n);
	n->key = key;
	n->next = index_head;
	index_head = n;
	index_elements++;
}

__attribute__((noinline)) void index_add_batch(const int *keys, int count)
{
	for (int i = 0; i < count; i++) {
		struct inode *n = must(malloc(sizeof(*n)));

		index_bytes += sizeof(*n);
		n->key = keys[i];
		n->next = index_head;
		index_head = n;
	}
	index_elements += count;
}

__attribute__((noinline)) void index_del(int key)
{
	for (struct inode **p = &index_head; *p; p = &(*p)->next) {
		if ((*p)->key == key) {
			struct inode *n = *p;

			*p = n->next;
			free(n);
			index_bytes -= sizeof(*n);
			index_elements--;
			return;
		}
	}
	say("error index_del: key %d missing\n", key);
	exit(5);
}

__attribute__((noinline)) int plain_step(int i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

/* index_add again and again from one call site, nothing allocated or
 * probed between the calls */
static void burst(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < 200; i++)
		index_add(plain_step(5000 + i));
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ table */

static void rehash(size_t old_n)
{
	struct entry *all = NULL;

	for (size_t i = 0; i < old_n; i++) {
		while (buckets[i]) {
			struct entry *e = buckets[i];

			buckets[i] = e->next;
			e->next = all;
			all = e;
		}
	}
	memset(buckets, 0, nbuckets * sizeof(*buckets));
	while (all) {
		struct entry *e = all;

		all = e->next;
		e->next = buckets[(size_t)e->key % nbuckets];
		buckets[(size_t)e->key % nbuckets] = e;
	}
}

/* Resizes the bucket array; @inside_insert says whether the new block is
 * charged to the table (memwatch keeps the charge of a charged block). */
static void resize(size_t n, int inside_insert)
{
	size_t old_n = nbuckets;

	if (buckets_charged)
		table_bytes -= (long long)(old_n * sizeof(*buckets));
	if (n > old_n) {
		buckets = must(realloc(buckets, n * sizeof(*buckets)));
		nbuckets = n;
		rehash(old_n);
	} else {
		nbuckets = n;
		rehash(old_n);	/* into the first n buckets, then shrink */
		buckets = must(realloc(buckets, n * sizeof(*buckets)));
	}
	if (buckets_charged || inside_insert) {
		buckets_charged = 1;
		table_bytes += (long long)(n * sizeof(*buckets));
	}
}

__attribute__((noinline)) int table_insert(int key, size_t vsize)
{
	size_t b = (size_t)key % nbuckets;
	struct entry *e;

	for (e = buckets[b]; e; e = e->next) {
		if (e->key == key) {	/* replace the value */
			free(e->value);
			table_bytes -= (long long)e->vsize;
			e->value = must(malloc(vsize));
			e->vsize = vsize;
			table_bytes += (long long)vsize;
			return 0;
		}
	}
	e = must(malloc(sizeof(*e)));
	e->value = must(malloc(vsize));
	table_bytes += (long long)(sizeof(*e) + vsize);
	e->key = key;
	e->vsize = vsize;
	e->next = buckets[b];
	buckets[b] = e;
	table_elements++;
	index_add(key);		/* the other structure's insert, nested */
	if ((size_t)table_elements > nbuckets * 2)
		resize(nbuckets * 2, 1);
	return 1;
}

__attribute__((noinline)) int table_remove(int key)
{
	size_t b = (size_t)key % nbuckets;

	for (struct entry **p = &buckets[b]; *p; p = &(*p)->next) {
		if ((*p)->key == key) {
			struct entry *e = *p;

			*p = e->next;
			free(e->value);
			free(e);
			table_bytes -= (long long)(sizeof(*e) + e->vsize);
			table_elements--;
			index_del(key);
			return 1;
		}
	}
	return 0;	/* a miss */
}

/* ------------------------------------------------------------ script */

static void run_script(int t)
{
	for (int i = 0; i < rounds; i++) {
		int key = (t * 7919 + i * 31) % KEYSPACE;

		pthread_mutex_lock(&lock);
		switch (i % 5) {
		case 0:
		case 1:
			table_insert(key, 16 + (size_t)((i * 13 + t) % 200));
			break;
		case 2:
			table_remove((key + 11) % KEYSPACE);	/* may miss */
			break;
		case 3:
			table_insert(key, 300);		/* often replaces */
			break;
		case 4: {
			int keys[3] = { 100000 + t * 10000 + i, 200000 + t * 10000 + i,
					300000 + t * 10000 + i };
			index_add_batch(keys, 3);
			index_del(keys[1]);
			break;
		}
		}
		pthread_mutex_unlock(&lock);
	}
}

static void clear_all(void)
{
	for (int k = 0; k < KEYSPACE; k++)
		table_remove(k);
	while (index_head)
		index_del(index_head->key);
}

static void *worker(void *arg)
{
	int t = (int)(long)arg;

	for (;;) {
		pthread_barrier_wait(&go);
		if (command != 1)
			return NULL;
		run_script(t);
		pthread_barrier_wait(&done);
	}
}

static void tally(const char *what)
{
	say("%s table_elements=%lld table_bytes=%lld index_elements=%lld index_bytes=%lld\n",
	    what, table_elements, table_bytes, index_elements, index_bytes);
}

int main(int argc, char **argv)
{
	pthread_t tids[NTHREADS];
	char line[64];

	rounds = argc > 1 ? atoi(argv[1]) : 100;
	buckets = must(calloc(nbuckets, sizeof(*buckets)));	/* before attach */
	pthread_barrier_init(&go, NULL, NTHREADS + 1);
	pthread_barrier_init(&done, NULL, NTHREADS + 1);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&tids[t], NULL, worker, (void *)t);
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	for (;;) {
		ssize_t n = read(STDIN_FILENO, line, sizeof(line) - 1);

		if (n <= 0)
			break;
		line[n] = '\0';
		if (!strncmp(line, "run", 3)) {
			command = 1;
			pthread_barrier_wait(&go);
			pthread_barrier_wait(&done);
			tally("ran");
		} else if (!strncmp(line, "shrink", 6)) {
			resize(nbuckets / 2, 0);	/* outside any insert */
			tally("shrunk");
		} else if (!strncmp(line, "clear", 5)) {
			clear_all();
			tally("cleared");
		} else if (!strncmp(line, "burst", 5)) {
			burst();
			tally("burst");
		} else {
			break;
		}
	}
	command = 3;
	pthread_barrier_wait(&go);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(tids[t], NULL);
	return 0;
}
