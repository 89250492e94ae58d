// SPDX-License-Identifier: GPL-2.0
/*
 * nocfi_target.c - allocates through libnocfi.so, whose code no unwind
 * table covers, from a chain of its own (main -> run -> via ->
 * nocfi_alloc). "run" allocates 10 blocks of 100 bytes and keeps them:
 * "ran bytes=1000"; "quit" exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "say.h"

void *nocfi_alloc(size_t n);

static void *kept[1024];
static int nkept;

__attribute__((noinline)) static void via(void)
{
	kept[nkept++ & 1023] = nocfi_alloc(100);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void run(void)
{
	for (int i = 0; i < 10; i++)
		via();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	char line[64];

	say("ready pid=%d malloc=%p\n", (int)getpid(), (void *)malloc);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "run", 3)) {
			run();
			say("ran bytes=%d\n", 100 * 10);
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return 0;
}
