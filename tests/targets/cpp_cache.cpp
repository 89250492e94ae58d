// SPDX-License-Identifier: GPL-2.0
/*
 * cpp_cache.cpp - integration target for structures in C++: store::Cache,
 * a std::unordered_map<std::string, std::string> behind a mutex, shared by
 * several threads. The global operator new and delete are replaced so that
 * the target keeps its own exact tally of what memwatch charges to the
 * structure: blocks a thread allocates while inside Cache::insert (nodes,
 * long strings, rehashed bucket arrays), in requested bytes, still live.
 *
 * Threads are created and warmed up before "ready"; then, on "run" from
 * stdin, each runs a known mix of new inserts, replacing inserts, erases
 * and missed erases; "clear" erases every key and releases the bucket
 * array; "quit" exits. Replies are single lines written with write(2).
 *
 * Usage: cpp_cache [THREADS [OPS]]
 */
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include "say.h"

#define MAX_THREADS 8
#define MAX_OPS 2000

/* ------------------------------------------------------------ the tally */

/*
 * Charged blocks, by address: those allocated while this thread is inside
 * Cache::insert, after "ready". A fixed table, so that keeping the tally
 * allocates nothing itself. Open addressing; freed slots become
 * tombstones, reused by later charges.
 */
namespace tally {

constexpr size_t slots = 1 << 18;	/* > 3 blocks per key of MAX_OPS * MAX_THREADS */
constexpr uintptr_t tombstone = 1;

struct slot {
	uintptr_t addr;		/* 0: never used; tombstone: freed */
	size_t size;
};

static slot table[slots];
static std::mutex mu;
static long long live_bytes, live_blocks;
static bool tracking;		/* set before "ready"; read after a barrier */
static thread_local int in_insert;	/* Cache::insert frames on this thread */

static size_t home(uintptr_t addr)
{
	return (addr >> 4) * 0x9e3779b97f4a7c15ull >> 46;	/* 18 bits */
}

static void charge(void *p, size_t size)
{
	std::lock_guard<std::mutex> lock(mu);
	size_t i = home((uintptr_t)p);

	if (live_blocks >= (long long)slots / 2)
		abort();	/* the tally would be wrong: fail loudly */
	while (table[i].addr > tombstone)
		i = (i + 1) & (slots - 1);
	table[i] = slot{ (uintptr_t)p, size };
	live_bytes += (long long)size;
	live_blocks++;
}

/* Takes @p off the tally if it was charged. */
static void discharge(void *p)
{
	std::lock_guard<std::mutex> lock(mu);

	size_t i = home((uintptr_t)p);

	for (size_t n = 0; n < slots && table[i].addr; n++, i = (i + 1) & (slots - 1)) {
		if (table[i].addr == (uintptr_t)p) {
			live_bytes -= (long long)table[i].size;
			live_blocks--;
			table[i].addr = tombstone;
			return;
		}
	}
}

} /* namespace tally */

/* operator new is malloc of the same size (1 for 0, as libstdc++ does), so
 * the size recorded is the size memwatch sees requested. */
void *operator new(size_t size)
{
	size_t request = size ? size : 1;
	void *p = malloc(request);

	if (!p)
		throw std::bad_alloc();
	if (tally::tracking && tally::in_insert)
		tally::charge(p, request);
	return p;
}

void operator delete(void *p) noexcept
{
	if (!p)
		return;
	/* off the tally before free: once freed, another thread may be handed
	 * the same address and charge it */
	if (tally::tracking)
		tally::discharge(p);
	free(p);
}

void *operator new[](size_t size) { return operator new(size); }
void operator delete[](void *p) noexcept { operator delete(p); }
void operator delete(void *p, size_t) noexcept { operator delete(p); }
void operator delete[](void *p, size_t) noexcept { operator delete(p); }

/* ------------------------------------------------------------ the cache */

namespace store {

class Cache {
public:
	/* true if @key is new, false if its value was replaced */
	__attribute__((noinline, noipa))
	bool insert(const std::string &key, const std::string &value);
	/* false if @key was missing */
	__attribute__((noinline, noipa))
	bool erase(const std::string &key);
	size_t size();
	/* frees the bucket array; the cache must be empty */
	void release();

private:
	std::mutex mu_;
	std::unordered_map<std::string, std::string> map_;
};

/* Marks the thread as inside insert for the tally, from its first
 * statement to its return: memwatch's scope is the whole call. */
struct InsertScope {
	InsertScope() { tally::in_insert++; }
	~InsertScope() { tally::in_insert--; }
};

bool Cache::insert(const std::string &key, const std::string &value)
{
	InsertScope scope;
	std::lock_guard<std::mutex> lock(mu_);
	auto [it, fresh] = map_.try_emplace(key, value);

	if (!fresh)
		it->second = value;	/* may reallocate a longer value */
	return fresh;
}

bool Cache::erase(const std::string &key)
{
	std::lock_guard<std::mutex> lock(mu_);

	return map_.erase(key) == 1;
}

size_t Cache::size()
{
	std::lock_guard<std::mutex> lock(mu_);

	return map_.size();
}

void Cache::release()
{
	std::lock_guard<std::mutex> lock(mu_);

	std::unordered_map<std::string, std::string>().swap(map_);
}

} /* namespace store */

/* ------------------------------------------------------------ the workers */

struct worker {
	int index;
	long long inserted, replaced, erased, missed;
};

static store::Cache cache, warm;
static worker workers[MAX_THREADS];
static int nthreads, ops;
static pthread_barrier_t go, done;
static volatile int command;	/* 1 run, 2 clear, 3 quit */


/* A third of the keys fit std::string's inline buffer (15 chars), the
 * rest are heap blocks of their own. */
static std::string key_of(int t, int i)
{
	char buf[64];

	snprintf(buf, sizeof(buf), i % 3 ? "store/thread-%d/key-%05d" : "k%d.%d", t, i);
	return buf;
}

/* 0 to 47 chars: inline, heap, and replacements both longer and shorter */
static std::string value_of(int t, int i, int generation)
{
	return std::string((size_t)((i * 13 + generation * 29) % 48), (char)('a' + t));
}

static void insert_one(worker *w, store::Cache *c, int i, int generation)
{
	if (c->insert(key_of(w->index, i), value_of(w->index, i, generation)))
		w->inserted++;
	else
		w->replaced++;
}

static void erase_one(worker *w, store::Cache *c, int i)
{
	if (c->erase(key_of(w->index, i)))
		w->erased++;
	else
		w->missed++;
}

/* Op i inserts key i; every third op replaces key i - 1, every fifth
 * erases key i - 2, every seventh misses a key never inserted. */
static void run_mix(worker *w, store::Cache *c, int nops)
{
	for (int i = 0; i < nops; i++) {
		insert_one(w, c, i, 0);
		if (i % 3 == 1)
			insert_one(w, c, i - 1, 1);
		if (i % 5 == 2)
			erase_one(w, c, i - 2);
		if (i % 7 == 3)
			erase_one(w, c, i + MAX_OPS);
	}
}

static void clear_all(worker *w, store::Cache *c, int nops)
{
	for (int i = 0; i < nops; i++)
		erase_one(w, c, i);
}

static void worker_main(worker *w)
{
	/* warm-up: binds symbols and creates this thread's malloc arena */
	worker scratch = { w->index, 0, 0, 0, 0 };

	run_mix(&scratch, &warm, 20);
	clear_all(&scratch, &warm, 20);
	pthread_barrier_wait(&done);
	for (;;) {
		pthread_barrier_wait(&go);
		if (command == 1)
			run_mix(w, &cache, ops);
		else if (command == 2)
			clear_all(w, &cache, ops);
		else
			return;
		pthread_barrier_wait(&done);
	}
}

/* One command line, read a byte at a time: commands sent together stay
 * apart. End of input reads as an empty line. */
static void read_line(char *line, size_t len)
{
	size_t n = 0;

	while (n + 1 < len && read(STDIN_FILENO, &line[n], 1) == 1 && line[n] != '\n')
		n++;
	line[n] = '\0';
}

static void reply(const char *what)
{
	long long inserted = 0, replaced = 0, erased = 0, missed = 0;
	long long bytes, blocks;

	for (int t = 0; t < nthreads; t++) {
		inserted += workers[t].inserted;
		replaced += workers[t].replaced;
		erased += workers[t].erased;
		missed += workers[t].missed;
	}
	{
		std::lock_guard<std::mutex> lock(tally::mu);
		bytes = tally::live_bytes;
		blocks = tally::live_blocks;
	}
	if ((long long)cache.size() != inserted - erased) {
		say("error map size %zu, but %lld inserted and %lld erased\n",
		    cache.size(), inserted, erased);
		exit(4);
	}
	say("%s elements=%lld bytes=%lld blocks=%lld inserted=%lld replaced=%lld erased=%lld missed=%lld\n",
	    what, inserted - erased, bytes, blocks, inserted, replaced, erased, missed);
}

int main(int argc, char **argv)
{
	std::vector<std::thread> threads;
	char line[64];

	nthreads = argc > 1 ? atoi(argv[1]) : 4;
	ops = argc > 2 ? atoi(argv[2]) : 300;
	if (nthreads < 1 || nthreads > MAX_THREADS || ops < 1 || ops > MAX_OPS)
		return 2;
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
	for (int t = 0; t < nthreads; t++) {
		workers[t].index = t;
		threads.emplace_back(worker_main, &workers[t]);
	}
	/* every thread warmed up, the warm-up cache gone, the cache empty:
	 * from here on the tally counts what memwatch will count */
	pthread_barrier_wait(&done);
	warm.release();
	tally::tracking = true;
	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	for (;;) {
		read_line(line, sizeof(line));
		command = !strncmp(line, "run", 3) ? 1 : !strncmp(line, "clear", 5) ? 2 : 3;
		pthread_barrier_wait(&go);
		if (command == 3)
			break;
		pthread_barrier_wait(&done);
		if (command == 2)
			cache.release();
		reply(command == 1 ? "ran" : "cleared");
	}
	for (auto &th : threads)
		th.join();
	return 0;
}
