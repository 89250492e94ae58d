// SPDX-License-Identifier: GPL-2.0
/*
 * demo.cpp - the program `make demo` observes: a cache, a
 * std::unordered_map of strings, that grows for three seconds and is
 * trimmed for two, in a loop, so the feed shows the heap and the
 * structure moving. memwatch counts it two ways: by the calls of its
 * insert and remove functions (--struct cache --insert cache_insert ...,
 * a change since attach), and by reading the map itself from memory
 * (--read cache: its length and the bytes it holds, absolute).
 */
#include <cstdlib>
#include <ctime>
#include <string>
#include <unordered_map>

std::unordered_map<unsigned long, std::string> cache;
static unsigned long next_key, oldest;

/* Adds one entry: its node, its string, at times a larger bucket array. */
extern "C" __attribute__((noinline)) void cache_insert(size_t value_size)
{
	cache.emplace(next_key++, std::string(value_size, 'x'));
}

/* Removes the oldest entry; returns 1 if there was one. */
extern "C" __attribute__((noinline)) int cache_remove(void)
{
	if (oldest == next_key)
		return 0;
	cache.erase(oldest++);
	return 1;
}

int main(void)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	for (unsigned long step = 0;; step++) {
		/* 3 s of growth (+50 entries per tick), 2 s of trimming */
		if (step % 50 < 30)
			for (int i = 0; i < 50; i++)
				cache_insert(64 + (size_t)(rand() % 4096));
		else
			for (int i = 0; i < 60; i++)
				cache_remove();
		nanosleep(&tick, NULL);
	}
}
