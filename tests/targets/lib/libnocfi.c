// SPDX-License-Identifier: GPL-2.0
/* libnocfi.c - a library built without unwind tables
 * (-fno-asynchronous-unwind-tables -fno-unwind-tables): no FDE covers its
 * code, so a stack walked by unwind tables must end in it, as truncated,
 * and never guess a frame past it. */
#include <stdlib.h>
#include <string.h>

/* A block of @n bytes, its first byte set: not a tail call of malloc. */
__attribute__((noinline)) void *nocfi_alloc(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, 1);
	return p;
}
