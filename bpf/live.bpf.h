/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.bpf.h - the live-block table (struct mw_live): an array probed
 * linearly from the key's hash, a spill part for full regions, and the
 * accounting of a block that goes live, is freed or resized. A part of
 * memwatch.bpf.c, included there (one translation unit, one object).
 */
#ifndef MW_LIVE_BPF_H
#define MW_LIVE_BPF_H

/* ------------------------------------------------------- live-block table */

/* The live-block table (see struct mw_live): its parts' sizes are powers
 * of two set by the loader, with these. */
const volatile __u32 live_mask = 0;	/* the main part's entries - 1 */
const volatile __u32 live_shift = 64;	/* 64 - log2(the main part's entries) */
const volatile __u32 spill_mask = 0;	/* the same of the spill part */
const volatile __u32 spill_shift = 64;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* user space forgets a slot's in place */
	__uint(max_entries, 1);			/* set by the loader */
	__type(key, __u32);
	__type(value, struct mw_live);
} live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* set by the loader */
	__type(key, __u32);
	__type(value, __u64);		/* a bit for each region of the main part: a
					 * key of it went to the spill part */
} spills SEC(".maps");

static __always_inline void account_live(__u32 slot, __u64 size, __u32 charge,
					 __u64 site, struct mw_site *known)
{
	struct mw_struct_stats *ss;

	count2(slot, MW_C_ALLOC_CALLS, 1, MW_C_ALLOC_BYTES, size);
	if (charge && (ss = sstats(slot, charge - 1)))
		ss->alloc_bytes += size;
	site_add(slot, site, charge, (__s64)size, 1, known);
}

#define MW_EEXIST	17
#define MW_ENOSPC	28
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

/* The table's entry @i: an index into the main part, or with
 * MW_LIVE_SPILL into the spill part (masked: each part wraps round). */
static __always_inline struct mw_live *live_entry(__u32 i)
{
	__u32 k = i & MW_LIVE_SPILL ? live_mask + 1 + (i & spill_mask) : i & live_mask;

	return bpf_map_lookup_elem(&live, &k);
}

/* The index @d entries past @i, in @i's part. */
static __always_inline __u32 live_step(__u32 i, __s32 d)
{
	return (i & MW_LIVE_SPILL) | ((i + (__u32)d) & ~MW_LIVE_SPILL);
}

/* Where @key's search starts in the main part (MW_LIVE_HOME). */
static __always_inline __u32 live_home(__u64 key)
{
	return MW_LIVE_HOME(key, live_shift);
}

/* Where it starts in the spill part: its hash. */
static __always_inline __u32 spill_home(__u64 key)
{
	return MW_LIVE_SPILL | (__u32)((key * MW_LIVE_HASH) >> spill_shift);
}

/* The spills word of main-part index @home's region, its bit into *@bit. */
static __always_inline __u64 *spill_word(__u32 home, __u64 *bit)
{
	__u32 region = (home & live_mask) / MW_LIVE_REGION, w = region / 64;

	*bit = 1ull << (region & 63);
	return bpf_map_lookup_elem(&spills, &w);
}

/* Whether keys whose search starts at @home went to the spill part. */
static __always_inline bool spilled(__u32 home)
{
	__u64 bit, *w = spill_word(home, &bit);

	return w && (READ_ONCE(*w) & bit);
}

/* Swaps @key into @e if it still holds @was. */
static __always_inline bool live_claim(struct mw_live *e, __u64 was, __u64 key)
{
	return e && __sync_val_compare_and_swap(&e->key, was, key) == was;
}

/* A search of @key's chain from @home (bpf_loop's state: the verifier
 * checks one step, not MW_LIVE_PROBES of them at every caller). */
struct live_scan {
	__u64 key;
	__u32 home;
	__u32 at;	/* where the key is, or MW_LIVE_PROBES */
	__u32 end;	/* the chain's end (never used), or MW_LIVE_PROBES */
	__u32 gone;	/* the first freed entry before it, or MW_LIVE_PROBES */
};

/* Entry @n of the chain: 0 to go on, 1 when the search ends there. */
static __always_inline long live_probe(__u32 n, struct live_scan *s)
{
	struct mw_live *e = live_entry(live_step(s->home, n));
	__u64 k;

	if (!e)
		return 1;
	k = READ_ONCE(e->key);
	if (k == s->key) {
		s->at = n;
		return 1;
	}
	if (!k) {
		s->end = n;	/* no key lies past it */
		return 1;
	}
	if (k == MW_LIVE_GONE && s->gone == MW_LIVE_PROBES)
		s->gone = n;
	return 0;
}

#define MW_LIVE_INLINE	2	/* entries looked at before bpf_loop: most searches */

static long live_scan_step(__u32 i, void *data)
{
	return live_probe(i + MW_LIVE_INLINE, data);
}

static __always_inline void live_scan(struct live_scan *s, __u64 key, __u32 home)
{
	s->key = key;
	s->home = home;
	s->at = s->end = s->gone = MW_LIVE_PROBES;
	if (live_probe(0, s) || live_probe(1, s))
		return;
	bpf_loop(MW_LIVE_PROBES - MW_LIVE_INLINE, live_scan_step, s, 0);
}

#define MW_LIVE_NONE	(~0u)

/* The search of @key's chain in the spill part, its result packed (at,
 * end, gone: bits 0, 8, 16). A global function, verified once: inline,
 * its outcomes times the main part's took alloc_enter near the
 * verifier's million instructions. */
__noinline __u32 spill_scan(__u64 key)
{
	struct live_scan s;

	live_scan(&s, key, spill_home(key));
	return s.at | s.end << 8 | s.gone << 16;
}

#define SCAN_AT(p)	((p) & 0xff)
#define SCAN_END(p)	((p) >> 8 & 0xff)
#define SCAN_GONE(p)	((p) >> 16 & 0xff)

/* @key's index in the spill part, or MW_LIVE_NONE, where its search in
 * the main part started at @home and did not find it: only if @home's
 * region spilled. A global function (verified once). */
__noinline __u32 spill_find(__u64 key, __u32 home)
{
	__u32 at;

	if (!spilled(home) || (at = SCAN_AT(spill_scan(key))) >= MW_LIVE_PROBES)
		return MW_LIVE_NONE;
	return live_step(spill_home(key), at);
}

/* The entry that holds @key, or NULL; its index into *@i. */
static __always_inline struct mw_live *live_find(__u64 key, __u32 *i)
{
	struct live_scan s;

	live_scan(&s, key, live_home(key));
	*i = s.at < MW_LIVE_PROBES ? live_step(s.home, s.at) : spill_find(key, s.home);
	return *i != MW_LIVE_NONE ? live_entry(*i) : NULL;
}

/* Whether entries @n - 1 down to 0 past @home are all in use
 * (bpf_loop's state): read in that order, each after the one past it was
 * seen in use, so that an entry found in use then cannot have been made
 * never-used since (live_clear reads the entry past it), where reading
 * upwards could pass an entry cleared behind the read. */
struct live_path {
	__u32 home;
	__u32 n;
	bool whole;
};

static long live_path_step(__u32 i, void *data)
{
	struct live_path *p = data;
	struct mw_live *e = live_entry(live_step(p->home, p->n - 1 - i));
	__u64 k = e ? READ_ONCE(e->key) : 0;

	if (!k || k == MW_LIVE_CLEARING) {
		p->whole = false;
		return 1;
	}
	return 0;
}

/* Whether a key just claimed @n entries past @home, where its search
 * starts, is found there: no entry before it is never-used, or about to
 * be (live_clear). */
static __always_inline bool live_reachable(__u32 home, __u32 n)
{
	struct live_path p = { .home = home, .n = n, .whole = true };

	if (n)
		bpf_loop(n, live_path_step, &p, 0);
	return p.whole;
}

#define MW_LIVE_CASCADE	4	/* freed entries before it made never-used too */

/*
 * Makes entry @i, taken from @was, never-used again if no search must go
 * past it (its next entry is never-used), else freed: tombstones left
 * everywhere would fill the table, until every search went to its
 * MW_LIVE_PROBES-th entry (measured on redis: an insert 259 ns of BPF,
 * 391 ns after 600,000 SETs, and growing). The entry is marked
 * MW_LIVE_CLEARING before the next one is read, and an insert reads the
 * entries before its own after claiming it (live_reachable): both are
 * locked instructions, so one of the two sees the other, and the insert
 * goes elsewhere or the entry stays freed. Returns MW_LIVE_CLEARED,
 * MW_LIVE_FREED, or MW_LIVE_NOT_WAS (it no longer held @was).
 */
enum { MW_LIVE_NOT_WAS, MW_LIVE_FREED, MW_LIVE_CLEARED };

static __always_inline int live_clear(__u32 i, __u64 was)
{
	struct mw_live *e = live_entry(i), *next = live_entry(live_step(i, 1));

	if (!e || !next || !live_claim(e, was, MW_LIVE_CLEARING))
		return MW_LIVE_NOT_WAS;
	if (READ_ONCE(next->key)) {
		WRITE_ONCE(e->key, MW_LIVE_GONE);
		return MW_LIVE_FREED;
	}
	WRITE_ONCE(e->key, 0);
	return MW_LIVE_CLEARED;
}

/* Takes entry @i from @key: freed, and made never-used with the freed
 * entries just before it where no search must go past them. False if
 * another free took it first. */
static __always_inline bool live_free(__u32 i, __u64 key)
{
	struct mw_live *next = live_entry(live_step(i, 1));
	int r;

	if (!next || READ_ONCE(next->key))
		return live_claim(live_entry(i), key, MW_LIVE_GONE);
	if ((r = live_clear(i, key)) != MW_LIVE_CLEARED)
		return r == MW_LIVE_FREED;	/* else another free took it */
	for (int j = 1; j <= MW_LIVE_CASCADE; j++) {
		struct mw_live *e = live_entry(live_step(i, -j));

		if (!e || READ_ONCE(e->key) != MW_LIVE_GONE ||
		    live_clear(live_step(i, -j), MW_LIVE_GONE) != MW_LIVE_CLEARED)
			break;
	}
	return true;
}

#define MW_LIVE_TRIES	4	/* searches when other threads take the entry found */

/*
 * Adds @key with @blk: 0, or -MW_EEXIST with *@at its entry's index (its
 * free was never seen), or -MW_ENOSPC when neither part has a free entry
 * within MW_LIVE_PROBES. Each search goes to the chain's end, so that a
 * key already there is found (in the spill part too once its region
 * spilled); the first freed entry on the way is reused, else the end.
 * The main part first; the spill part when it has no room, the region's
 * bit set before. Inline or a global function (live_add).
 */
static __always_inline int live_add_here(__u64 key, const struct mw_block *blk, __u32 *at)
{
	__u32 home0 = live_home(key);
	__u64 bit, *w = spill_word(home0, &bit);

	if (!blk || !at || !w)
		return -MW_ENOSPC;
	for (int r = 0; r < MW_LIVE_TRIES; r++) {
		bool spill = READ_ONCE(*w) & bit;
		__u32 home = home0, gone, n, p;
		struct live_scan s;
		struct mw_live *e;

		live_scan(&s, key, home);
		if (s.at < MW_LIVE_PROBES) {
			*at = live_step(home, s.at);
			return -MW_EEXIST;
		}
		gone = s.gone;
		n = gone < MW_LIVE_PROBES ? gone : s.end;
		if (n >= MW_LIVE_PROBES && !spill) {
			__sync_fetch_and_or(w, bit);
			spill = true;
		}
		if (spill) {
			p = spill_scan(key);
			if (SCAN_AT(p) < MW_LIVE_PROBES) {
				*at = live_step(spill_home(key), SCAN_AT(p));
				return -MW_EEXIST;
			}
			if (n >= MW_LIVE_PROBES) {
				home = spill_home(key);
				gone = SCAN_GONE(p);
				n = gone < MW_LIVE_PROBES ? gone : SCAN_END(p);
				if (n >= MW_LIVE_PROBES)
					return -MW_ENOSPC;
			}
		}
		e = live_entry(live_step(home, n));
		if (!live_claim(e, n == gone ? MW_LIVE_GONE : 0, key))
			continue;
		if (live_reachable(home, n)) {
			e->blk = *blk;
			return 0;
		}
		WRITE_ONCE(e->key, MW_LIVE_GONE);	/* an entry before it was cleared */
	}
	return -MW_ENOSPC;	/* taken from under it each time: counted as full */
}

/*
 * The table's add and take are out of line (global functions, verified
 * once) where structures or stacks are on: inlined at each caller there,
 * they took alloc_enter and alloc_session past the verifier's million
 * instructions. In plain heap mode, inline: no call, no return through
 * the kernel's return thunk (a dead branch on a constant the verifier
 * does not explore).
 */
#define MW_TABLE_INLINE	(!have_structs && !want_stacks)

__noinline int live_add_call(__u64 key, const struct mw_block *blk, __u32 *at)
{
	return live_add_here(key, blk, at);
}

static __always_inline int live_add(__u64 key, const struct mw_block *blk, __u32 *at)
{
	return MW_TABLE_INLINE ? live_add_here(key, blk, at) : live_add_call(key, blk, at);
}

static __always_inline void block_gone(__u32 slot, struct mw_block *blk);

static __always_inline void block_live(__u32 slot, __u64 addr, __u64 size,
				       __u32 charge, __u64 ra, __u64 stack)
{
	__u64 key = MW_BLOCK_KEY(slot, addr);
	struct mw_site *site = NULL;
	struct mw_block blk = { .size = size, .struct_id = charge,
				.site = site_key(slot, ra, stack, charge, &site) };
	struct mw_live *old;
	__u32 at = 0;
	int err;

	err = live_add(key, &blk, &at);
	if (err == -MW_EEXIST && (old = live_entry(at))) {	/* its free was never seen */
		struct mw_block gone = old->blk;

		count(slot, MW_C_LOST_UNPAIRED, 1);
		block_gone(slot, &gone);
		old->blk = blk;
		err = 0;
	}
	if (err) {
		count(slot, MW_C_LOST_TABLE_FULL, 1);
		return;
	}
	account_live(slot, size, charge, blk.site, site);
}

static __always_inline void block_gone(__u32 slot, struct mw_block *blk)
{
	struct mw_struct_stats *ss;

	count2(slot, MW_C_FREE_CALLS, 1, MW_C_FREE_BYTES, blk->size);
	if (blk->struct_id && (ss = sstats(slot, blk->struct_id - 1)))
		ss->free_bytes += blk->size;
	site_add(slot, blk->site, blk->struct_id, -(__s64)blk->size, -1, NULL);
}

/* Takes @addr out of the table into @out; returns false if untracked
 * (or another thread's free of it took it first). Inline or a global
 * function (block_take): inlined at each of its callers with structures
 * and --stacks, the table's search and free took alloc_enter and
 * alloc_session past the verifier's million instructions. */
static __always_inline bool block_take_here(__u32 slot, __u64 addr, struct mw_block *out)
{
	__u64 key = MW_BLOCK_KEY(slot, addr);
	struct mw_live *e;
	__u32 i;

	if (!out || !(e = live_find(key, &i)))
		return false;
	*out = e->blk;
	return live_free(i, key);
}

__noinline bool block_take_call(__u32 slot, __u64 addr, struct mw_block *out)
{
	return block_take_here(slot, addr, out);
}

static __always_inline bool block_take(__u32 slot, __u64 addr, struct mw_block *out)
{
	return MW_TABLE_INLINE ? block_take_here(slot, addr, out) : block_take_call(slot, addr, out);
}

/* Puts @blk back as @key's, unless the key is there again: false when it
 * could not be (the table full, counted by the caller). */
static __always_inline bool block_put_back(__u64 key, const struct mw_block *blk)
{
	__u32 at = 0;

	return live_add(key, blk, &at) == 0;
}

/* An in-place resize (xallocx, mi_expand): the block keeps its address
 * and charge, with a new size; counted as a free and an allocation, like
 * a realloc that did not move. A block not in the table stays unknown. */
static __always_inline void block_resize(__u32 slot, __u64 addr, __u64 size)
{
	struct mw_live *e;
	struct mw_block old;
	__u32 i;

	if (!(e = live_find(MW_BLOCK_KEY(slot, addr), &i)))
		return;
	old = e->blk;
	e->blk.size = size;
	block_gone(slot, &old);
	account_live(slot, size, old.struct_id, old.site, NULL);
}

#endif /* MW_LIVE_BPF_H */
