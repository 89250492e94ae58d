// SPDX-License-Identifier: GPL-2.0
/*
 * cxx_new.cpp - C++ operators new and delete in every form (plain, array,
 * nothrow, aligned, sized), from two threads, with the target's own tally.
 * Built twice: against libstdc++'s operators (which call malloc) and
 * against jemalloc's own (cxx_jemalloc). Commands: run, free, quit.
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include "say.h"

struct alignas(64) Wide { char bytes[192]; };
struct Node { long key; char pad[40]; };

struct Kept { void *p; size_t size; int kind; };

static const int kThreads = 2;
static std::vector<Kept> kept[kThreads];
static pthread_barrier_t go, done;
static std::atomic<int> command;
static int rounds;


enum { K_NODE, K_ARRAY, K_WIDE, K_WIDE_ARRAY, K_NOTHROW, K_BYTES };

static void script(int t)
{
	std::vector<Kept> &k = kept[t];

	for (int r = 0; r < rounds; r++) {
		k.push_back({ new Node, sizeof(Node), K_NODE });
		k.push_back({ new char[100 + t], (size_t)(100 + t), K_ARRAY });
		k.push_back({ new Wide, sizeof(Wide), K_WIDE });
		k.push_back({ new Wide[3], 3 * sizeof(Wide), K_WIDE_ARRAY });
		k.push_back({ new (std::nothrow) Node, sizeof(Node), K_NOTHROW });
		k.push_back({ ::operator new(333), 333, K_BYTES });
		delete new Node;			/* sized delete */
		delete[] new char[50];
		delete new Wide;			/* aligned, sized delete */
		::operator delete(::operator new(77));
		Node *n = new (std::nothrow) Node;
		::operator delete(n, std::nothrow);
	}
}

static void release(int t)
{
	for (Kept &x : kept[t]) {
		switch (x.kind) {
		case K_NODE: delete (Node *)x.p; break;
		case K_ARRAY: delete[] (char *)x.p; break;
		case K_WIDE: delete (Wide *)x.p; break;
		case K_WIDE_ARRAY: delete[] (Wide *)x.p; break;
		case K_NOTHROW: delete (Node *)x.p; break;
		default: ::operator delete(x.p, x.size); break;
		}
	}
	kept[t].clear();
}

static void worker(int t)
{
	kept[t].reserve(100000);	/* no growth while observed */
	for (;;) {
		pthread_barrier_wait(&go);
		int c = command.load();
		if (c == 3)
			return;
		if (c == 1)
			script(t);
		else
			release(t);
		pthread_barrier_wait(&done);
	}
}

/* The same reply as alloc_script's: nothing here fails or predates attach. */
static void tally(const char *what)
{
	unsigned long long bytes = 0, blocks = 0;

	for (int t = 0; t < kThreads; t++)
		for (Kept &x : kept[t]) {
			bytes += x.size;
			blocks++;
		}
	say("%s live_bytes=%llu live_allocations=%llu failed=0 untracked=0\n",
	    what, bytes, blocks);
}

int main(int argc, char **argv)
{
	char line[64];
	std::thread th[kThreads];

	rounds = argc > 1 ? atoi(argv[1]) : 50;
	pthread_barrier_init(&go, nullptr, kThreads + 1);
	pthread_barrier_init(&done, nullptr, kThreads + 1);
	for (int t = 0; t < kThreads; t++)
		th[t] = std::thread(worker, t);
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	for (;;) {
		ssize_t n = read(0, line, sizeof(line) - 1);

		if (n <= 0)
			break;
		line[n] = '\0';
		command = !strncmp(line, "run", 3) ? 1 : !strncmp(line, "free", 4) ? 2 : 3;
		pthread_barrier_wait(&go);
		if (command == 3)
			break;
		pthread_barrier_wait(&done);
		tally(command == 1 ? "ran" : "freed");
	}
	if (command != 3) {
		command = 3;
		pthread_barrier_wait(&go);
	}
	for (auto &x : th)
		x.join();
	return 0;
}
