// SPDX-License-Identifier: GPL-2.0
/*
 * sampler.c - sum the per-CPU counters of one target, and of its
 * structures, into a snapshot. Per-CPU values of a live figure may be
 * negative on one CPU (allocated on one, freed on another); only the sum
 * means anything.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "memwatch.h"		/* before the skeleton: its types */
#include "memwatch.skel.h"
#include "sample/live.h"
#include "sample/sampler.h"

int sampler__init(struct mw_sampler *s, struct memwatch_bpf *skel)
{
	size_t v = sizeof(struct mw_stats) > sizeof(struct mw_struct_stats) ?
		   sizeof(struct mw_stats) : sizeof(struct mw_struct_stats);

	s->skel = skel;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0)
		return -EINVAL;
	s->buf_size = ((v + 7) & ~7ul) * s->ncpus;
	s->buf = calloc(1, s->buf_size);
	return s->buf ? 0 : -ENOMEM;
}

void sampler__free(struct mw_sampler *s)
{
	free(s->buf);
	s->buf = NULL;
}

/* Sum of the kernel's count of runs skipped for every program. */
static uint64_t missed_runs(struct memwatch_bpf *skel)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

static int read_heap(struct mw_sampler *s, uint32_t slot, struct mw_snapshot *o)
{
	const struct mw_stats *v = s->buf;
	int err;

	err = bpf_map__lookup_elem(s->skel->maps.stats, &slot, sizeof(slot),
				   s->buf, sizeof(*v) * s->ncpus, 0);
	if (err)
		return err;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		for (int k = 0; k < MW_C__COUNT; k++)
			o->c[k] += v[cpu].c[k];
	o->live_bytes = (int64_t)(o->c[MW_C_ALLOC_BYTES] - o->c[MW_C_FREE_BYTES]);
	o->live_allocations = (int64_t)(o->c[MW_C_ALLOC_CALLS] - o->c[MW_C_FREE_CALLS]);
	return 0;
}

static int read_struct(struct mw_sampler *s, uint32_t slot, int id,
		       uint64_t size, struct mw_struct_sample *o)
{
	const struct mw_struct_stats *v = s->buf;
	uint32_t key = slot * MW_MAX_STRUCTS + id;
	uint64_t alloc = 0, freed = 0;
	int err;

	err = bpf_map__lookup_elem(s->skel->maps.struct_stats, &key, sizeof(key),
				   s->buf, sizeof(*v) * s->ncpus, 0);
	if (err)
		return err;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		o->elements += v[cpu].elements;
		alloc += v[cpu].alloc_bytes;
		freed += v[cpu].free_bytes;
		o->insert_calls += v[cpu].insert_calls;
		o->remove_calls += v[cpu].remove_calls;
		o->unwound_calls += v[cpu].unwound_calls;
		o->roots_lost += v[cpu].roots_lost;
		for (int k = 0; k < MW_HIT__COUNT; k++)
			o->hits[k] += v[cpu].hits[k];
	}
	o->bytes = (int64_t)(alloc - freed);
	o->alloc_bytes = alloc;
	o->estimated_bytes = o->elements * (int64_t)size;
	return 0;
}

int sampler__read(struct mw_sampler *s, const struct mw_target *t,
		  const struct mw_layout *layout, struct mw_snapshot *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_REALTIME, &out->when);
	out->pid = t->pid;
	memcpy(out->comm, t->comm, sizeof(out->comm));
	err = read_heap(s, t->slot, out);
	if (err)
		return err;
	out->lost_missed = missed_runs(s->skel);
	out->rss_bytes = target__rss_bytes(t);
	out->nstructs = layout->nstructs;
	for (int i = 0; i < layout->nstructs; i++) {
		err = read_struct(s, t->slot, i, layout->structs[i].size, &out->s[i]);
		if (err)
			return err;
	}
	return 0;
}

/* The slot of a key of the live, insert_sites or sites map. */
static uint32_t block_key_slot(const void *key)
{
	__u64 first;

	memcpy(&first, key, sizeof(first));
	return MW_BLOCK_KEY_SLOT(first);
}

static uint32_t site_key_slot(const void *key)
{
	return ((const struct mw_site_key *)key)->slot;
}

static uint32_t root_key_slot(const void *key)
{
	return ((const struct mw_root_key *)key)->slot;
}

/* Deletes the stacks of the @n sites gone, unless another site (a
 * forked child's, with the same addresses) still has one. */
static void forget_stacks(struct memwatch_bpf *skel, const struct mw_site_key *gone, size_t n)
{
	struct bpf_map *map = skel->maps.sites;
	struct mw_site_key key;
	uint8_t *drop = calloc(MW_MAX_STACKS + 1, 1);
	int r;

	if (!drop)
		return;
	for (size_t i = 0; i < n; i++)
		drop[MW_KEY_STACK(gone[i].site) & MW_MAX_STACKS] = 1;
	for (r = bpf_map__get_next_key(map, NULL, &key, sizeof(key)); !r;
	     r = bpf_map__get_next_key(map, &key, &key, sizeof(key)))
		drop[MW_KEY_STACK(key.site) & MW_MAX_STACKS] = 0;
	for (__u32 id1 = 1; id1 <= MW_MAX_STACKS; id1++) {
		__u32 id = id1 - 1;	/* sites hold stack id + 1 */

		if (drop[id1])
			bpf_map__delete_elem(skel->maps.stacks, &id, sizeof(id), 0);
	}
	free(drop);
}

/* Deletes every entry of @map whose key is @slot's (and, for sites, the
 * stacks they hold). Keys are collected first: deleting during the walk
 * would restart it from the first bucket every time. */
static int forget_slot(struct memwatch_bpf *skel, struct bpf_map *map, uint32_t slot,
		       uint32_t (*slot_of)(const void *key))
{
	size_t ksz = bpf_map__key_size(map), n = 0, cap = 0;
	char *keys = NULL, *grown, *key = calloc(1, ksz);
	int r;

	if (!key)
		return -ENOMEM;
	for (r = bpf_map__get_next_key(map, NULL, key, ksz); !r;
	     r = bpf_map__get_next_key(map, key, key, ksz)) {
		if (slot_of(key) != slot)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			grown = realloc(keys, cap * ksz);
			if (!grown) {
				free(keys);
				free(key);
				return -ENOMEM;
			}
			keys = grown;
		}
		memcpy(keys + n++ * ksz, key, ksz);
	}
	for (size_t i = 0; i < n; i++)
		bpf_map__delete_elem(map, keys + i * ksz, ksz, 0);
	if (slot_of == site_key_slot)
		forget_stacks(skel, (const struct mw_site_key *)keys, n);
	free(keys);
	free(key);
	return 0;
}

int sampler__forget_heap(struct mw_sampler *s, const struct mw_target *t)
{
	int err = live__forget(s->skel, t->slot);

	return err ? err : forget_slot(s->skel, s->skel->maps.sites, t->slot, site_key_slot);
}

/* The counters that only the allocator's probes move. */
static const int heap_counters[] = {
	MW_C_ALLOC_CALLS, MW_C_ALLOC_BYTES, MW_C_FREE_CALLS, MW_C_FREE_BYTES,
	MW_C_UNTRACKED_FREES, MW_C_FAILED_CALLS, MW_C_LOST_TABLE_FULL,
};
#define MW_NHEAP_COUNTERS (sizeof(heap_counters) / sizeof(heap_counters[0]))

void sampler__base(struct mw_heap_base *b, const struct mw_snapshot *raw)
{
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < MW_NHEAP_COUNTERS; i++)
		b->c[heap_counters[i]] = raw->c[heap_counters[i]];
	for (int i = 0; i < raw->nstructs && i < MW_MAX_STRUCTS; i++) {
		b->struct_bytes[i] = raw->s[i].bytes;
		b->struct_alloc_bytes[i] = raw->s[i].alloc_bytes;
	}
}

void sampler__rebase(struct mw_snapshot *o, const struct mw_heap_base *b)
{
	for (size_t i = 0; i < MW_NHEAP_COUNTERS; i++)
		o->c[heap_counters[i]] -= b->c[heap_counters[i]];
	o->live_bytes = (int64_t)(o->c[MW_C_ALLOC_BYTES] - o->c[MW_C_FREE_BYTES]);
	o->live_allocations = (int64_t)(o->c[MW_C_ALLOC_CALLS] - o->c[MW_C_FREE_CALLS]);
	for (int i = 0; i < o->nstructs && i < MW_MAX_STRUCTS; i++) {
		o->s[i].bytes -= b->struct_bytes[i];
		o->s[i].alloc_bytes -= b->struct_alloc_bytes[i];
	}
}

int sampler__reset(struct mw_sampler *s, const struct mw_target *t, int nstructs)
{
	uint32_t slot = t->slot;
	int err;

	err = sampler__forget_heap(s, t);
	if (!err)
		err = forget_slot(s->skel, s->skel->maps.insert_sites, slot, block_key_slot);
	if (!err)	/* the instances of --read roots the last process showed */
		err = forget_slot(s->skel, s->skel->maps.roots, slot, root_key_slot);
	if (err)
		return err;
	memset(s->buf, 0, s->buf_size);
	err = bpf_map__update_elem(s->skel->maps.stats, &slot, sizeof(slot), s->buf,
				   sizeof(struct mw_stats) * s->ncpus, 0);
	for (int i = 0; i < nstructs && !err; i++) {
		uint32_t k = slot * MW_MAX_STRUCTS + (uint32_t)i;

		err = bpf_map__update_elem(s->skel->maps.struct_stats, &k, sizeof(k), s->buf,
					   sizeof(struct mw_struct_stats) * s->ncpus, 0);
	}
	return err;
}
