/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scopes.bpf.h - structure scopes: an insert or remove call open on a
 * thread, known from its entry alone, closed when its return address is
 * popped or an exception unwinds it. A part of memwatch.bpf.c, included
 * there (one translation unit, one object).
 */
#ifndef MW_SCOPES_BPF_H
#define MW_SCOPES_BPF_H

/* ------------------------------------------------------ structure scopes */

/* The kernel's return trampoline in this process: the start of its
 * [uprobes] mapping (0 before any return probe ran). */
static __always_inline __u64 trampoline(void)
{
	return BPF_CORE_READ(bpf_get_current_task_btf(), mm, uprobes_state.xol_area, vaddr);
}

/*
 * Another return probe on the same function (another tool's, or another
 * memwatch's: the kernel prepares a return for every return consumer of
 * a probe, whatever pid it filters on) puts the trampoline in the slot
 * too. The kernel's own record of that return keeps the address it
 * replaced: the call is still open if the record at @slot has @ra.
 */
#define MW_MAX_RETURNS	8	/* return instances looked through */

static __always_inline bool held_by_trampoline(__u64 slot, __u64 ra)
{
	struct return_instance *ri;

	ri = BPF_CORE_READ(bpf_get_current_task_btf(), utask, return_instances);
	for (int i = 0; i < MW_MAX_RETURNS && ri; i++) {
		if (BPF_CORE_READ(ri, stack) == slot)
			return BPF_CORE_READ(ri, orig_ret_vaddr) == ra;
		ri = BPF_CORE_READ(ri, next);
	}
	return false;
}

/*
 * A scope is the call of a structure function, recorded at its entry with
 * the stack slot of its return address (the stack pointer at entry) and
 * the address found there. It is open for an event at stack pointer @sp
 * while the thread runs at or below that slot and the slot still holds
 * that address: the call has not returned. At the slot itself with the
 * address still there is a tail call out of the function (its callee
 * returns for it). Once the call returns, the slot is the caller's: its
 * next call of anything writes another return address there, and any
 * probe that runs at or above the slot ends the scope. A scope with a
 * return probe has the kernel's trampoline in its slot instead (the
 * start of the [uprobes] mapping).
 */
static __always_inline bool scope_open(const struct mw_scope *s, __u64 sp)
{
	__u64 v = 0, ra = s->ra, tramp;

	if (sp > s->sp)
		return false;
	if (s->cookie & MW_SF_RETPROBE) {
		if (sp < s->sp)
			return true;
		ra = trampoline();
	}
	if (bpf_probe_read_user(&v, sizeof(v), (void *)s->sp))
		return false;
	if (v == ra)
		return true;	/* the common case: no trampoline read */
	if (s->cookie & MW_SF_RETPROBE)
		return false;
	tramp = trampoline();
	return tramp && v == tramp && held_by_trampoline(s->sp, ra);
}

/* The call whose scope @s is was unwound: counted, and what it counted
 * at its entry taken back. */
static __always_inline void scope_unwound(const struct mw_scope *s)
{
	struct mw_struct_stats *ss = sstats(MW_COOKIE_SLOT(s->cookie), MW_SF_ID(s->cookie));

	if (!ss)
		return;
	ss->unwound_calls++;
	ss->elements -= s->cookie & MW_SF_REMOVE ? -s->delta : s->delta;
}

/* A scope that ended without its return: one an exception's search found
 * open ends by the unwinding (a cleanup frame above it overwrote its
 * slot); else one that waits for its return value is lost. */
static __always_inline void scope_gone(const struct mw_scope *s, __u32 slot)
{
	if (s->unwinding)
		scope_unwound(s);
	else if (MW_SF_DELTA(s->cookie) == MW_DELTA_RET)
		count(slot, MW_C_LOST_UNPAIRED, 1);
}

/* Drops the innermost scopes that are no longer open at @sp. */
static __always_inline void prune_scopes(struct mw_thread *t, __u64 sp,
					 __u32 slot)
{
	for (int i = 0; i < MW_MAX_SCOPES; i++) {
		__u32 n = t->nscopes;
		struct mw_scope *s;

		if (n == 0 || n > MW_MAX_SCOPES)
			break;
		s = &t->scopes[(n - 1) & (MW_MAX_SCOPES - 1)];
		if (scope_open(s, sp))
			break;
		t->nscopes = n - 1;
		scope_gone(s, slot);
	}
}

/* The innermost insert scope still open, as structure id + 1; 0: none.
 * Stale scopes must have been pruned first. */
static __always_inline __u32 innermost_insert(struct mw_thread *t)
{
	for (int i = MW_MAX_SCOPES - 1; i >= 0; i--) {
		if ((__u32)i >= t->nscopes)
			continue;
		if (!(t->scopes[i].cookie & MW_SF_REMOVE))
			return MW_SF_ID(t->scopes[i].cookie) + 1;
	}
	return 0;
}

#endif /* MW_SCOPES_BPF_H */
