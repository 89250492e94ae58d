/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.bpf.h - the watched processes' slots, per-target counters
 * (stats, struct_stats: per-CPU) and each thread's record in task
 * storage. A part of memwatch.bpf.c, included
 * there (one translation unit, one object).
 */
#ifndef MW_STATE_BPF_H
#define MW_STATE_BPF_H

/* An insert or remove call in progress on a thread: the stack slot of
 * its return address, and that address. */
struct mw_scope {
	__u64 sp;
	__u64 cookie;
	__u64 ra;
	__s64 delta;	/* elements the call counted at its entry (one, argN) */
	__u32 unwinding;	/* open when an exception's search began */
	__u32 pad;
};

/* The last call of a split function's header on a thread (MW_SF_HEAD):
 * the stack slot of its return address, that address, and its code. */
struct mw_head {
	__u64 sp;
	__u64 ra;
	__u64 lo, hi;
};

/* A call record's op for a throwing call known to fail (no return will
 * come): kept until the thread's next allocator entry, so that a tail
 * jump to another entry point (jemalloc's operator new[] to operator
 * new) is seen as the same failed call. */
#define MW_OP_DECLINED	MW_OP__COUNT

struct mw_thread {
	struct mw_call call;	/* an open call that found its index held */
	struct mw_head head;
	__u32 nscopes;
	__u32 exiting;		/* in glibc's __libc_thread_freeres: the thread
				 * gives its malloc cache back */
	struct mw_scope scopes[MW_MAX_SCOPES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MW_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct mw_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MW_MAX_TARGETS * MW_MAX_STRUCTS);
	__type(key, __u32);
	__type(value, struct mw_struct_stats);
} struct_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct mw_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MW_MAX_TARGETS);
	__type(key, __u32);		/* tgid */
	__type(value, __u32);		/* slot */
} slots SEC(".maps");

/* The cookie of the probe that fired, with its process's slot: a shared
 * event's (MW_COOKIE_SHARED) has the slot of the calling process. false
 * if memwatch does not watch that process (not yet, or no more). */
static __always_inline bool probe_cookie(void *ctx, __u64 *cookie)
{
	__u64 c = bpf_get_attach_cookie(ctx);
	__u32 tgid, *found, slot = MW_COOKIE_SLOT(c);

	if (c & MW_COOKIE_SHARED) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		found = bpf_map_lookup_elem(&slots, &tgid);
		if (!found)
			return false;
		slot = *found;
	}
	/* the same steps on both paths: the verifier sees one state after
	 * them, and does not walk the program once for each */
	*cookie = MW_COOKIE_WITH_SLOT(c & ~(MW_COOKIE_SHARED | MW_COOKIE_SLOT_MASK),
				      slot & (MW_MAX_TARGETS - 1));
	return true;
}

static __always_inline void count(__u32 slot, __u32 counter, __u64 n)
{
	struct mw_stats *s = bpf_map_lookup_elem(&stats, &slot);

	if (s && counter < MW_C__COUNT)
		s->c[counter] += n;
}

/* Two counters of one target with one lookup: the hot path's pairs. */
static __always_inline void count2(__u32 slot, __u32 c1, __u64 n1, __u32 c2, __u64 n2)
{
	struct mw_stats *s = bpf_map_lookup_elem(&stats, &slot);

	if (s && c1 < MW_C__COUNT && c2 < MW_C__COUNT) {
		s->c[c1] += n1;
		s->c[c2] += n2;
	}
}

static __always_inline struct mw_struct_stats *sstats(__u32 slot, __u32 id)
{
	__u32 key = slot * MW_MAX_STRUCTS + id;

	return bpf_map_lookup_elem(&struct_stats, &key);
}

/* The kind of hit of an entry probe with @cookie (enum mw_hit). */
static __always_inline __u32 entry_hit(__u64 cookie)
{
	return cookie & MW_COOKIE_STEPPED ? MW_HIT_STEPPED : MW_HIT_EMULATED;
}

/* One hit of a probe that is not a structure's (the overhead estimate). */
static __always_inline void count_hit(__u32 slot, __u32 hit)
{
	count(slot, MW_C_HITS + hit, 1);
}

static __always_inline struct mw_thread *thread(bool create)
{
	return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Integer registers hold 32-bit values with undefined upper halves when the
 * C type is int: a value outside the 32-bit range is read as its low half. */
static __always_inline __s64 as_count(__u64 reg)
{
	__s64 v = (__s64)reg;

	if (v > 0x7fffffffLL || v < -0x80000000LL)
		v = (__s32)reg;
	return v;
}

#endif /* MW_STATE_BPF_H */
