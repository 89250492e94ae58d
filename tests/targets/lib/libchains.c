// SPDX-License-Identifier: GPL-2.0
/* libchains.c - the shared library half of the chains targets: a frame
 * in another object, built without frame pointers, that calls back into
 * the program. */
__attribute__((noinline)) void chains_each(void (*fn)(void *), void *arg, int times)
{
	volatile int n = times;

	for (int i = 0; i < n; i++)
		fn(arg);
	__asm__ volatile("" ::: "memory");	/* a frame of its own, no tail call */
}
