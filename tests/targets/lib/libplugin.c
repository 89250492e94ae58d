// SPDX-License-Identifier: GPL-2.0
/* libplugin.c - a library launch_target loads with dlopen after start:
 * a structure whose insert function, and its allocations, live in an
 * object that was not mapped when memwatch attached. */
#include <stdlib.h>

struct pnode { struct pnode *next; char data[]; };
static struct pnode *head;

/* Adds one element of @n bytes; returns the bytes it allocated. */
__attribute__((noinline)) size_t plugin_add(size_t n)
{
	struct pnode *p = malloc(sizeof(*p) + n);

	if (!p)
		abort();
	p->next = head;
	head = p;
	return sizeof(*p) + n;
}
