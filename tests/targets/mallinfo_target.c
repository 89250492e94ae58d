// SPDX-License-Identifier: GPL-2.0
/*
 * mallinfo_target.c - integration target for glibcview: on each stdin
 * command it shapes its heap, parks every thread, and prints what glibc's
 * own mallinfo2() reports, which glibcview must read from outside exactly.
 * "churn" leaves threads changing the heap until "stop"; "corrupt KIND"
 * breaks a free list on purpose (the target never allocates again after).
 *
 * Commands (one per line): one, threads, frag, huge, thresh, churn, stop,
 * info, corrupt loop|wild|bin|size, quit. Replies are single lines written
 * with write(2), and commands are read with read(2): stdio would allocate.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "say.h"

#define ONE_BLOCKS	2000
#define FRAG_BLOCKS	3000
#define HUGE_BLOCKS	3
#define HUGE_BYTES	(1ul << 30)
#define THREADS		4
#define THREAD_BLOCKS	500
#define CHURN_THREADS	4
#define CHURN_SLOTS	256
#define SAFE_LINK_SHIFT	12

static void *one_blocks[ONE_BLOCKS], *frag_blocks[FRAG_BLOCKS + 2];
static void *huge_blocks[HUGE_BLOCKS];
static pthread_t churners[CHURN_THREADS];
static volatile int churning;

/* parked threads: allocated, then wait forever */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int parked;


static void *must(void *p)
{
	if (!p) {
		say("error allocation failed\n");
		exit(4);
	}
	return p;
}

/* a deterministic size sequence in [lo, hi) */
static size_t size_at(unsigned i, size_t lo, size_t hi)
{
	return lo + (i * 2654435761u) % (hi - lo);
}

static void print_info(const char *extra)
{
	struct mallinfo2 m = mallinfo2();

	say("info arena=%zu ordblks=%zu smblks=%zu hblks=%zu hblkhd=%zu usmblks=%zu "
	    "fsmblks=%zu uordblks=%zu fordblks=%zu keepcost=%zu%s\n",
	    m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd, m.usmblks,
	    m.fsmblks, m.uordblks, m.fordblks, m.keepcost, extra);
}

/* ------------------------------------------------------------ commands */

static void cmd_one(void)
{
	for (unsigned i = 0; i < ONE_BLOCKS; i++)
		one_blocks[i] = must(malloc(size_at(i, 8, 3000)));
}

static void *thread_main(void *arg)
{
	void *blocks[THREAD_BLOCKS];

	for (unsigned i = 0; i < THREAD_BLOCKS; i++)
		blocks[i] = must(malloc(size_at(i + (unsigned)(uintptr_t)arg, 16, 2000)));
	for (unsigned i = 0; i < THREAD_BLOCKS; i += 3)
		free(blocks[i]);
	pthread_mutex_lock(&park_lock);
	parked++;
	pthread_cond_broadcast(&park_cond);
	for (;;)		/* parked: never changes its heap again */
		pthread_cond_wait(&park_cond, &park_lock);
	return NULL;
}

static void cmd_threads(void)
{
	int want;
	pthread_t t;

	pthread_mutex_lock(&park_lock);
	want = parked + THREADS;
	pthread_mutex_unlock(&park_lock);
	for (uintptr_t i = 0; i < THREADS; i++)
		if (pthread_create(&t, NULL, thread_main, (void *)(i * 7)))
			exit(5);
	pthread_mutex_lock(&park_lock);
	while (parked < want)
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
}

/* Every other block freed, sizes from fastbin to unsorted; a guard stays
 * next to top (a free merging into top would consolidate the fastbins);
 * one small request then sorts the unsorted bin into the small and large
 * bins without consolidating the fastbins. */
static void cmd_frag(void)
{
	static const size_t sizes[] = { 24, 40, 56, 72, 100, 120, 200, 400, 700,
					1500, 3000, 5000 };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);

	for (unsigned i = 0; i < FRAG_BLOCKS; i++)
		frag_blocks[i] = must(malloc(sizes[i % nsizes]));
	frag_blocks[FRAG_BLOCKS] = must(malloc(16));	/* the guard */
	for (unsigned i = 1; i < FRAG_BLOCKS; i += 2)
		free(frag_blocks[i]);
	frag_blocks[FRAG_BLOCKS + 1] = must(malloc(900));
}

static void cmd_huge(void)
{
	for (unsigned i = 0; i < HUGE_BLOCKS; i++)	/* never touched */
		huge_blocks[i] = must(malloc(HUGE_BYTES));
}

/* Frees an mmapped block: glibc raises mmap_threshold to its chunk size
 * (usable + 16) and trim_threshold to twice that. */
static void cmd_thresh(void)
{
	void *p = must(malloc(200000));
	char extra[64];

	snprintf(extra, sizeof(extra), " expect_mmap_threshold=%zu",
		 malloc_usable_size(p) + 16);
	free(p);
	print_info(extra);
}

static void *churn_main(void *arg)
{
	void *slots[CHURN_SLOTS] = { 0 };
	unsigned i = (unsigned)(uintptr_t)arg;

	while (churning) {
		unsigned s = (i * 2654435761u) % CHURN_SLOTS;

		free(slots[s]);
		slots[s] = must(malloc(i % 97 ? size_at(i, 16, 5000) : 150000));
		i++;
	}
	for (unsigned s = 0; s < CHURN_SLOTS; s++)
		free(slots[s]);
	return NULL;
}

static void cmd_churn(void)
{
	churning = 1;
	for (uintptr_t i = 0; i < CHURN_THREADS; i++)
		if (pthread_create(&churners[i], NULL, churn_main, (void *)(i * 1000)))
			exit(5);
}

static void cmd_stop(void)
{
	churning = 0;
	for (int i = 0; i < CHURN_THREADS; i++)
		pthread_join(churners[i], NULL);
}

/* ---------------------------------------------------------- corruption */

/* Frees 8 blocks of @size: 7 fill the tcache, the 8th goes to a fastbin
 * (small sizes) or the unsorted bin; returns that 8th, now free. Guards
 * keep the unsorted one from merging with its neighbours. */
static unsigned char *eighth_free(size_t size)
{
	void *b[8];

	for (int i = 0; i < 8; i++) {
		b[i] = must(malloc(size));
		must(malloc(16));	/* guard, kept */
	}
	for (int i = 0; i < 8; i++)
		free(b[i]);
	return b[7];
}

/* Writes the fd of a free fastbin chunk (user pointer @q), safe-linked. */
static void set_fastbin_fd(unsigned char *q, uintptr_t target)
{
	volatile uintptr_t *fd = (volatile uintptr_t *)q;

	*fd = ((uintptr_t)q >> SAFE_LINK_SHIFT) ^ target;
}

static int cmd_corrupt(const char *kind)
{
	if (!strcmp(kind, "loop")) {		/* a fastbin chunk pointing at itself */
		unsigned char *q = eighth_free(40);

		set_fastbin_fd(q, (uintptr_t)(q - 16));
	} else if (!strcmp(kind, "wild")) {	/* aligned, but nothing mapped there */
		set_fastbin_fd(eighth_free(56), 0x10000000);
	} else if (!strcmp(kind, "bin")) {	/* an unsorted chunk whose bk is itself */
		unsigned char *q = eighth_free(200);

		((volatile uintptr_t *)q)[1] = (uintptr_t)(q - 16);
	} else if (!strcmp(kind, "size")) {	/* an unsorted chunk of 1 TiB */
		unsigned char *q = eighth_free(200);

		((volatile uintptr_t *)q)[-1] = (1ull << 40) | 1;
	} else {
		return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- main */

/* Commands that shape the heap and then report mallinfo2. */
static const struct { const char *name; void (*fn)(void); } shaping[] = {
	{ "one", cmd_one }, { "threads", cmd_threads }, { "frag", cmd_frag },
	{ "huge", cmd_huge }, { "stop", cmd_stop }, { "info", NULL },
};

static void run(const char *cmd)
{
	for (size_t i = 0; i < sizeof(shaping) / sizeof(shaping[0]); i++) {
		if (strcmp(cmd, shaping[i].name))
			continue;
		if (shaping[i].fn)
			shaping[i].fn();
		print_info("");
		return;
	}
	if (!strcmp(cmd, "thresh")) {
		cmd_thresh();
	} else if (!strcmp(cmd, "churn")) {
		cmd_churn();
		say("churning\n");
	} else if (!strncmp(cmd, "corrupt ", 8)) {
		say(cmd_corrupt(cmd + 8) ? "error unknown corruption\n" : "corrupted\n");
	} else if (!strcmp(cmd, "quit")) {
		exit(0);
	} else {
		say("error unknown command\n");
	}
}

int main(void)
{
	char buf[256];
	size_t len = 0;

	say("ready pid=%d\n", (int)getpid());
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
		char *nl;

		if (n <= 0)
			return 0;
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			run(buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0;	/* an overlong line: dropped */
	}
}
