// SPDX-License-Identifier: GPL-2.0
/*
 * alloc_script.c - integration target for the heap accounting. Threads
 * are created and warmed up before memwatch attaches; then, on "run" from
 * stdin, each runs a known script over every glibc entry point and every
 * exactness rule, keeping its own tally of what is live. "free" frees it
 * all, "exec" execs the program anew (same arguments), "fork" runs a child
 * that allocates, "big" keeps 3 GiB more (never touched), "churn N" makes
 * N allocations at ever other addresses and frees them, "dense N" keeps
 * N more blocks of 8 bytes (packed, where the allocator has that class),
 * "dense pack" the blocks "pack" chose (below), "dense 0" frees them,
 * "quit" exits.
 * Replies are single lines written with write(2), so
 * that the target's own I/O allocates nothing while it is observed.
 *
 * Built once per allocator family (make: alloc_script, alloc_jemalloc,
 * alloc_tcmalloc, alloc_mimalloc): entry points a family does not export
 * are left out, and each family's own extras are added.
 *
 * Usage: alloc_script THREADS ROUNDS [pack|shared]
 *
 * With "shared", its threads' ids are equal modulo MW_CALL_SLOTS: each
 * holds the same index of memwatch's calls array, so that a thread
 * entering a call while another's call holds it records the call in its
 * task storage (threads made until one gets such an id, before ready).
 *
 * With "pack" (jemalloc: blocks of 8 bytes, its cache hands the last freed
 * first), before it says ready it allocates blocks of 8 bytes and frees
 * back 34 at byte offsets 0-263 of one 512-byte group of addresses and
 * then 17 at offsets 0-135 of another whose search in a live table of 64
 * entries (--max-live-blocks 51) starts at most 2 entries past the
 * first's (MW_LIVE_HOME, slot 0): "dense pack" gets them, the first
 * group's first, and says whether it got those (placed=1).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "memwatch.h"
#include "say.h"

#if defined(FAMILY_JEMALLOC)
#include <jemalloc/jemalloc.h>
#define NO_PVALLOC
#define NO_REALLOCARRAY
#elif defined(FAMILY_TCMALLOC)
#define NO_REALLOCARRAY
void *tc_new(size_t size);
void *tc_newarray(size_t size);
void tc_delete_sized(void *p, size_t size);
void tc_deletearray(void *p);
#elif defined(FAMILY_MIMALLOC)
#include <mimalloc.h>
#endif

#define MAX_THREADS 16
#define MAX_ROUNDS 1000
#define KEPT_PER_ROUND 16

struct block { void *p; size_t size; };

struct worker {
	pthread_t tid;
	pid_t ktid;			/* "shared": its id, -1 if not kept */
	int index, rounds;
	void *pre[MAX_ROUNDS];		/* allocated before memwatch attached */
	struct block kept[MAX_ROUNDS * KEPT_PER_ROUND];
	size_t nkept;
	unsigned long failed, untracked, calls;
};

static struct worker workers[MAX_THREADS];
static int nthreads, rounds;
static pthread_barrier_t go, done;
static volatile int command;	/* 1 run, 2 free, 3 quit */


static void keep(struct worker *w, void *p, size_t size)
{
	if (!p) {
		say("error thread %d: unexpected allocation failure\n", w->index);
		exit(4);
	}
	w->kept[w->nkept++] = (struct block){ p, size };
}

static void expect_fail(struct worker *w, int failed)
{
	if (!failed) {
		say("error thread %d: a call that must fail succeeded\n", w->index);
		exit(4);
	}
	w->failed++;
}

/* The family's own entry points, with the same rules. */
static void family_extras(struct worker *w, size_t k)
{
#if defined(FAMILY_JEMALLOC)
	void *p = mallocx(100 + k, 0);
	size_t got;

	p = rallocx(p, 3000 + k, 0);		/* moves or not: size 3000 + k */
	got = xallocx(p, 2000, 0, 0);		/* in place: at least 2000 */
	if (got >= 2000) {
		keep(w, p, 2000);		/* resized: 2000 requested */
	} else {
		w->failed++;
		keep(w, p, 3000 + k);
	}
	expect_fail(w, xallocx(p, (size_t)1 << 40, 0, 0) < ((size_t)1 << 40));
	sdallocx(mallocx(64, 0), 64, 0);
	dallocx(mallocx(32, MALLOCX_ZERO), 0);
	expect_fail(w, rallocx(p, SIZE_MAX - 4096, 0) == NULL);
#elif defined(FAMILY_TCMALLOC)
	keep(w, tc_new(48 + k), 48 + k);
	tc_delete_sized(tc_new(16), 16);
	tc_deletearray(tc_newarray(160));
#elif defined(FAMILY_MIMALLOC)
	void *q = mi_malloc(1000);

	keep(w, mi_zalloc(123), 123);
	keep(w, mi_reallocn(NULL, 10, 10 + k), 10 * (10 + k));
	if (mi_expand(q, 1010) == q)		/* in place, or NULL */
		keep(w, q, 1010);
	else {
		w->failed++;
		keep(w, q, 1000);
	}
	mi_free_size(mi_malloc(40), 40);
#else
	(void)w;
	(void)k;
#endif
}

/* One round: every entry point, every rule. Sizes vary by thread. */
static void script_round(struct worker *w, int r)
{
	size_t k = (size_t)w->index, huge = SIZE_MAX - 4096;
	void *p, *q;

	keep(w, malloc(100 + k), 100 + k);
	p = malloc(0);			/* a live block of 0 bytes */
	q = calloc(10, 30 + k);
	expect_fail(w, calloc(SIZE_MAX / 2, 4) == NULL);	/* overflow */
	expect_fail(w, malloc(huge) == NULL);

	/* realloc(NULL, n) calls malloc inside: one block */
	void *r1 = realloc(NULL, 64);
	r1 = realloc(r1, 5000 + k);	/* moves: old gone, new live */
	r1 = realloc(r1, 10);		/* shrinks, likely in place */
	expect_fail(w, realloc(r1, huge) == NULL);	/* r1 stays live */
	keep(w, r1, 10);

	void *r2 = malloc(50);
	void *r3 = realloc(r2, 0);	/* glibc frees r2 and returns NULL */
	if (r3)				/* others may return a 0-byte block */
		keep(w, r3, 0);

#ifndef NO_REALLOCARRAY
	void *a = reallocarray(NULL, 7, 9);
	expect_fail(w, reallocarray(a, SIZE_MAX / 2, 3) == NULL);
	a = reallocarray(a, 20, 20 + k);
	keep(w, a, 20 * (20 + k));
#endif

	void *pm = NULL;
	if (posix_memalign(&pm, 64, 1000 + k))
		exit(6);
	keep(w, pm, 1000 + k);
	void *bad = NULL;
	expect_fail(w, posix_memalign(&bad, 3, 100) == EINVAL);

	keep(w, aligned_alloc(64, 256), 256);
	keep(w, memalign(4096, 100 + k), 100 + k);
	keep(w, memalign(8, 77), 77);	/* calls malloc inside */
	keep(w, valloc(333), 333);
#ifndef NO_PVALLOC
	keep(w, pvalloc(444), 444);
#endif
	family_extras(w, k);
	keep(w, malloc(200 * 1024 + k), 200 * 1024 + k);	/* mmapped */

	free(NULL);
	if (w->pre[r]) {
		free(w->pre[r]);	/* allocated before attach */
		w->pre[r] = NULL;
		w->untracked++;
	}
	free(p);
	free(q);
	w->calls += 26;
}

#define MAX_DENSE	50000
static void *dense_blocks[MAX_DENSE];
static long ndense;

/* @n more blocks of 8 bytes, kept; 0: all freed. */
static void dense(long n)
{
	if (!n) {
		while (ndense)
			free(dense_blocks[--ndense]);
		return;
	}
	for (long i = 0; i < n && ndense < MAX_DENSE; i++)
		if (!(dense_blocks[ndense++] = malloc(8)))
			say("error: unexpected allocation failure\n");
}

#define PACK_A	34
#define PACK_B	17
#define PACK_POOL	16384	/* 256 groups: one a B nearly surely */
#define PACK_SHIFT	58	/* a table of 64 entries */
static void *pack_pool[PACK_POOL];
static void *packed[PACK_A + PACK_B];
static int npacked;

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/* The index in the sorted pool of a 512-byte group whose first @n blocks
 * of 8 bytes are all there, from @from on, whose search starts @near to
 * @near + 2 entries on in a table of 64 (any if @near < 0); -1 if none. */
static int pack_group(int from, int n, int near)
{
	for (int i = from; i + n <= PACK_POOL; i++) {
		uintptr_t a = (uintptr_t)pack_pool[i];
		int k = 1;

		if ((a & 511) || (near >= 0 && ((MW_LIVE_HOME(a, PACK_SHIFT) - near) & 63) > 2))
			continue;
		while (k < n && (uintptr_t)pack_pool[i + k] == a + 8u * k)
			k++;
		if (k == n)
			return i;
	}
	return -1;
}

/* "pack": the blocks chosen and freed back, the second group's first so
 * that the first group's come back first. The rest stay allocated. */
static void pack_prepare(void)
{
	int a, b;

	for (int i = 0; i < PACK_POOL; i++)
		pack_pool[i] = malloc(8);
	qsort(pack_pool, PACK_POOL, sizeof(pack_pool[0]), by_address);
	/* each first group in turn: consecutive groups' searches start about
	 * 32 entries apart, drifting by less than one a pair, so that after
	 * some first groups none of the pool's later ones is near (1 run in
	 * 200 or so took placed=0 when only the pool's first was tried) */
	b = -1;
	for (a = pack_group(0, PACK_A, -1); a >= 0; a = pack_group(a + 1, PACK_A, -1)) {
		b = pack_group(a + 512, PACK_B,	/* 4 KiB on at least */
			       (int)MW_LIVE_HOME((uintptr_t)pack_pool[a], PACK_SHIFT));
		if (b >= 0)
			break;
	}
	if (b < 0)
		return;		/* "dense pack" says placed=0 */
	for (int k = 0; k < PACK_B; k++)
		free(packed[PACK_A + k] = pack_pool[b + k]);
	for (int k = 0; k < PACK_A; k++)
		free(packed[k] = pack_pool[a + k]);
	npacked = PACK_A + PACK_B;
}

/* "dense pack": as many blocks of 8 bytes as were packed; whether each
 * came back where pack_prepare freed one. */
static int dense_pack(void)
{
	int placed = npacked > 0;

	for (int i = 0; i < PACK_A + PACK_B && ndense < MAX_DENSE; i++) {
		void *p = malloc(8);
		bool known = false;

		for (int k = 0; k < npacked; k++)
			known |= p == packed[k];
		placed &= known;
		dense_blocks[ndense++] = p;
	}
	return placed;
}

static void tally(const char *what)
{
	unsigned long long bytes = 8ull * ndense, blocks = ndense, failed = 0, untracked = 0;

	for (int t = 0; t < nthreads; t++) {
		for (size_t i = 0; i < workers[t].nkept; i++)
			bytes += workers[t].kept[i].size;
		blocks += workers[t].nkept;
		failed += workers[t].failed;
		untracked += workers[t].untracked;
	}
	say("%s live_bytes=%llu live_allocations=%llu failed=%llu untracked=%llu\n",
	    what, bytes, blocks, failed, untracked);
}

/* A child process that allocates and frees, then exits: memwatch must
 * neither count it nor confuse it with the parent. */
static void fork_child(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		void *p[500];

		for (int i = 0; i < 500; i++)
			p[i] = malloc(1000);
		for (int i = 0; i < 250; i++)
			free(p[i]);
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&go);
		if (command == 1) {
			for (int r = 0; r < w->rounds; r++)
				script_round(w, r);
		} else if (command == 2) {
			for (size_t i = 0; i < w->nkept; i++)
				free(w->kept[i].p);
			w->nkept = 0;
		} else {
			return NULL;
		}
		pthread_barrier_wait(&done);
	}
}

/* @n allocations of 16 to 4,111 bytes kept in a ring of 256, each freed
 * 256 allocations later, all freed at the end: blocks at ever other
 * addresses, nothing left live. */
static void churn(long n)
{
	static void *ring[256];

	for (long i = 0; i < n; i++) {
		free(ring[i & 255]);
		ring[i & 255] = malloc(16 + (size_t)(i * 7919 % 4096));
	}
	for (int i = 0; i < 256; i++) {
		free(ring[i]);
		ring[i] = NULL;
	}
}

static void warm_up(struct worker *w)
{
	/* first calls bind symbols and create arenas before attach */
	for (int r = 0; r < w->rounds; r++)
		w->pre[r] = malloc(32);
}

static void *warm_main(void *arg)
{
	warm_up(arg);
	return worker_main(arg);
}

static pid_t first_tid;		/* "shared": the first worker's id */

/* A worker whose id shares the first's index, else gone at once. */
static void *shared_main(void *arg)
{
	struct worker *w = arg;
	pid_t me = gettid();
	bool kept = !first_tid || (me - first_tid) % MW_CALL_SLOTS == 0;

	__atomic_store_n(&w->ktid, kept ? me : -1, __ATOMIC_RELEASE);
	return kept ? warm_main(arg) : NULL;
}

/* Worker @w's thread, with an id that shares the first's index if
 * @shared: 0, or -1 if none came of many tries. */
static int start_worker(struct worker *w, bool shared)
{
	pid_t k;

	if (!shared)
		return pthread_create(&w->tid, NULL, warm_main, w) ? -1 : 0;
	for (int tries = 0; tries < 64 * MW_CALL_SLOTS; tries++) {
		w->ktid = 0;
		if (pthread_create(&w->tid, NULL, shared_main, w))
			return -1;
		while (!(k = __atomic_load_n(&w->ktid, __ATOMIC_ACQUIRE)))
			sched_yield();
		if (k > 0) {
			if (!first_tid)
				first_tid = k;
			return 0;
		}
		pthread_join(w->tid, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	char line[64];

	nthreads = argc > 1 ? atoi(argv[1]) : 4;
	rounds = argc > 2 ? atoi(argv[2]) : 20;
	if (nthreads < 1 || nthreads > MAX_THREADS || rounds < 1 || rounds > MAX_ROUNDS)
		return 2;
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
	for (int t = 0; t < nthreads; t++) {
		workers[t].index = t;
		workers[t].rounds = rounds;
		if (start_worker(&workers[t], argc > 3 && !strcmp(argv[3], "shared")))
			return 3;
	}
	if (argc > 3 && !strcmp(argv[3], "pack"))
		pack_prepare();
	say("ready pid=%d malloc=%p free=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"),
	    dlsym(RTLD_DEFAULT, "free"));
	for (;;) {
		ssize_t n = read(STDIN_FILENO, line, sizeof(line) - 1);

		if (n <= 0)
			return 0;
		line[n] = '\0';
		if (!strncmp(line, "exec", 4)) {	/* a new image of itself */
			execv("/proc/self/exe", argv);
			return 7;
		}
		if (!strncmp(line, "fork", 4)) {	/* a child that allocates */
			fork_child();
			tally("forked");
			continue;
		}
		if (!strncmp(line, "churn ", 6)) {	/* blocks at ever other addresses */
			churn(atol(line + 6));
			tally("churned");
			continue;
		}
		if (!strncmp(line, "dense pack", 10)) {
			char what[32];

			snprintf(what, sizeof(what), "dense placed=%d", dense_pack());
			tally(what);
			continue;
		}
		if (!strncmp(line, "dense ", 6)) {	/* packed blocks of 8 bytes */
			dense(atol(line + 6));
			tally("dense");
			continue;
		}
		if (!strncmp(line, "big", 3)) {		/* 3 GiB, never touched */
			for (int i = 0; i < 3; i++)
				keep(&workers[0], malloc((size_t)1 << 30), (size_t)1 << 30);
			tally("big");
			continue;
		}
		command = !strncmp(line, "run", 3) ? 1 : !strncmp(line, "free", 4) ? 2 : 3;
		pthread_barrier_wait(&go);
		if (command == 3)
			break;
		pthread_barrier_wait(&done);
		tally(command == 1 ? "ran" : "freed");
	}
	for (int t = 0; t < nthreads; t++)
		pthread_join(workers[t].tid, NULL);
	return 0;
}
