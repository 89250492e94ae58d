// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - per-site figures from the BPF maps, read in batches once per
 * interval. A site is a leak suspect when its live bytes grew in each of
 * the last K intervals: steady growth, not a burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "memwatch.h"
#include "memwatch.skel.h"
#include "sample/sites.h"
#include "symbols/runtime.h"
#include "symbols/symbolizer.h"

#define MW_BATCH 1024

int sites__init(struct mw_sites *s, const struct mw_target *t, int leak_intervals)
{
	memset(s, 0, sizeof(*s));
	s->leak_intervals = leak_intervals;
	return symbolizer__new(&s->sym, t);
}

static void free_rows(struct mw_sites *s)
{
	for (size_t i = 0; i < s->nrows; i++) {
		free(s->rows[i].folded);
		free(s->rows[i].label);
		free(s->rows[i].frames);
	}
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
	free(s->parts);
	s->parts = NULL;
	s->nparts = 0;
}

void sites__free(struct mw_sites *s)
{
	symbolizer__free(s->sym);
	free_rows(s);
	free(s->ins);
	free(s->hist);
	memset(s, 0, sizeof(*s));
}

static int by_live_bytes(const void *a, const void *b)
{
	const struct mw_site_row *x = a, *y = b;

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_calls(const void *a, const void *b)
{
	const struct mw_insert_row *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every entry of a hash map, in batches: @keys/@vals grow as needed. */
static int read_all(int fd, size_t ksz, size_t vsz, void **keys, void **vals, size_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 batch = 0;
	size_t cap = 0;
	bool first = true;
	int err;

	*n = 0;
	for (;;) {
		__u32 count = MW_BATCH;

		if (*n + MW_BATCH > cap) {
			void *nk, *nv;

			cap = *n + MW_BATCH * 2;
			nk = realloc(*keys, cap * ksz);
			nv = nk ? realloc(*vals, cap * vsz) : NULL;
			if (nk)
				*keys = nk;
			if (!nv)
				return -ENOMEM;
			*vals = nv;
		}
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch,
					   (char *)*keys + *n * ksz, (char *)*vals + *n * vsz,
					   &count, &opts);
		first = false;
		*n += count;
		if (err)
			return errno == ENOENT ? 0 : -errno;
	}
}

static int history_cmp(uint64_t addr, uint32_t stack, const struct mw_history *h)
{
	if (addr != h->addr)
		return addr < h->addr ? -1 : 1;
	return stack < h->stack ? -1 : stack > h->stack;
}

static int by_site(const void *a, const void *b)
{
	const struct mw_history *x = a;

	return history_cmp(x->addr, x->stack, b);
}

/* The history of (@addr, @stack): found by binary search among the
 * @sorted first, or appended (sorted again after the pass). */
static struct mw_history *history(struct mw_sites *s, size_t sorted, uint64_t addr,
				  uint32_t stack)
{
	size_t lo = 0, hi = sorted;
	struct mw_history *h;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = history_cmp(addr, stack, &s->hist[mid]);

		if (!c)
			return &s->hist[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (s->nhist == s->caphist) {
		size_t ncap = s->caphist ? 2 * s->caphist : 64;
		struct mw_history *nv = realloc(s->hist, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->hist = nv;
		s->caphist = ncap;
	}
	h = &s->hist[s->nhist++];
	memset(h, 0, sizeof(*h));
	h->addr = addr;
	h->stack = stack;
	return h;
}

/* Appends this interval's live bytes to the site's history; returns
 * whether they grew in each of the last K intervals. */
static bool watch(struct mw_sites *s, size_t sorted, uint64_t addr, uint32_t stack,
		  int64_t bytes)
{
	struct mw_history *h = history(s, sorted, addr, stack);
	int k = s->leak_intervals;

	if (!h)
		return false;
	if (h->n == k + 1) {
		memmove(h->bytes, h->bytes + 1, (size_t)k * sizeof(h->bytes[0]));
		h->n--;
	}
	h->bytes[h->n++] = bytes;
	if (h->n < k + 1)
		return false;
	for (int i = 1; i <= k; i++)
		if (h->bytes[i] <= h->bytes[i - 1])
			return false;
	return true;
}

void sites__rank(struct mw_sites *s)
{
	size_t sorted = s->nhist;

	s->suspects = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		struct mw_site_row *r = &s->rows[i];

		r->suspect = watch(s, sorted, r->addr, r->stack, r->live_bytes);
		s->suspects += r->suspect;
	}
	if (s->nhist > sorted)
		qsort(s->hist, s->nhist, sizeof(*s->hist), by_site);
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_live_bytes);
}

/* The demangled function at @addr; NULL when unknown. */
static const char *function_at(struct mw_sites *s, uint64_t addr)
{
	struct mw_where where;

	return symbolizer__where(s->sym, addr, &where) ? NULL : where.function;
}

/* The first of @frames (leaf first) in the program's own code, past the
 * runtime's allocation helpers (runtime.h); 0 when all are helpers. */
static int own_frame(struct mw_sites *s, const uint64_t *frames, int n)
{
	for (int i = 0; i < n; i++)
		if (!runtime__is_alloc_helper(function_at(s, frames[i])))
			return i;
	return 0;
}

/* Reads @r's stack: frame 0 is inside the allocator (skipped), the return
 * address read at entry is the leaf (frame-pointer walks at a function's
 * entry miss it). The site is the first frame past the runtime's
 * allocation helpers (*@own), and the folded stack ends there, root first;
 * r->frames keeps them all, for profiles. Returns the number of frames. */
static int read_stack(struct mw_sites *s, struct memwatch_bpf *skel, struct mw_site_row *r,
		      int *own)
{
	__u64 ips[MW_STACK_DEPTH];
	__u32 id = r->stack - 1;
	uint64_t frames[MW_STACK_DEPTH + 1];
	int n = 0;
	size_t len = 0;
	FILE *f;

	memset(ips, 0, sizeof(ips));
	if (skel->rodata->want_unwind) {	/* walked by the unwind tables */
		struct mw_walked_stack w;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.walked_stacks), &id, &w))
			return 0;
		memcpy(ips, w.ips, sizeof(ips));
	} else if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stacks), &id, ips)) {
		return 0;
	}
	frames[n++] = r->addr;
	for (int i = 1; i < MW_STACK_DEPTH && ips[i]; i++)
		if (ips[i] != r->addr || i > 1)
			frames[n++] = ips[i];
	*own = own_frame(s, frames, n);
	r->frames = malloc((size_t)n * sizeof(*r->frames));
	if (r->frames) {	/* without it, a profile shows the site alone */
		memcpy(r->frames, frames, (size_t)n * sizeof(*r->frames));
		r->nframes = n;
	}
	f = open_memstream(&r->folded, &len);
	if (!f)
		return n;
	for (int i = n - 1; i >= *own; i--)
		fprintf(f, "%s%s", symbolizer__frame(s->sym, frames[i]), i > *own ? ";" : "");
	fclose(f);
	return n;
}

struct site_entry {
	struct mw_site_key key;
	struct mw_site val;
};

static int by_site_key(const void *a, const void *b)
{
	const struct site_entry *x = a, *y = b;

	if (x->key.site != y->key.site)
		return x->key.site < y->key.site ? -1 : 1;
	return (x->key.charge > y->key.charge) - (x->key.charge < y->key.charge);
}

/* Reads the sites map: one row a site (and stack), summed over the
 * structures its blocks are charged to, which are kept as parts. */
static int sample_sites(struct mw_sites *s, struct memwatch_bpf *skel, uint32_t slot)
{
	struct mw_site *vals = NULL;
	struct mw_site_key *keys = NULL;
	struct site_entry *e = NULL;
	size_t n, m = 0, ne = 0, nstacks = 0, nshort = 0;
	int err;

	err = read_all(bpf_map__fd(skel->maps.sites), sizeof(*keys), sizeof(*vals),
		       (void **)&keys, (void **)&vals, &n);
	free_rows(s);
	s->truncated = 0;
	if (!err) {
		e = calloc(n ? n : 1, sizeof(*e));
		s->rows = calloc(n ? n : 1, sizeof(*s->rows));
		s->parts = calloc(n ? n : 1, sizeof(*s->parts));
		if (!e || !s->rows || !s->parts)
			err = -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++)
		if (keys[i].slot == slot)
			e[ne++] = (struct site_entry){ keys[i], vals[i] };
	if (ne)
		qsort(e, ne, sizeof(*e), by_site_key);
	for (size_t i = 0; !err && i < ne; ) {
		struct mw_site_row *r = &s->rows[m];
		size_t first = i;

		r->addr = MW_KEY_ADDR(e[i].key.site);
		r->stack = MW_KEY_STACK(e[i].key.site);
		for (; i < ne && e[i].key.site == e[first].key.site; i++) {
			r->live_bytes += e[i].val.live_bytes;
			r->live_blocks += e[i].val.live_blocks;
			r->allocs += e[i].val.allocs;
			r->alloc_bytes += e[i].val.alloc_bytes;
		}
		r->name = symbolizer__name(s->sym, r->addr);
		r->frame = symbolizer__frame(s->sym, r->addr);
		if (r->stack) {
			int own = 0, depth = read_stack(s, skel, r, &own);

			if (own && r->frames) {	/* named by the program's frame */
				r->name = symbolizer__name(s->sym, r->frames[own]);
				r->frame = symbolizer__frame(s->sym, r->frames[own]);
			}
			/* one site per stack: the same caller may appear twice */
			if (asprintf(&r->label, "%s #%u", r->name, r->stack) > 0)
				r->name = r->label;
			else
				r->label = NULL;
			nstacks++;
			nshort += depth <= 2;
			/* a walk that stopped before a thread's start */
			s->truncated += depth && r->frames &&
					!runtime__is_stack_root(function_at(s, r->frames[depth - 1]));
		}
		for (size_t k = first; k < i; k++)
			if (e[k].key.charge)
				s->parts[s->nparts++] = (struct mw_site_part){
					.charge = e[k].key.charge, .addr = r->addr,
					.frames = r->frames, .nframes = r->nframes,
					.live_bytes = e[k].val.live_bytes,
					.live_blocks = e[k].val.live_blocks,
					.allocs = e[k].val.allocs,
					.alloc_bytes = e[k].val.alloc_bytes,
				};
		m++;
	}
	s->nrows = m;
	s->short_stacks = nstacks && nshort * 2 > nstacks;
	sites__rank(s);
	free(e);
	free(keys);
	free(vals);
	return err;
}

static int sample_inserts(struct mw_sites *s, struct memwatch_bpf *skel, uint32_t slot)
{
	struct mw_insert_site_key *keys = NULL;
	__u64 *vals = NULL;
	size_t n, m = 0;
	int err;

	err = read_all(bpf_map__fd(skel->maps.insert_sites), sizeof(*keys), sizeof(*vals),
		       (void **)&keys, (void **)&vals, &n);
	free(s->ins);
	s->ins = err ? NULL : calloc(n ? n : 1, sizeof(*s->ins));
	if (!err && !s->ins)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		if (MW_BLOCK_KEY_SLOT(keys[i].site) != slot)
			continue;
		s->ins[m].addr = keys[i].site & ((1ull << MW_KEY_SLOT_SHIFT) - 1);
		s->ins[m].struct_id = (int)keys[i].struct_id;
		s->ins[m].calls = vals[i];
		s->ins[m].name = symbolizer__name(s->sym, s->ins[m].addr);
		m++;
	}
	s->nins = m;
	if (m)
		qsort(s->ins, m, sizeof(*s->ins), by_calls);
	free(keys);
	free(vals);
	return err;
}

int sites__sample(struct mw_sites *s, struct memwatch_bpf *skel, uint32_t slot)
{
	int err = sample_sites(s, skel, slot);

	return err ? err : sample_inserts(s, skel, slot);
}
