// SPDX-License-Identifier: GPL-2.0
/*
 * optimized.c - integration target for structures in a release build
 * (-O2, -fcf-protection): what the compiler does to functions, each case
 * one structure, each keeping the target's own tally.
 *
 *   index, table  index_add() ends in a tail call of table_insert() (each
 *                 its structure's insert, --delta ret on table: the final
 *                 return value is table_insert's); index_del() ends in a
 *                 tail call of table_remove()
 *   blob          blob_new() ends in `return malloc(n)`
 *   items         item_push(), static and always called with the same
 *                 list: GCC emits only item_push.constprop.N
 *   pairs         pair_put(), static and given a struct it reads one field
 *                 of: GCC emits only pair_put.isra.N
 *   regs          reg_insert(), whose failure path GCC moves to
 *                 reg_insert.cold
 *   cache         cache_add(), whose fast path GCC inlines into its callers
 *                 and whose rest it outlines as cache_add.part.N, which
 *                 cache_add reaches by a tail jump
 *   split         split_add(), the same split written out where the
 *                 header calls its part (a header that keeps a frame)
 *
 * Each check confirms the shape with nm first (tests/integration/
 * test_optimized.c). Commands on stdin: run N (N rounds of every case),
 * quit. Each reply is one line with the target's tally.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "say.h"

/* the target's own tally */
static long long index_elements, index_calls, table_elements, table_calls;
static long long table_remove_calls, index_remove_calls, index_ret;
static long long blob_bytes, blob_calls, items_elements, pairs_elements;
static long long regs_elements, regs_failed, cache_elements;
static volatile int sink;

struct node { struct node *next; long key; };

static struct node *table_head, *index_head;

static void *must(void *p)
{
	if (!p) {
		say("error allocation failed\n");
		exit(4);
	}
	return p;
}

/* ------------------------------------------------------ tail calls */

__attribute__((noinline)) int table_insert(long key)
{
	struct node *n;

	table_calls++;
	for (n = table_head; n; n = n->next)
		if (n->key == key)
			return 0;
	n = must(malloc(sizeof(*n)));
	n->key = key;
	n->next = table_head;
	table_head = n;
	table_elements++;
	return 1;
}

__attribute__((noinline)) int table_remove(long key)
{
	struct node **p, *n;

	table_remove_calls++;
	for (p = &table_head; (n = *p); p = &n->next)
		if (n->key == key) {
			*p = n->next;
			free(n);
			table_elements--;
			return 1;
		}
	return 0;
}

/* adds to the index, then tail-calls table_insert: jmp table_insert */
__attribute__((noinline)) int index_add(long key)
{
	struct node *n = must(malloc(sizeof(*n)));

	index_calls++;
	n->key = key;
	n->next = index_head;
	index_head = n;
	index_elements++;
	return table_insert(key);
}

__attribute__((noinline)) int index_del(long key)
{
	struct node **p, *n;

	index_remove_calls++;
	for (p = &index_head; (n = *p); p = &n->next)
		if (n->key == key) {
			*p = n->next;
			free(n);
			index_elements--;
			break;
		}
	return table_remove(key);
}

/* ---------------------------------------------- insert into malloc */

__attribute__((noinline)) void *blob_new(size_t n)
{
	blob_calls++;
	blob_bytes += (long long)n;
	return malloc(n);
}

/* ---------------------------------------------------------- clones */

struct list { struct node *head; long count; };
static struct list items;

/* always called with &items: GCC propagates the constant */
static __attribute__((noinline)) void item_push(struct list *l, long key)
{
	struct node *n = must(malloc(sizeof(*n)));

	n->key = key;
	n->next = l->head;
	l->head = n;
	l->count++;
	items_elements++;
}

static void items_clear(void)
{
	while (items.head) {
		struct node *n = items.head;

		items.head = n->next;
		free(n);
		items_elements--;
	}
	items.count = 0;
}

struct pair { long key; long value; char pad[64]; };
static struct node *pairs_head;

/* reads only p->key: GCC passes that field instead of the struct */
static __attribute__((noinline)) void pair_put(struct pair p)
{
	struct node *n = must(malloc(sizeof(*n)));

	n->key = p.key;
	n->next = pairs_head;
	pairs_head = n;
	pairs_elements++;
}

/* ------------------------------------------------------- cold part */

static struct node *regs_head;

/* a failure, said without allocating (inside reg_insert, whose blocks
 * are counted) */
static __attribute__((cold, noinline)) void complain(const char *what)
{
	if (write(STDERR_FILENO, what, strlen(what)) < 0)
		_exit(3);
}

__attribute__((noinline)) int reg_insert(const char *name)
{
	struct node *n;

	if (__builtin_expect(name == NULL || !name[0], 0)) {
		complain("optimized: reg_insert: empty name\n");
		regs_failed++;
		return -1;
	}
	n = must(malloc(sizeof(*n)));
	n->key = (long)strlen(name);
	n->next = regs_head;
	regs_head = n;
	regs_elements++;
	return 0;
}

/* ----------------------------------------------------- partial inline */

static struct node *cache_head;
static long cache_last = -1;
static long long cache_misses;

/* GCC inlines the header (a repeat of the last key: a hit) into callers
 * and outlines the rest as cache_add.part.N, which the out-of-line
 * cache_add reaches by a tail jump */
int cache_add(long key)
{
	struct node *n;

	if (__builtin_expect(key == cache_last, 1))
		return 0;
	n = must(malloc(sizeof(*n)));
	n->key = key;
	n->next = cache_head;
	cache_head = n;
	cache_last = key;
	cache_elements++;
	cache_misses++;
	for (int i = 0; i < 8; i++)
		sink += (int)(key >> i) * i;
	for (struct node *m = cache_head; m; m = m->next)
		sink += (int)m->key;
	return 1;
}

/* calls through it reach the out-of-line cache_add */
static int (*volatile cache_fn)(long) = cache_add;

/*
 * The other shape of a split: a header that keeps a frame calls its part
 * (call, not jmp) and returns after it. GCC picks the tail jump above for
 * cache_add, so this one is written out: split_add is the header, with
 * split_add.part.0 its outlined rest, which does its work in split_rest.
 * run() calls split_add.part.0 directly too, as an inlined header would.
 */
static long split_last = -1;
static struct node *split_head;
static long long split_elements;

int split_rest(long key);
int split_part(long key) __asm__("split_add.part.0");
int split_add(long key);

__attribute__((noinline, used)) int split_rest(long key)
{
	struct node *n = must(malloc(sizeof(*n)));

	n->key = key;
	n->next = split_head;
	split_head = n;
	split_last = key;
	split_elements++;
	return 1;
}

__asm__(
	".text\n"
	".globl split_add\n"
	".type split_add, @function\n"
	"split_add:\n"
	"	endbr64\n"
	"	cmp %rdi, split_last(%rip)\n"
	"	je 1f\n"
	"	sub $8, %rsp\n"
	"	call split_add.part.0\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"1:	xor %eax, %eax\n"
	"	ret\n"
	".size split_add, .-split_add\n"
	".type split_add.part.0, @function\n"
	"split_add.part.0:\n"
	"	endbr64\n"
	"	jmp split_rest\n"
	".size split_add.part.0, .-split_add.part.0\n");

static int (*volatile split_fn)(long) = split_add;

/* small and static: inlined everywhere, no symbol of its own */
static long long rounds_odd, rounds_run;

static void note_round(int r)
{
	rounds_odd += r & 1;
}

/* ------------------------------------------------------------ run */

static void free_list(struct node **head)
{
	while (*head) {
		struct node *n = *head;

		*head = n->next;
		free(n);
	}
}

static void run(int rounds)
{
	static void *blobs[64];
	static int nblobs;
	struct pair p = { 0 };

	for (int r = 0; r < rounds; r++) {
		long key = r % 50;

		rounds_run++;
		note_round(r);
		index_ret += index_add(key);
		if (r % 3 == 2)
			index_ret -= index_del(key);
		if (nblobs < 64)
			blobs[nblobs++] = blob_new(24 + (size_t)(r % 5) * 8);
		item_push(&items, key);
		p.key = key;
		pair_put(p);
		reg_insert(r % 10 == 9 ? "" : "name");
		cache_add(key);		/* a miss, by the inlined header */
		cache_add(key);		/* a hit there: not seen */
		cache_fn(key + 1000);	/* a miss by cache_add itself */
		if (key != split_last)	/* the "inlined header" */
			split_part(key);
		split_fn(key + 1000);	/* a miss by split_add, its call */
	}
	if (rounds == 0) {	/* run 0: clear what can be cleared */
		items_clear();
		for (int i = 0; i < nblobs; i++)
			free(blobs[i]);
		nblobs = 0;
		blob_bytes = 0;
	}
}

int main(void)
{
	char line[128];

	say("ready pid=%d malloc=%p\n", (int)getpid(), (void *)malloc);
	while (fgets(line, sizeof(line), stdin)) {
		int n;

		if (sscanf(line, "run %d", &n) == 1) {
			long long node = (long long)sizeof(struct node);

			run(n);
			say("ran index=%lld index_bytes=%lld index_calls=%lld index_remove_calls=%lld index_ret=%lld table=%lld table_bytes=%lld table_calls=%lld table_remove_calls=%lld blob_bytes=%lld blob_calls=%lld items=%lld items_bytes=%lld pairs=%lld pairs_bytes=%lld regs=%lld regs_bytes=%lld regs_failed=%lld cache=%lld cache_bytes=%lld cache_misses=%lld split=%lld split_bytes=%lld rounds=%lld\n",
			    index_elements, index_elements * node, index_calls,
			    index_remove_calls, index_ret, table_elements,
			    table_elements * node, table_calls, table_remove_calls,
			    blob_bytes, blob_calls, items_elements, items_elements * node,
			    pairs_elements, pairs_elements * node, regs_elements,
			    regs_elements * node, regs_failed, cache_elements,
			    cache_elements * node, cache_misses, split_elements,
			    split_elements * node, rounds_run);
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	free_list(&table_head);
	free_list(&index_head);
	free_list(&pairs_head);
	free_list(&regs_head);
	free_list(&cache_head);
	free_list(&split_head);
	items_clear();
	return 0;
}
