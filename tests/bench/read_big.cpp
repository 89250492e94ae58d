// SPDX-License-Identifier: GPL-2.0
/*
 * read_big.cpp - `make bench`'s C++ target for --read: a global
 * std::unordered_map<std::string, std::vector<int>> of N entries
 * (argument 1, 1,000,000 by default), then on "spin" a second of lookups
 * in it, replying "OPS ops": what memwatch reading the map every interval
 * costs the program, if anything.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

std::unordered_map<std::string, std::vector<int>> g_big;
static std::mutex lock;

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, x = 1, acc = 0;
	char line[64], key[32];

	for (unsigned long k = 0; k < n; k++)
		g_big["key-" + std::to_string(k)] = std::vector<int>(k % 8, (int)k);
	printf("ready n=%lu\n", n);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && !strncmp(line, "spin", 4)) {
		auto t = std::chrono::steady_clock::now();
		unsigned long ops = 0;

		while (std::chrono::steady_clock::now() - t < std::chrono::seconds(1)) {
			for (int i = 0; i < 1000; i++, ops++) {
				x = x * 6364136223846793005ul + 1442695040888963407ul;
				snprintf(key, sizeof(key), "key-%lu", (x >> 16) % n);
				std::lock_guard<std::mutex> g(lock);
				auto it = g_big.find(key);
				acc += it == g_big.end() ? 0 : it->second.size();
			}
		}
		printf("%lu ops %lu\n", ops, acc % 7);
		fflush(stdout);
	}
	return 0;
}
