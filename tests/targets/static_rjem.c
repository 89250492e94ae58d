// SPDX-License-Identifier: GPL-2.0
/*
 * static_rjem.c - a statically linked allocator under prefixed names, as
 * a Rust node linking tikv-jemallocator has (_rjem_malloc, _rjem_mallocx,
 * _rjem_sdallocx, ...): a small size-class allocator on its own mmap
 * arena that never calls glibc. The program also allocates through glibc
 * malloc, as C dependencies do. memwatch must find both without being
 * told. Commands: run, free, quit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "say.h"

#define ARENA_BYTES (64u << 20)
#define CLASSES 24		/* 16 << class */

/* ------------------------------------------------- the prefixed allocator */

struct header { size_t cls; size_t pad; };	/* 16 bytes before a block */

static char *arena, *bump;
static void *free_list[CLASSES];

static size_t class_of(size_t size)
{
	size_t c = 0;

	while (((size_t)16 << c) < size && c < CLASSES)
		c++;
	return c;
}

__attribute__((noinline, used)) void *_rjem_mallocx(size_t size, int flags)
{
	size_t c = class_of(size ? size : 1);
	struct header *h;

	if (c >= CLASSES)
		return NULL;
	if (free_list[c]) {
		h = free_list[c];
		free_list[c] = *(void **)(h + 1);
	} else {
		if (!arena)
			bump = arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if ((size_t)(bump - arena) + sizeof(*h) + ((size_t)16 << c) > ARENA_BYTES)
			return NULL;
		h = (struct header *)bump;
		bump += sizeof(*h) + ((size_t)16 << c);
	}
	h->cls = c;
	if (flags & 0x40)	/* MALLOCX_ZERO */
		memset(h + 1, 0, (size_t)16 << c);
	return h + 1;
}

__attribute__((noinline, used)) void *_rjem_malloc(size_t size)
{
	return _rjem_mallocx(size, 0);
}

__attribute__((noinline, used)) void *_rjem_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return _rjem_mallocx(n * size, 0x40);
}

__attribute__((noinline, used)) void _rjem_free(void *p)
{
	struct header *h;

	if (!p)
		return;
	h = (struct header *)p - 1;
	*(void **)p = free_list[h->cls];
	free_list[h->cls] = h;
}

__attribute__((noinline, used)) void _rjem_sdallocx(void *p, size_t size, int flags)
{
	_rjem_free(p);
}

__attribute__((noinline, used)) void _rjem_dallocx(void *p, int flags)
{
	_rjem_free(p);
}

/* In place: the real size (the class size), at least @size if it fits. */
__attribute__((noinline, used)) size_t _rjem_xallocx(void *p, size_t size,
						    size_t extra, int flags)
{
	return (size_t)16 << ((struct header *)p - 1)->cls;
}

__attribute__((noinline, used)) void *_rjem_rallocx(void *p, size_t size, int flags)
{
	size_t have = (size_t)16 << ((struct header *)p - 1)->cls;
	void *q;

	if (size <= have)
		return p;
	q = _rjem_mallocx(size, 0);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	_rjem_free(p);
	return q;
}

__attribute__((noinline, used)) void *_rjem_realloc(void *p, size_t size)
{
	return p ? _rjem_rallocx(p, size, 0) : _rjem_mallocx(size, 0);
}

/* ----------------------------------------------------------- the script */

struct block { void *p; size_t size; int glibc; };
static struct block kept[100000];
static size_t nkept;
static unsigned long failed;


static void keep(void *p, size_t size, int glibc)
{
	kept[nkept++] = (struct block){ p, size, glibc };
}

static void run(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		void *p = _rjem_malloc(100 + (size_t)r);
		size_t got;

		keep(_rjem_calloc(4, 25), 100, 0);
		p = _rjem_rallocx(p, 3000, 0);		/* moves: 3000 */
		got = _rjem_xallocx(p, 2000, 0, 0);	/* in place */
		keep(p, got >= 2000 ? 2000 : 3000, 0);
		if (_rjem_xallocx(p, 1 << 20, 0, 0) < (1 << 20))
			failed++;
		keep(_rjem_realloc(NULL, 48), 48, 0);
		_rjem_sdallocx(_rjem_mallocx(64, 0), 64, 0);
		_rjem_dallocx(_rjem_mallocx(32, 0x40), 0);
		if (!_rjem_calloc(SIZE_MAX / 2, 3))
			failed++;
		keep(malloc(77), 77, 1);		/* glibc, as C code does */
		free(malloc(10));
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	char line[64];

	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	for (;;) {
		ssize_t n = read(0, line, sizeof(line) - 1);
		unsigned long long bytes = 0;

		if (n <= 0 || (strncmp(line, "run", 3) && strncmp(line, "free", 4)))
			return 0;
		if (!strncmp(line, "run", 3)) {
			run(rounds);
		} else {
			for (size_t i = 0; i < nkept; i++)
				kept[i].glibc ? free(kept[i].p) : _rjem_free(kept[i].p);
			nkept = 0;
		}
		for (size_t i = 0; i < nkept; i++)
			bytes += kept[i].size;
		say("%s live_bytes=%llu live_allocations=%zu failed=%lu untracked=0\n",
		    line[0] == 'r' ? "ran" : "freed", bytes, nkept, failed);
	}
}
