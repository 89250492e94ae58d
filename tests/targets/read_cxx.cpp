// SPDX-License-Identifier: GPL-2.0
/*
 * read_cxx.cpp - integration target for --read on C++: libstdc++
 * containers in globals that memwatch reads from the target's memory by
 * their DWARF types while four threads change them. Built -O2 -g.
 *
 * The oracle knows no layout: the replaced operator new charges every
 * block to the structure the thread is working on (a thread-local tag
 * set around each operation), and delete takes it back from the same, so
 * a structure's tally is the bytes its operations left live: the bytes
 * it retains.
 *
 * Commands: "run N" has four threads do N operations each, spread over
 * the structures, then, quiescent, replies "ran" and, for each structure
 * S, "S_len=L S_bytes=B"; "quit".
 */
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "say.h"

/* the replaced operators pair malloc and free themselves */
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

enum { NTAGS = 12, HDR = 16 };
static std::atomic<long> live[NTAGS];
static thread_local int tag;

/* Each block carries its requested size and its tag in front of it. */
void *operator new(std::size_t n)
{
	char *p = static_cast<char *>(std::malloc(n + HDR));
	long t = tag;

	if (!p)
		throw std::bad_alloc();
	std::memcpy(p, &n, sizeof(n));
	std::memcpy(p + sizeof(n), &t, sizeof(t));
	live[t].fetch_add((long)n, std::memory_order_relaxed);
	return p + HDR;
}

void operator delete(void *q) noexcept
{
	char *p = static_cast<char *>(q) - HDR;
	std::size_t n;
	long t;

	if (!q)
		return;
	std::memcpy(&n, p, sizeof(n));
	std::memcpy(&t, p + sizeof(n), sizeof(t));
	live[t].fetch_sub((long)n, std::memory_order_relaxed);
	std::free(p);
}

void operator delete(void *q, std::size_t) noexcept
{
	operator delete(q);
}

/* The structures memwatch reads, each with its tag, and their locks. */
std::unordered_map<std::string, std::vector<int>> g_umap;	/* 1 */
std::unordered_set<long> g_uset;				/* 2 */
std::map<int, std::string> g_omap;				/* 3 */
std::set<int> g_oset;						/* 4 */
std::list<double> g_list;					/* 5 */
std::deque<int> g_deque;					/* 6 */
std::vector<long> g_vec;					/* 7 */
std::string g_str;						/* 8 */
std::unique_ptr<std::vector<int>> g_up;				/* 9 */
std::vector<std::shared_ptr<std::vector<int>>> g_shares;	/* 10: pairs share one */
static std::mutex locks[NTAGS];

static const char *const names[] = { "umap", "uset", "omap", "oset", "list",
				     "deque", "vec", "str", "uptr", "shares" };
enum { NSTRUCTS = sizeof(names) / sizeof(names[0]) };

static void operate(int s, unsigned long k, unsigned long c)
{
	bool insert = c % 5 < 3;
	std::lock_guard<std::mutex> g(locks[s]);

	tag = s + 1;
	switch (s) {
	case 0:
		if (insert)
			g_umap["key-" + std::to_string(k)].push_back((int)c);
		else
			g_umap.erase("key-" + std::to_string(k));
		break;
	case 1:
		if (insert)
			g_uset.insert((long)k);
		else
			g_uset.erase((long)k);
		break;
	case 2:	/* short strings stay inside, long ones own a block */
		if (insert)
			g_omap[(int)k] = std::string(c % 40, 'x');
		else
			g_omap.erase((int)k);
		break;
	case 3:
		if (insert)
			g_oset.insert((int)k);
		else
			g_oset.erase((int)k);
		break;
	case 4:
		if (insert)
			g_list.push_back((double)k);
		else if (!g_list.empty())
			g_list.pop_front();
		break;
	case 5:
		if (insert)
			g_deque.push_back((int)k);
		else if (!g_deque.empty())
			g_deque.pop_front();
		if (c % 61 == 0)
			g_deque.shrink_to_fit();
		break;
	case 6:
		if (insert)
			g_vec.push_back((long)k);
		else if (!g_vec.empty())
			g_vec.pop_back();
		if (c % 97 == 0)
			g_vec.shrink_to_fit();
		break;
	case 7:
		if (insert)
			g_str += "abc";
		else
			g_str.resize(g_str.size() / 2);
		if (c % 89 == 0)
			g_str.shrink_to_fit();
		break;
	case 9:	/* make_shared (one block), or new (object and control block) */
		if (insert) {
			std::shared_ptr<std::vector<int>> p;

			if (c & 1)
				p = std::make_shared<std::vector<int>>(c % 30);
			else
				p.reset(new std::vector<int>(c % 30));
			g_shares.push_back(p);
			g_shares.push_back(p);
		} else if (!g_shares.empty()) {
			g_shares.erase(g_shares.begin() + (long)(c % g_shares.size()));
		}
		break;
	default:
		if (c % 53 == 0)
			g_up.reset();
		else if (!g_up)
			g_up.reset(new std::vector<int>());
		else
			g_up->push_back((int)k);
		break;
	}
	tag = 0;
}

static unsigned long iterations;

static void worker(unsigned long t)
{
	unsigned long x = 0x9e3779b97f4a7c15ul ^ (t + 1) * 0x1234567;

	for (unsigned long i = 0; i < iterations; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		operate((int)((i + t) % NSTRUCTS), x % 512, x >> 20);
	}
}

static size_t length(int s)
{
	switch (s) {
	case 0: return g_umap.size();
	case 1: return g_uset.size();
	case 2: return g_omap.size();
	case 3: return g_oset.size();
	case 4: return g_list.size();
	case 5: return g_deque.size();
	case 6: return g_vec.size();
	case 7: return g_str.size();
	case 9: return g_shares.size();
	default: return g_up ? g_up->size() : 0;
	}
}

int main()
{
	char line[64], reply[512];
	unsigned long n;

	{	/* the deque's static constructor allocated: swap in one
		 * built under its tag */
		tag = 6;
		std::deque<int> fresh;
		tag = 0;
		g_deque.swap(fresh);
	}
	say("ready pid=%d malloc=%p\n", (int)getpid(), (void *)malloc);
	while (fgets(line, sizeof(line), stdin)) {
		size_t used;

		if (sscanf(line, "run %lu", &n) != 1)
			break;
		iterations = n;
		{
			std::thread th[4] = { std::thread(worker, 0ul), std::thread(worker, 1ul),
					      std::thread(worker, 2ul), std::thread(worker, 3ul) };
			for (auto &t : th)
				t.join();
		}
		used = (size_t)snprintf(reply, sizeof(reply), "ran");
		for (int s = 0; s < NSTRUCTS && used < sizeof(reply); s++)
			used += (size_t)snprintf(reply + used, sizeof(reply) - used, " %s_len=%zu %s_bytes=%ld",
						 names[s], length(s), names[s], live[s + 1].load());
		say("%s\n", reply);
	}
	return 0;
}
