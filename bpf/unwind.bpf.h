/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.bpf.h - stacks, by unwinding: a user stack walked in BPF by the
 * unwind tables of the objects the process maps (--stacks). A part of
 * memwatch.bpf.c, included there (one translation unit, one object).
 */
#ifndef MW_UNWIND_BPF_H
#define MW_UNWIND_BPF_H

/* ------------------------------------------------- stacks, by unwinding */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MW_UNWIND_ROWS);	/* set by the loader */
	__type(key, __u32);
	__type(value, struct mw_unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MW_MAX_TARGETS);
	__type(key, __u32);			/* slot */
	__type(value, struct mw_unwind_proc);
} unwind_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MW_MAX_STACKS);
	__type(key, __u32);			/* stack id */
	__type(value, struct mw_walked_stack);
} walked_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mw_walked_stack);
} walk_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mw_stack_window);
} walk_window SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MW_WALK_CACHE);
	__type(key, __u32);
	__type(value, struct mw_walk_cached);
} walk_cache SEC(".maps");

/*
 * A user stack walked by the unwind tables of the objects the process
 * maps (user/stacks/ builds them from .eh_frame; stacks/stackwalk.c is this
 * walk in user space, checked against backtrace(3)): each frame's row,
 * the CFA from %rsp or %rbp, the return address at CFA-8, %rbp from where
 * the row saved it. No frame pointer needed; a frame without a row ends
 * the walk.
 */
struct walk {
	__u64 ip, sp, bp;
	__u64 tid;	/* the walk's thread, as its window holds it */
	__u32 slot, n;
};

static __always_inline struct mw_unwind_map *unwind_map(struct mw_unwind_proc *p, __u64 ip)
{
	__u32 lo = 0, hi = p->n;

	if (hi > MW_UNWIND_MAPS)
		return NULL;
	for (int i = 0; i < 7 && lo < hi; i++) {	/* 2^7 > MW_UNWIND_MAPS */
		__u32 mid = (lo + hi) / 2;
		struct mw_unwind_map *m = &p->m[mid & (MW_UNWIND_MAPS - 1)];

		if (ip < m->start)
			hi = mid;
		else if (ip >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

/* The index in unwind_rows of the last row of @m's object at or below
 * link-time address @pc, or ~0u. */
static __always_inline __u32 unwind_row(struct mw_unwind_map *m, __u64 pc)
{
	__u32 lo = m->first, hi = m->first + m->count, best = ~0u;

	for (int i = 0; i < 22 && lo < hi; i++) {	/* 2^21 rows */
		__u32 mid = lo + (hi - lo) / 2;
		struct mw_unwind_row *r = bpf_map_lookup_elem(&unwind_rows, &mid);

		if (!r)
			return ~0u;
		if (r->pc <= pc) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best;
}

static __always_inline __u64 walk_check(__u64 at, __u32 slot, __u32 version, __u32 row)
{
	return (at ^ ((__u64)slot << 32 | version) ^ ((__u64)row << 17)) * 0x9e3779b97f4a7c15ull;
}

/* The CPU's cache entry for address @at. */
static __always_inline struct mw_walk_cached *walk_cached(__u64 at)
{
	__u32 k = (__u32)((at * 0x9e3779b97f4a7c15ull) >> 54) & (MW_WALK_CACHE - 1);

	return bpf_map_lookup_elem(&walk_cache, &k);
}

/* The index in unwind_rows of the row for address @at of process @p
 * (slot @slot): from the CPU's cache of rows found, else searched and
 * cached; ~0u when none. A global function: the verifier checks it once,
 * not at every frame of every caller's walk. */
__noinline __u32 frame_row(struct mw_unwind_proc *p, __u32 slot, __u64 at)
{
	struct mw_walk_cached *c = walk_cached(at);
	struct mw_unwind_map *m;
	__u32 row, version;

	if (!p)
		return ~0u;
	version = p->version;
	if (c && c->at == at && c->slot == slot && c->version == version &&
	    c->check == walk_check(at, slot, version, c->row))
		return c->row;
	m = unwind_map(p, at);
	if (!m)
		return ~0u;
	row = unwind_row(m, at - m->bias);
	if (row != ~0u && c) {
		c->at = at;
		c->slot = slot;
		c->version = version;
		c->row = row;
		c->check = walk_check(at, slot, version, row);
	}
	return row;
}

/* @n (1 or 2, a constant) words at the target's @addr: loads from the
 * window of its stack read at the walk's start when they lie there, else
 * one read. 0 or -errno. */
static __always_inline long stack_words(const struct walk *w, __u64 addr, __u64 *out, __u32 n)
{
	__u32 zero = 0;
	struct mw_stack_window *win = bpf_map_lookup_elem(&walk_window, &zero);
	__u64 off = addr - (win ? win->base : 0);

	if (win && addr >= win->base && off + 8 * n <= win->len && !(off & 7) &&
	    win->tid == w->tid) {
		out[0] = *(__u64 *)&win->data[off & (MW_STACK_WINDOW - 8)];
		if (n > 1)
			out[1] = *(__u64 *)&win->data[(off + 8) & (MW_STACK_WINDOW - 8)];
		return 0;
	}
	return bpf_probe_read_user(out, 8 * n, (void *)addr);
}

/* One frame: 0 to go on, 1 to stop (bpf_loop's callback). */
static long unwind_step(__u32 i, void *data)
{
	struct walk *w = data;
	__u32 zero = 0, slot = w->slot;
	struct mw_walked_stack *out = bpf_map_lookup_elem(&walk_scratch, &zero);
	struct mw_unwind_proc *p = bpf_map_lookup_elem(&unwind_procs, &slot);
	struct mw_unwind_row *r;
	__u64 at, cfa, ra = 0, pair[2];
	__u32 row;

	if (!out || !p || w->n >= MW_STACK_DEPTH)
		return 1;
	/* past frame 0 the address is a return: its call is just before */
	at = w->n > 1 ? w->ip - 1 : w->ip;
	row = frame_row(p, slot, at);
	r = bpf_map_lookup_elem(&unwind_rows, &row);
	if (!r)
		return 1;
	switch (r->kind) {
	case MW_UW_RSP:
		cfa = w->sp + (__s64)r->off;
		break;
	case MW_UW_RBP:
		if (r->off == 16 && r->rbp == -16) {
			/* the frame-pointer rule: the caller's %rbp and the
			 * return address side by side, one read */
			if (stack_words(w, w->bp, pair, 2) || !pair[1])
				return 1;
			cfa = w->bp + 16;
			w->bp = pair[0];
			ra = pair[1];
			goto found;
		}
		cfa = w->bp + (__s64)r->off;
		break;
	case MW_UW_PLT:
		cfa = w->sp + (__s64)r->off + ((w->ip & 15) >= r->plt ? 8 : 0);
		break;
	default:	/* the outermost frame, or a rule not followed */
		return 1;
	}
	if (stack_words(w, cfa - 8, &ra, 1) || !ra)
		return 1;
	if (r->rbp && stack_words(w, cfa + (__s64)r->rbp, &w->bp, 1))
		return 1;
found:
	w->sp = cfa;
	w->ip = ra;
	out->ips[w->n & (MW_STACK_DEPTH - 1)] = ra;
	w->n++;
	return 0;
}

/* The stack at @ctx walked and kept: its id + 1, or 0 (counted) when no
 * id of the few its hash tries is free or its own. */
static __always_inline __u64 unwind_stack(struct pt_regs *ctx, __u32 slot)
{
	struct walk w = { .ip = PT_REGS_IP(ctx), .sp = PT_REGS_SP(ctx), .bp = ctx->bp,
			  .tid = bpf_get_current_pid_tgid(), .slot = slot, .n = 1 };
	__u32 zero = 0;
	struct mw_walked_stack *out = bpf_map_lookup_elem(&walk_scratch, &zero);
	__u64 h = 14695981039346656037ull;

	struct mw_stack_window *win = bpf_map_lookup_elem(&walk_window, &zero);

	if (!out)
		return 0;
	out->ips[0] = w.ip;
	if (win) {
		/* the stack's top, once; near the top of a thread's stack a
		 * window runs past its end, and a smaller one is tried */
		win->tid = w.tid;
		win->base = w.sp;
		win->len = MW_STACK_WINDOW;
		if (bpf_probe_read_user(win->data, MW_STACK_WINDOW, (void *)w.sp)) {
			win->len = MW_STACK_WINDOW / 8;
			if (bpf_probe_read_user(win->data, MW_STACK_WINDOW / 8, (void *)w.sp))
				win->len = 0;
		}
	}
	bpf_loop(MW_STACK_DEPTH, unwind_step, &w, 0);
	for (int i = 0; i < MW_STACK_DEPTH; i++) {
		if ((__u32)i >= w.n)
			break;
		h = (h ^ out->ips[i]) * 1099511628211ull;
	}
	out->hash = h;
	for (int k = 0; k < MW_UNWIND_PROBE; k++) {
		__u32 id = (__u32)((h + k) % MW_MAX_STACKS);
		struct mw_walked_stack *had = bpf_map_lookup_elem(&walked_stacks, &id);

		if (!had) {
			/* a new stack: what lies past its frames ends it */
			for (int i = 0; i < MW_STACK_DEPTH; i++)
				if ((__u32)i >= w.n)
					out->ips[i] = 0;
		}
		if (!had && !bpf_map_update_elem(&walked_stacks, &id, out, BPF_NOEXIST))
			return (__u64)id + 1;
		if (!had)
			had = bpf_map_lookup_elem(&walked_stacks, &id);	/* a race */
		if (had && had->hash == h)
			return (__u64)id + 1;
	}
	count(slot, MW_C_LOST_STACKS, 1);
	return 0;
}

#endif /* MW_UNWIND_BPF_H */
