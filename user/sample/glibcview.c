// SPDX-License-Identifier: GPL-2.0
/*
 * glibcview.c - mallinfo2()'s figures for another process, read from
 * outside. Opening ties the libc that glibcid.c identifies to the layouts
 * glibclayout.c reads from its DWARF and relocates main_arena and mp_;
 * reading walks the arena ring with process_vm_readv, checking every pointer
 * and link, since the target keeps running and its memory is not to be trusted.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libelf.h>
#include "sample/glibcid.h"
#include "sample/glibclayout.h"
#include "sample/glibcmem.h"
#include "sample/glibcview.h"

/* safe-linking (glibc 2.32+) hides fastbin and tcache next pointers as
 * ptr ^ (address of the pointer >> 12) */
#define SAFE_LINK_SHIFT	12

struct mw_glibcview {
	pid_t pid;
	uint64_t main_arena, mp;		/* run-time addresses */
	bool safe_linking;
	struct mw_glibc_layout l;
	unsigned char *state_a, *state_b;	/* l.state_size bytes each */
	unsigned char par_a[MW_GLIBC_MAX_PAR_BYTES], par_b[MW_GLIBC_MAX_PAR_BYTES];
	uint64_t seen[MW_GLIBC_MAX_ARENAS];	/* arenas of the current walk */
};

/* ---------------------------------------------------------- target memory */

/* Little-endian field of 1..8 bytes out of a copy of a structure. */
static uint64_t field_get(const unsigned char *buf, struct mw_field f)
{
	uint64_t v = 0;

	memcpy(&v, buf + f.off, f.size);
	return v;
}

static uint64_t ptr_at(const unsigned char *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* ------------------------------------------------------------- the walk */

/* A chunk header as the walk needs it: size without its flag bits. */
struct chunk {
	uint64_t size, fd, bk;
};

struct arena_tally {
	uint64_t system_mem, top_size, next;
	uint64_t nblocks, avail;		/* ordblks, fordblks */
	uint64_t nfast, fastavail;		/* smblks, fsmblks */
};

/* Brent's cycle detection over one list: true once @p was seen before. */
struct cycle {
	uint64_t saved, power, steps;
};

static bool cycle__seen(struct cycle *c, uint64_t p)
{
	if (p == c->saved)
		return true;
	if (++c->steps == c->power) {
		c->saved = p;
		c->power *= 2;
		c->steps = 0;
	}
	return false;
}

/* Reads the chunk at @p. -EAGAIN: @p is not a chunk address (misaligned,
 * outside user space, unmapped), i.e. the list changed or is corrupt. */
static int chunk_read(struct mw_glibcview *g, uint64_t p, struct chunk *c)
{
	const struct mw_glibc_layout *l = &g->l;
	unsigned char buf[MW_GLIBC_MAX_CHUNK_HDR];
	int err;

	if ((p & (2 * l->size.size - 1)) || !memory__range_ok(p, l->chunk_hdr))
		return -EAGAIN;
	err = memory__read(g->pid, p, buf, l->chunk_hdr);
	if (err)
		return err == -EFAULT ? -EAGAIN : err;
	c->size = field_get(buf, l->size) & ~7ull;	/* PREV_INUSE, IS_MMAPPED, NON_MAIN_ARENA */
	c->fd = ptr_at(buf, l->fd.off);
	c->bk = ptr_at(buf, l->bk.off);
	return 0;
}

/* glibc's fastbin_index() */
static uint64_t fastbin_index(const struct mw_glibcview *g, uint64_t size)
{
	return (size >> (g->l.size.size == 8 ? 4 : 3)) - 2;
}

static int walk_fastbin(struct mw_glibcview *g, const unsigned char *st,
			uint32_t i, struct arena_tally *t)
{
	uint64_t p = ptr_at(st, g->l.fastbins.off + 8 * i);
	struct cycle cy = { 0, 1, 0 };
	struct chunk c;
	int err;

	for (uint32_t n = 0; p; n++) {
		if (n >= MW_GLIBC_MAX_CHUNKS_PER_BIN || cycle__seen(&cy, p))
			return -EAGAIN;
		err = chunk_read(g, p, &c);
		if (err)
			return err;
		if (c.size < g->l.min_chunk || fastbin_index(g, c.size) != i)
			return -EAGAIN;
		t->nfast++;
		t->fastavail += c.size;
		if (t->avail + t->fastavail > t->system_mem)
			return -EAGAIN;
		p = g->safe_linking ? ((p + g->l.fd.off) >> SAFE_LINK_SHIFT) ^ c.fd : c.fd;
	}
	return 0;
}

/* Bin @i (1..NBINS-1) from its last chunk back to its head (as glibc's
 * int_mallinfo), checking that each chunk's fd points back where we came
 * from: a list being relinked under us breaks that. */
static int walk_bin(struct mw_glibcview *g, const unsigned char *st, uint64_t arena,
		    uint32_t i, struct arena_tally *t)
{
	const struct mw_glibc_layout *l = &g->l;
	uint32_t slot = l->bins.off + (i - 1) * 16;
	uint64_t head = arena + slot - l->fd.off;	/* glibc's bin_at(av, i) */
	uint64_t p = ptr_at(st, slot + 8), prev = head;	/* last(b) = b->bk */
	struct cycle cy = { 0, 1, 0 };
	struct chunk c;
	int err;

	for (uint32_t n = 0; p != head; n++) {
		if (n >= MW_GLIBC_MAX_CHUNKS_PER_BIN || cycle__seen(&cy, p))
			return -EAGAIN;
		err = chunk_read(g, p, &c);
		if (err)
			return err;
		if (c.fd != prev || c.size < l->min_chunk)
			return -EAGAIN;
		t->nblocks++;
		t->avail += c.size;
		if (t->avail + t->fastavail > t->system_mem)
			return -EAGAIN;
		prev = p;
		p = c.bk;
	}
	return ptr_at(st, slot) == prev ? 0 : -EAGAIN;	/* b->fd is the first */
}

/* The top chunk; main_arena's starts as glibc's initial_top, the
 * unsorted bin's head inside the arena itself, whose size reads as 0. */
static int walk_top(struct mw_glibcview *g, const unsigned char *st, uint64_t arena,
		    struct arena_tally *t)
{
	const struct mw_glibc_layout *l = &g->l;
	uint64_t top = ptr_at(st, l->top.off);
	uint64_t initial_top = arena + l->bins.off - l->fd.off;
	struct chunk c;
	int err;

	t->nblocks = 1;			/* top always exists */
	if (top == initial_top) {
		struct mw_field size = { l->bins.off - l->fd.off + l->size.off, l->size.size };

		c.size = field_get(st, size) & ~7ull;
	} else {
		err = chunk_read(g, top, &c);
		if (err)
			return err;
	}
	if (c.size > t->system_mem)
		return -EAGAIN;
	t->top_size = c.size;
	t->avail = c.size;
	return 0;
}

static int state_read(struct mw_glibcview *g, uint64_t arena, unsigned char *buf)
{
	int err = memory__read(g->pid, arena, buf, g->l.state_size);

	if (err)
		return err == -EFAULT ? -EAGAIN : err;
	if (g->l.has_mutex && field_get(buf, g->l.mutex))
		return -EAGAIN;		/* locked: being changed right now */
	return 0;
}

/* The parts of an arena the walk depends on are the same in @a and @b. */
static bool state_same(const struct mw_glibc_layout *l, const unsigned char *a,
		       const unsigned char *b)
{
	const struct mw_field f[] = { l->fastbins, l->top, l->bins, l->next,
				      l->system_mem };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (memcmp(a + f[i].off, b + f[i].off, f[i].size))
			return false;
	return true;
}

/* One walk of the arena at @arena into @t. -EAGAIN: it changed under the
 * walk or does not hold together; other -errno: cannot read the target. */
static int arena_walk(struct mw_glibcview *g, uint64_t arena, struct arena_tally *t)
{
	const unsigned char *st = g->state_a;
	int err;

	memset(t, 0, sizeof(*t));
	err = state_read(g, arena, g->state_a);
	if (err)
		return err;
	t->next = ptr_at(st, g->l.next.off);
	t->system_mem = field_get(st, g->l.system_mem);
	if (t->system_mem >= MW_USER_ADDR_END)
		return -EAGAIN;
	if (!ptr_at(st, g->l.top.off)) {	/* main_arena before malloc's first call */
		t->nblocks = 1;
		return state_read(g, arena, g->state_b);
	}
	err = walk_top(g, st, arena, t);
	for (uint32_t i = 0; !err && i < g->l.nfastbins; i++)
		err = walk_fastbin(g, st, i, t);
	for (uint32_t i = 1; !err && i < g->l.nbins; i++)
		err = walk_bin(g, st, arena, i, t);
	if (!err)
		err = state_read(g, arena, g->state_b);
	if (!err && !state_same(&g->l, g->state_a, g->state_b))
		err = -EAGAIN;
	return err;
}

/* Walks @arena until two reads agree, at most 1 + MW_GLIBC_RETRIES times;
 * *@ok false if they never did (@t then holds the last, partial walk). */
static int arena_sample(struct mw_glibcview *g, uint64_t arena,
			struct arena_tally *t, bool *ok)
{
	int err = -EAGAIN;

	for (int i = 0; err == -EAGAIN && i <= MW_GLIBC_RETRIES; i++) {
		if (i)
			sched_yield();
		err = arena_walk(g, arena, t);
	}
	*ok = !err;
	if (err != -EAGAIN && err)
		return err;
	t->avail += t->fastavail;
	if (t->avail > t->system_mem)
		t->avail = t->system_mem;
	if (t->fastavail > t->avail)
		t->fastavail = t->avail;
	return 0;
}

/* mp_'s figures, read twice until both reads agree. */
static int par_sample(struct mw_glibcview *g, struct mw_glibc_sample *out)
{
	const struct mw_glibc_layout *l = &g->l;
	bool same = false;
	int err;

	for (int i = 0; !same && i <= MW_GLIBC_RETRIES; i++) {
		err = memory__read(g->pid, g->mp, g->par_a, l->par_size);
		if (!err)
			err = memory__read(g->pid, g->mp, g->par_b, l->par_size);
		if (err)
			return err == -EFAULT ? -ESTALE : err;
		same = !memcmp(g->par_a, g->par_b, l->par_size);
	}
	out->consistent &= same;
	if (field_get(g->par_b, l->mmapped_mem) >= MW_USER_ADDR_END)
		out->consistent = false;
	out->hblks = field_get(g->par_b, l->n_mmaps);
	out->hblkhd = field_get(g->par_b, l->mmapped_mem);
	out->mmap_threshold = field_get(g->par_b, l->mmap_threshold);
	out->trim_threshold = field_get(g->par_b, l->trim_threshold);
	return 0;
}

static bool arena_seen(const struct mw_glibcview *g, size_t n, uint64_t arena)
{
	for (size_t i = 0; i < n; i++)
		if (g->seen[i] == arena)
			return true;
	return false;
}

static void tally_add(struct mw_glibc_sample *out, const struct arena_tally *t)
{
	out->arena += t->system_mem;
	out->ordblks += t->nblocks;
	out->smblks += t->nfast;
	out->fordblks += t->avail;
	out->fsmblks += t->fastavail;
}

/* ------------------------------------------------------------------ API */

int glibcview__read(struct mw_glibcview *g, struct mw_glibc_sample *out)
{
	uint64_t arena = g->main_arena;
	struct arena_tally t;
	size_t n = 0;
	bool ok;
	int err;

	memset(out, 0, sizeof(*out));
	out->consistent = true;
	err = par_sample(g, out);
	while (!err) {
		err = arena_sample(g, arena, &t, &ok);
		if (err)
			break;
		if (t.system_mem > MW_USER_ADDR_END - out->arena) {
			out->consistent = false;	/* more than an address space */
			break;
		}
		out->consistent &= ok;
		tally_add(out, &t);
		if (arena == g->main_arena)
			out->keepcost = t.top_size;
		g->seen[n++] = arena;
		arena = t.next;
		if (arena == g->main_arena)
			break;
		if (n == MW_GLIBC_MAX_ARENAS || (arena & 7) ||
		    !memory__range_ok(arena, g->l.state_size) || arena_seen(g, n, arena)) {
			out->consistent = false;	/* a ring that does not close */
			break;
		}
	}
	if (err)
		return err;
	out->arenas = n;
	out->uordblks = out->arena - out->fordblks;
	out->fragmentation = out->arena ? (double)out->fordblks / out->arena : 0;
	return 0;
}

static int view_setup(struct mw_glibcview *g, Elf *libc, const char *root,
		      uint64_t libc_base)
{
	struct mw_libc_id id = { 0 };
	struct mw_glibc_vars v;
	uint64_t bias;
	int err;

	err = glibcid__identify(libc, &id);
	if (err)
		return err;
	bias = libc_base - id.first_vaddr;
	err = glibcid__check_mapped(g->pid, &id, bias);
	if (err)
		return err;
	err = glibcid__find_layouts(libc, &id, root, &g->l, &v);
	if (err)
		return err;
	g->main_arena = v.main_arena + bias;
	g->mp = v.mp + bias;
	if (!memory__range_ok(g->main_arena, g->l.state_size) ||
	    !memory__range_ok(g->mp, g->l.par_size))
		return -EINVAL;
	g->safe_linking = glibcid__safe_linking(g->pid, v.version ? v.version + bias : 0);
	g->state_a = malloc(g->l.state_size);
	g->state_b = malloc(g->l.state_size);
	return g->state_a && g->state_b ? 0 : -ENOMEM;
}

static int path_join(char *buf, size_t len, const char *root, const char *path)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int glibcview__open(struct mw_glibcview **out, pid_t pid, const char *root,
		    const char *libc_path, uint64_t libc_base)
{
	struct mw_glibcview *g;
	char path[PATH_MAX];
	Elf *elf = NULL;
	int fd = -1, err;

	*out = NULL;
	err = path_join(path, sizeof(path), root, libc_path);
	if (err)
		return err;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->pid = pid;
	elf_version(EV_CURRENT);
	fd = glibcmem__open_regular(path);
	err = fd < 0 ? fd : 0;
	if (!err) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		err = elf ? view_setup(g, elf, root, libc_base) : -ENOEXEC;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (err) {
		glibcview__close(g);
		return err;
	}
	*out = g;
	return 0;
}

void glibcview__close(struct mw_glibcview *g)
{
	if (!g)
		return;
	free(g->state_a);
	free(g->state_b);
	free(g);
}
