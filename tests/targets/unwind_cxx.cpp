// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_cxx.cpp - integration target for exceptions through probed
 * frames: memwatch must never change what a program does, and a C++
 * exception unwinds through every frame it crosses. Built -O2 against
 * libstdc++'s operators (unwind_cxx, with -fcf-protection) and against
 * jemalloc's own operator new (unwind_cxx_jemalloc), which throws
 * bad_alloc from inside the probed allocator frame.
 *
 * Each "run", on two threads at once, per round:
 *   - catches bad_alloc from ::operator new and new[] of 2^62 bytes;
 *   - reg_insert() (a structure's insert) throws invalid_argument for a
 *     bad key after allocating; caught two frames up (via() -> reg_insert);
 *   - outer_add() -> middle() -> reg_insert(): an exception crossing two
 *     probed frames and one plain one with cleanup code (a string it
 *     frees as the exception passes), caught above outer_add;
 *   - chk_insert() throws and catches inside itself and returns normally:
 *     its return must still be seen (memwatch restores the frames it
 *     borrowed for an unwind and takes them back for the survivors);
 *   - chk_insert() also takes a backtrace(3): its depth must not change;
 *   - tail_insert() ends in a tail call to reg_insert(), good keys only.
 * The reply tallies what memwatch must report: calls, returned values,
 * live bytes allocated inside reg_insert, failed allocator calls, and the
 * backtrace depth. "clear" frees every entry; "hold" forks a child that
 * waits for a signal ("held child=P", for its code to be looked at: the
 * caller kills it); "quit" exits 0.
 *
 * Usage: unwind_cxx [ROUNDS [HUGE]]: HUGE is the size of the news that
 * fail, in bytes (2^62 by default), or "ram" for RAM + swap + 1 GiB.
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <stdexcept>
#include <thread>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>
#include "say.h"

static const int kThreads = 2;
static const int kKeys = 64;		/* entries per thread */
static size_t huge = (size_t)1 << 62;

struct Entry {
	char *key;
	long value;
	char pad[24];
};

/* Per thread: the structure and the thread's own tally of it. */
struct Registry {
	Entry *slot[kKeys];
	long reg_calls, reg_returned, reg_bytes, reg_unwound;
	long outer_calls, chk_calls, chk_returned, tail_calls, tail_returned;
	long bad_alloc, caught, failed_calls, depth;
};

static Registry reg[kThreads];
static pthread_barrier_t go, done;
static std::atomic<int> command;
static int rounds;
static void *volatile sink;	/* keeps -O2 from eliding new/delete pairs */

/* MemTotal + SwapTotal, in bytes. */
static size_t ram_and_swap(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t sum = 0, kb;

	while (f && fgets(line, sizeof(line), f))
		if ((sscanf(line, "MemTotal: %zu", &kb) == 1) ||
		    (sscanf(line, "SwapTotal: %zu", &kb) == 1))
			sum += kb * 1024;
	if (f)
		fclose(f);
	return sum;
}


/* Inserts or replaces @key in @r; 1 if new, 0 if replaced. A key that
 * starts with '!' is refused, after a temporary allocation (freed while
 * the exception unwinds). */
__attribute__((noinline)) int reg_insert(Registry *r, const char *key)
{
	size_t len = strlen(key);
	char *tmp = new char[len + 1];
	unsigned h = 0;

	memcpy(tmp, key, len + 1);
	if (key[0] == '!') {
		delete[] tmp;
		throw std::invalid_argument("bad key");
	}
	for (size_t i = 0; i < len; i++)
		h = h * 31 + (unsigned char)key[i];
	Entry *&e = r->slot[h % kKeys];
	if (e && !strcmp(e->key, key)) {
		delete[] tmp;
		e->value++;
		return 0;
	}
	if (e) {		/* a collision: the old entry is dropped */
		r->reg_bytes -= (long)(sizeof(Entry) + strlen(e->key) + 1);
		delete[] e->key;
		delete e;
	}
	e = new Entry{ tmp, 1, {} };
	r->reg_bytes += (long)(sizeof(Entry) + len + 1);
	return 1;
}

__attribute__((noinline)) int via(Registry *r, const char *key)
{
	int v = reg_insert(r, key);

	asm volatile("" ::: "memory");	/* no tail call */
	return v;
}

/* Holds a string across the call: its destructor is cleanup code that
 * runs (and frees) before the handler is found to be further up. */
__attribute__((noinline)) int middle(Registry *r, const char *key)
{
	std::string note(64, 'm');
	int v = reg_insert(r, key) + 1;

	asm volatile("" : : "r"(note.data()) : "memory");
	return v;
}

__attribute__((noinline)) int outer_add(Registry *r, const char *key)
{
	int v = middle(r, key) - 1;

	asm volatile("" ::: "memory");
	return v;
}

/* Ends in a tail call (jmp reg_insert at -O2). */
__attribute__((noinline)) int tail_insert(Registry *r, const char *key)
{
	return reg_insert(r, key);
}

__attribute__((noinline)) void parse_or_throw(const char *key)
{
	if (key[0] == '!')
		throw std::runtime_error("unparsable");
}

/* Survives an exception of its own: throws and catches inside, returns
 * 1 either way, and records how deep the stack is. */
__attribute__((noinline)) int chk_insert(Registry *r, const char *key)
{
	void *frames[64];

	try {
		parse_or_throw(key);
	} catch (const std::runtime_error &) {
		r->caught++;
	}
	r->depth = backtrace(frames, 64);
	return 1;
}

/* One round of thread @t's script. */
static void round_of(int t, int n)
{
	Registry *r = &reg[t];
	char good[32], bad[32], tail[32];
	int v;

	snprintf(good, sizeof(good), "t%d-key-%d", t, n % 40);
	snprintf(bad, sizeof(bad), "!t%d-bad-%d", t, n);
	snprintf(tail, sizeof(tail), "t%d-tail-%d", t, n % 7);

	try {
		sink = ::operator new(huge);
		::operator delete(sink);
	} catch (const std::bad_alloc &) {
		r->bad_alloc++;
		r->failed_calls++;
	}
	try {
		sink = new char[huge];
		delete[] (char *)sink;
	} catch (const std::bad_alloc &) {
		r->bad_alloc++;
		r->failed_calls++;
	}

	r->reg_calls++;
	r->reg_returned += via(r, good);
	try {
		r->reg_calls++;
		r->reg_returned += via(r, bad);
	} catch (const std::invalid_argument &) {
		r->caught++;
		r->reg_unwound++;	/* reg_insert threw */
	}
	try {
		r->outer_calls++;
		r->reg_calls++;
		outer_add(r, bad);
	} catch (const std::exception &) {
		r->caught++;
		r->reg_unwound++;	/* and outer_add with it */
	}
	r->chk_calls++;
	r->chk_returned += chk_insert(r, n % 2 ? bad : good);
	r->tail_calls++;
	r->reg_calls++;
	v = tail_insert(r, tail);
	r->tail_returned += v;
	r->reg_returned += v;
}

static void clear(int t)
{
	Registry *r = &reg[t];

	for (Entry *&e : r->slot) {
		if (!e)
			continue;
		delete[] e->key;
		delete e;
		e = nullptr;
	}
	r->reg_bytes = 0;
}

static void worker(int t)
{
	/* warm-up, before "ready": the first throw of a thread sets up the
	 * unwinder's caches and its exception globals */
	round_of(t, 0);
	clear(t);
	reg[t] = Registry{};
	pthread_barrier_wait(&done);
	for (;;) {
		pthread_barrier_wait(&go);
		int c = command.load();
		if (c == 3)
			return;
		if (c == 1)
			for (int n = 0; n < rounds; n++)
				round_of(t, n);
		else
			clear(t);
		pthread_barrier_wait(&done);
	}
}

static void reply(const char *what)
{
	Registry sum{};

	for (const Registry &r : reg) {
		sum.reg_calls += r.reg_calls;
		sum.reg_returned += r.reg_returned;
		sum.reg_bytes += r.reg_bytes;
		sum.outer_calls += r.outer_calls;
		sum.chk_calls += r.chk_calls;
		sum.chk_returned += r.chk_returned;
		sum.tail_calls += r.tail_calls;
		sum.tail_returned += r.tail_returned;
		sum.bad_alloc += r.bad_alloc;
		sum.caught += r.caught;
		sum.reg_unwound += r.reg_unwound;
		sum.failed_calls += r.failed_calls;
		sum.depth = sum.depth > r.depth ? sum.depth : r.depth;
	}
	say("%s reg_calls=%ld reg_returned=%ld reg_bytes=%ld reg_unwound=%ld outer_calls=%ld "
	    "chk_calls=%ld chk_returned=%ld tail_calls=%ld tail_returned=%ld "
	    "bad_alloc=%ld caught=%ld failed_calls=%ld depth=%ld\n",
	    what, sum.reg_calls, sum.reg_returned, sum.reg_bytes, sum.reg_unwound,
	    sum.outer_calls, sum.chk_calls, sum.chk_returned, sum.tail_calls,
	    sum.tail_returned, sum.bad_alloc, sum.caught, sum.failed_calls,
	    sum.depth);
}

int main(int argc, char **argv)
{
	char line[64];
	std::thread th[kThreads];

	rounds = argc > 1 ? atoi(argv[1]) : 50;
	if (argc > 2)
		huge = strcmp(argv[2], "ram") ? strtoull(argv[2], nullptr, 0) : ram_and_swap() + (1ul << 30);
	pthread_barrier_init(&go, nullptr, kThreads + 1);
	pthread_barrier_init(&done, nullptr, kThreads + 1);
	for (int t = 0; t < kThreads; t++)
		th[t] = std::thread(worker, t);
	pthread_barrier_wait(&done);
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	for (;;) {
		ssize_t n = read(0, line, sizeof(line) - 1);

		if (n <= 0)
			break;
		line[n] = '\0';
		if (!strncmp(line, "hold", 4)) {
			pid_t child = fork();

			if (child == 0)
				for (;;)
					pause();
			say("held child=%d\n", (int)child);
			continue;
		}
		command = !strncmp(line, "run", 3) ? 1 : !strncmp(line, "clear", 5) ? 2 : 3;
		pthread_barrier_wait(&go);
		if (command == 3)
			break;
		pthread_barrier_wait(&done);
		reply(command == 1 ? "ran" : "cleared");
	}
	if (command != 3) {
		command = 3;
		pthread_barrier_wait(&go);
	}
	for (auto &x : th)
		x.join();
	return 0;
}
