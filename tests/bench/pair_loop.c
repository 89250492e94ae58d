// SPDX-License-Identifier: GPL-2.0
/*
 * pair_loop.c - benchmark target. Commands on stdin, one reply line each:
 *   go        every thread runs PAIRS malloc(64)+free pairs; replies with
 *             the nanoseconds per pair, as one thread sees it (wall time /
 *             PAIRS), and the pairs done in all
 *   fill K    allocates K more 32-byte blocks, kept live; replies "filled"
 *   mark      calls registry_add() once (a structure function for the
 *             --no-heap mode, outside the measured loop)
 *   calls     PAIRS calls of registry_insert() (an insert that makes two
 *             calls and allocates nothing); replies with ns per call
 *   child     forks a child (nobody watches it) that times rounds of 100
 *             pairs for a second from its first instruction, then 21
 *             rounds of 10,000; replies with its pair's steady cost (ns,
 *             the median of the long rounds) and how long after the fork
 *             its last short round at 20 times the cost of the short
 *             rounds' last half ended (ms: how long it trapped on
 *             breakpoints it inherited, until memwatch took them out)
 * It waits for stdin so that tracers can attach between commands.
 * Built as pair_loop_cxx with -DPAIR_CXX, each pair is C++'s operator
 * new(64) and sized operator delete (libstdc++'s, which call malloc).
 * Any allocator can be preloaded (LD_PRELOAD) under either. PAIR_DEPTH=N
 * in the environment: each thread loops N calls deeper (a stack to walk).
 * Usage: pair_loop PAIRS [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static long pairs;
static int nthreads, depth;
static void **kept;
static size_t nkept, capkept;
static long registry;

__attribute__((noinline)) void registry_add(void)
{
	registry++;
}

__attribute__((noinline)) long registry_step(long i)
{
	__asm__ volatile("" ::: "memory");
	return i & 1;
}

/* Starts with a call (emulated under a probe), ends with a ret. */
__attribute__((noinline)) long registry_insert(long i)
{
	long r = registry_step(i) + registry_step(i + 1);

	__asm__ volatile("" ::: "memory");
	return r;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#ifdef PAIR_CXX
void *_Znwm(unsigned long size);			/* operator new(size_t) */
void _ZdlPvm(void *p, unsigned long size);		/* operator delete(void *, size_t) */
#define PAIR_NEW(n)	_Znwm(n)
#define PAIR_DELETE(p, n) _ZdlPvm(p, n)
#else
#define PAIR_NEW(n)	malloc(n)
#define PAIR_DELETE(p, n) free(p)
#endif

static void *loop(void *arg)
{
	for (long i = 0; i < pairs; i++) {
		void *volatile p = PAIR_NEW(64);
		PAIR_DELETE(p, 64);
	}
	return arg;
}

/* @levels frames deeper, then the loop */
__attribute__((noinline)) static void *deeper(void *arg, int levels)
{
	void *r = levels > 0 ? deeper(arg, levels - 1) : loop(arg);

	__asm__ volatile("" ::: "memory");	/* no tail call: a frame a level */
	return r;
}

static void *thread_main(void *arg)
{
	return deeper(arg, depth);
}

static void run(void)
{
	pthread_t t[64];
	double t0 = now_ns();

	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("%.0f %ld\n", (now_ns() - t0) / pairs, pairs * nthreads);
}

static void calls(void)
{
	double t0 = now_ns();
	long sum = 0;

	for (long i = 0; i < pairs; i++)
		sum += registry_insert(i);
	printf("%.0f %ld\n", (now_ns() - t0) / pairs, sum);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define CHILD_ROUNDS	100000
#define CHILD_NS	1e9	/* a second of rounds */

static void child(void)
{
	static double ns[CHILD_ROUNDS], end_at[CHILD_ROUNDS], sorted[CHILD_ROUNDS];
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		exit(3);
	pid = fork();
	if (pid == 0) {
		double t0 = now_ns(), steady, trapped = 0;
		int n = 0;
		FILE *out;

		while (n < CHILD_ROUNDS && now_ns() - t0 < CHILD_NS) {
			double a = now_ns();

			for (int i = 0; i < 100; i++) {
				void *volatile p = PAIR_NEW(64);
				PAIR_DELETE(p, 64);
			}
			end_at[n] = now_ns();
			ns[n] = (end_at[n] - a) / 100;
			n++;
		}
		memcpy(sorted, ns + n / 2, (size_t)(n - n / 2) * sizeof(*ns));
		qsort(sorted, (size_t)(n - n / 2), sizeof(*sorted), cmp_double);
		steady = sorted[(n - n / 2) / 2];
		/* a trapped pair costs hundreds of times an untraced one: the
		 * last round 20 times the steady cost before the first 1,000
		 * rounds in a row below it (a stray interrupt is not a trap) */
		for (int i = 0, fast = 0; i < n && fast < 1000; i++) {
			fast = ns[i] >= 20 * steady ? 0 : fast + 1;
			if (!fast)
				trapped = (end_at[i] - t0) / 1e6;
		}
		/* then the steady cost alone, from longer rounds: the median
		 * of 21 rounds of 10,000 pairs */
		for (int r = 0; r < 21; r++) {
			double a = now_ns();

			for (int i = 0; i < 10000; i++) {
				void *volatile p = PAIR_NEW(64);
				PAIR_DELETE(p, 64);
			}
			sorted[r] = (now_ns() - a) / 10000;
		}
		qsort(sorted, 21, sizeof(*sorted), cmp_double);
		steady = sorted[10];
		out = fdopen(fd[1], "w");
		fprintf(out, "%.1f %.1f\n", steady, trapped);
		fclose(out);
		_exit(0);
	}
	close(fd[1]);
	{
		char reply[64] = "";
		FILE *in = fdopen(fd[0], "r");

		if (!in || !fgets(reply, sizeof(reply), in))
			snprintf(reply, sizeof(reply), "- -\n");
		if (in)
			fclose(in);
		waitpid(pid, NULL, 0);
		fputs(reply, stdout);
	}
}

static void fill(size_t k)
{
	if (nkept + k > capkept) {
		capkept = nkept + k;
		kept = realloc(kept, capkept * sizeof(*kept));
	}
	for (size_t i = 0; i < k; i++)
		kept[nkept++] = malloc(32);
	printf("filled %zu\n", nkept);
}

int main(int argc, char **argv)
{
	char line[64];

	pairs = argc > 1 ? atol(argv[1]) : 20000;
	nthreads = argc > 2 ? atoi(argv[2]) : 1;
	depth = getenv("PAIR_DEPTH") ? atoi(getenv("PAIR_DEPTH")) : 0;
	if (depth < 0 || depth > 1000)
		return 2;
	if (pairs < 1 || nthreads < 1 || nthreads > 64)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "fill ", 5))
			fill((size_t)atol(line + 5));
		else if (!strncmp(line, "mark", 4))
			registry_add(), printf("marked\n");
		else if (!strncmp(line, "calls", 5))
			calls();
		else if (!strncmp(line, "child", 5))
			child();
		else
			run();
	}
	return 0;
}
