// SPDX-License-Identifier: GPL-2.0
/* libsites.c - the shared library half of sites_target: an allocation
 * site in another object than the executable. */
#include <stdlib.h>

__attribute__((noinline)) void *lib_alloc(size_t n)
{
	return malloc(n);
}
