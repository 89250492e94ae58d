// SPDX-License-Identifier: GPL-2.0
/*
 * chains_cxx.cpp - chains.c's protocol from C++ built -O2 without frame
 * pointers, on libstdc++ (Debian's, no frame pointers): six chains
 * through a virtual call, a std::function, a template's levels (each its
 * own function), a C callback in libchains.so or glibc's qsort, in the
 * main thread or a std::thread. Each leaf takes glibc's backtrace(3) of
 * itself, then allocates its chain's size with operator new (libstdc++'s,
 * which calls malloc) and keeps the block.
 * Commands: run, chain K ("chain K size S count N same Y bt A0 ..."), quit.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <thread>
#include <unistd.h>
#include "say.h"

extern "C" void chains_each(void (*fn)(void *), void *arg, int times);	/* libchains.so */

namespace {

constexpr int NCHAINS = 6, ROUNDS = 50, MAXF = 40;

struct Chain {
	int depth, via;		/* via: 0 library callback, 1 qsort, 2 direct */
	bool in_worker;
	size_t size;
	void *bt[MAXF];
	int nbt, count;
	bool same;
};

Chain chains[NCHAINS];
void *kept[NCHAINS * ROUNDS * 2];
int nkept;
Chain *sorting;

__attribute__((noinline)) void leaf(Chain *c)
{
	void *bt[MAXF];
	int n = backtrace(bt, MAXF);
	void *p = ::operator new(c->size);

	if (!c->count) {
		memcpy(c->bt, bt, sizeof(bt));
		c->nbt = n;
		c->same = true;
	} else if (n != c->nbt || memcmp(c->bt + 1, bt + 1, (size_t)(n - 1) * sizeof(void *))) {
		c->same = false;
	}
	c->count++;
	kept[__atomic_fetch_add(&nkept, 1, __ATOMIC_RELAXED)] = p;
}

extern "C" void on_item(void *arg)
{
	leaf(static_cast<Chain *>(arg));
	__asm__ volatile("" ::: "memory");
}

extern "C" int by_value(const void *a, const void *b)
{
	leaf(sorting);
	return *static_cast<const int *>(a) - *static_cast<const int *>(b);
}

struct Stage {
	virtual void enter(Chain *c) = 0;
	virtual ~Stage() = default;
};

struct Bottom : Stage {
	__attribute__((noinline)) void enter(Chain *c) override
	{
		if (c->via == 0) {
			chains_each(on_item, c, 1);
		} else if (c->via == 1) {
			int pair[2] = { 2, 1 };	/* two items: one comparison */

			sorting = c;
			qsort(pair, 2, sizeof(int), by_value);
		} else {
			leaf(c);
		}
		__asm__ volatile("" ::: "memory");
	}
};

Stage *bottom = new Bottom;

template <int N> __attribute__((noinline)) void level(Chain *c, int more)
{
	if (more > 0)
		level<N + 1>(c, more - 1);
	else
		bottom->enter(c);
	__asm__ volatile("" ::: "memory");	/* every level a frame: no tail call */
}
template <> __attribute__((noinline)) void level<20>(Chain *c, int)
{
	bottom->enter(c);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void run_chains(bool in_worker)
{
	std::function<void(Chain *)> each = [](Chain *c) { level<0>(c, c->depth); };

	for (int r = 0; r < ROUNDS; r++)
		for (auto &c : chains)
			if (c.in_worker == in_worker)
				each(&c);
	__asm__ volatile("" ::: "memory");
}

void reply_chain(int k)
{
	char line[512];
	const Chain &c = chains[k];
	int len = snprintf(line, sizeof(line), "chain %d size %zu count %d same %d bt", k, c.size,
			   c.count, (int)c.same);

	for (int i = 0; i < c.nbt && len < (int)sizeof(line) - 24; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %p", c.bt[i]);
	say("%s\n", line);
}

}  // namespace

int main()
{
	pthread_barrier_t go, done;
	volatile bool quit = false;
	void *warm[4];
	char line[64];
	int n;

	for (int k = 0; k < NCHAINS; k++)
		chains[k] = Chain{ 2 + 3 * k, k % 3, k % 2 == 1, 1000 + 16 * (size_t)k, {}, 0, 0, false };
	pthread_barrier_init(&go, nullptr, 2);
	pthread_barrier_init(&done, nullptr, 2);
	backtrace(warm, 4);	/* loads libgcc_s before anyone watches */
	std::thread worker([&] {
		for (;;) {
			pthread_barrier_wait(&go);
			if (quit)
				return;
			run_chains(true);
			pthread_barrier_wait(&done);
		}
	});
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	while ((n = (int)read(0, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		if (!strncmp(line, "run", 3)) {
			run_chains(false);
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
	quit = true;
	pthread_barrier_wait(&go);
	worker.join();
	return 0;
}
