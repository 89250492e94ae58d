// SPDX-License-Identifier: GPL-2.0
/*
 * memwatch.bpf.c - the kernel side. Uprobes on the target's allocator and on
 * the functions the user names as a structure's insert/remove keep, per
 * target: a table of live blocks, per-CPU counters, and per-structure
 * element counts and charged bytes. The loader (user/) only reads the maps.
 *
 * Pairing: a thread's outermost allocator call is recorded with the stack
 * pointer at its entry. A later entry deeper on the stack, or at the same
 * depth (a tail call: glibc's reallocarray jumps to realloc), is a nested
 * call and is ignored; a return whose stack pointer is not the recorded
 * one + 8 belongs to a nested call. A record found by an entry higher on
 * the stack, or older than MW_STALE_JIFFIES, lost its return: it is counted,
 * never silently reused.
 *
 * Structure scopes borrow no return address (see "structure scopes"):
 * the kernel's return probe writes its trampoline over the return address,
 * and the trampoline has no unwind information, so a C++ exception or Rust
 * panic crossing such a frame would abort the target. Only allocator
 * entry points, which never unwind, keep return probes, as uprobe
 * sessions whose entry may decline the return: C++ operator new, which
 * throws, keeps one only for calls that can succeed.
 *
 * The parts, headers of this one translation unit (one object, one
 * skeleton; their helpers inline into the programs here), in the order
 * they build on each other, each with the maps it uses:
 *   regs.bpf.h    the entry's state at a probe, arguments' registers
 *   state.bpf.h   per-target counters, each thread's record
 *   scopes.bpf.h  structure scopes, open on a thread
 *   sites.bpf.h   allocation sites
 *   live.bpf.h    the live-block table
 *   unwind.bpf.h  stacks walked by unwind tables
 * and below them the programs: allocator probes, structure probes, the
 * lifecycle (exec, fork, the loader), the floor.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "memwatch.h"

/* No allocator call lasts this long; a record this old lost its return.
 * In jiffies, which cost a load where the clock costs a clock read (about
 * 15% of heap mode's BPF time, measured): 1 s at HZ 1000, 10 s at HZ 100. */
#define MW_STALE_JIFFIES 1000ull

/* libbpf 1.1 stops at the fifth argument; the sixth is in r9 on x86-64. */
#define MW_PARM6(x) ((x)->r9)

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load: no structure is watched, so the
 * allocator programs skip scope tracking (the verifier drops that code). */
const volatile bool have_structs = true;
/* The session watches one process, in slot 0 (calibration's too), ever:
 * free_enter, which reads no cookie, serves its plain frees. */
const volatile bool solo = false;
/* Set by the loader: attribute blocks to call sites (and full stacks). */
const volatile bool want_sites = false;
const volatile bool want_stacks = false;
const volatile bool want_unwind = false;	/* stacks by unwind tables */
/* Set by the loader for each target slot (oom.c): no allocation of this
 * many bytes or more can succeed there, so a throwing operator new of
 * that size throws. The user address space until then. */
struct mw_fits never_fits[MW_MAX_TARGETS] = {
	[0 ... MW_MAX_TARGETS - 1] = { 1ull << 47, 1ull << 47 },
};

/* Set by the loader in follow mode: every process's execve is reported
 * (the loader matches it), and a watched process's forks. */
const volatile bool report_execs = false;
const volatile bool report_moves = false;	/* --cgroup: cgroup migrations */
const volatile bool report_forks = false;

#define MW_SIGSTOP 19

/* kfuncs of uprobe sessions (Linux 6.12); weak: an older kernel loads
 * the entry and return programs instead (kernel.c), and no session
 * program, whose calls alone would need it */
extern bool bpf_session_is_return(void) __ksym __weak;

#include "regs.bpf.h"
#include "state.bpf.h"
#include "scopes.bpf.h"
#include "sites.bpf.h"
#include "live.bpf.h"
#include "unwind.bpf.h"

/* ------------------------------------------------------ allocator probes */

/* A thread's call record: where it is, and the index that says so. */
struct call_at {
	struct mw_call *c;
	struct mw_call_slot *r;
	bool fallback;		/* c is in the thread's task storage */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* the loader lets gone threads' go */
	__uint(max_entries, MW_CALL_SLOTS);
	__type(key, __u32);		/* thread id & (MW_CALL_SLOTS - 1) */
	__type(value, struct mw_call_slot);
} calls SEC(".maps");

static __always_inline struct mw_call_slot *call_slot(__u64 id)
{
	__u32 i = (__u32)id & (MW_CALL_SLOTS - 1);

	return bpf_map_lookup_elem(&calls, &i);
}

/*
 * Where a call's return finds its record without the thread id (a helper
 * call, ~20 ns here), in a session of one process: the entry notes the
 * record's index under its stack pointer, at that stack pointer's hash.
 * No other call of the process can be at that stack pointer while this
 * one is open (its threads' stacks are apart), so a note that holds the
 * return's stack pointer is this call's; where another call's note took
 * the entry (the same hash), the return asks for the thread id as before.
 * A note is trusted only with its record open at that stack pointer and
 * held: a return whose entry no program saw (a missed run) finds at most
 * an older call's note, whose record is closed or at another stack
 * pointer, but for a thread that died inside a call at that very stack
 * pointer, whose stack a new thread took, before the loader let its
 * record go (next interval): that return would close the dead call.
 */
#define MW_RET_NOTES_BITS	12
#define MW_RET_TASK		0xfffff		/* the call is in task storage */
#define MW_RET_NOTE(sp, i)	((sp) >> 3 << 20 | (i))	/* sp < 2^47, 8-aligned */
_Static_assert(MW_CALL_SLOTS <= MW_RET_TASK, "a note's index below MW_RET_TASK");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << MW_RET_NOTES_BITS);
	__type(key, __u32);		/* the entry's stack pointer's hash */
	__type(value, __u64);		/* MW_RET_NOTE; 0: none */
} ret_notes SEC(".maps");

/* The note of a call entered with stack pointer @sp. */
static __always_inline __u64 *ret_note(__u64 sp)
{
	__u32 i = (__u32)(((sp >> 3) * MW_LIVE_HASH) >> (64 - MW_RET_NOTES_BITS));

	return bpf_map_lookup_elem(&ret_notes, &i);
}

/* Notes where the call entered with @sp is recorded (@at, held by thread
 * @id; NULL: nowhere), for its return (solo: one process). */
static __always_inline void ret_noted(__u64 sp, __u64 id, const struct call_at *at)
{
	__u64 *n = ret_note(sp);

	if (n)
		WRITE_ONCE(*n, !at || (sp & 7) || (sp >> 47) ? 0 :
			   MW_RET_NOTE(sp, at->fallback ? MW_RET_TASK :
				       (__u32)id & (MW_CALL_SLOTS - 1)));
}

/* The record of the call entered with @sp, as its entry noted it, into
 * @at: false if the note is another call's or says task storage. */
static __always_inline bool call_noted(__u64 sp, struct call_at *at)
{
	__u64 *n = ret_note(sp), v;
	__u32 i;

	if (!n || (sp & 7))
		return false;
	v = READ_ONCE(*n);
	i = (__u32)v & MW_RET_TASK;
	if (v >> 20 != sp >> 3 || i >= MW_CALL_SLOTS ||
	    !(at->r = bpf_map_lookup_elem(&calls, &i)))
		return false;
	/* held (not being let go by the loader, sample/calls.c) */
	v = READ_ONCE(at->r->owner);
	if (!v || v == MW_CALL_LETTING_GO)
		return false;
	at->c = &at->r->call;
	at->fallback = false;
	return true;
}

static __always_inline bool stale(__u64 start)
{
	return bpf_jiffies64() - start >= MW_STALE_JIFFIES;
}

/* Thread @id's open call record, if it has one, into @at. */
static __always_inline bool call_find(__u64 id, struct call_at *at)
{
	struct mw_thread *t;

	at->r = call_slot(id);
	at->fallback = false;
	if (!at->r)
		return false;
	if (READ_ONCE(at->r->owner) == id) {
		at->c = &at->r->call;
		return true;
	}
	if (!READ_ONCE(at->r->fallbacks) || !(t = thread(false)) || !t->call.sp)
		return false;
	at->c = &t->call;
	at->fallback = true;
	return true;
}

/*
 * Thread @id's call record for an entry, into @at: its open one, else
 * its index if free, else its task storage. The caller then opens a call
 * in it (call_open) or lets it go (call_close), or leaves an open one as
 * it is. Only the holder lets an index go: one whose holder died inside
 * a call (its process exited or exec'd) is let go by the loader
 * (sample/calls.c), when it sees that thread gone.
 */
static __always_inline bool call_hold(__u64 id, struct call_at *at)
{
	struct mw_call_slot *r;
	struct mw_thread *t;

	if (call_find(id, at))
		return true;
	r = at->r;
	if (!r)
		return false;
	if (__sync_val_compare_and_swap(&r->owner, 0, id) == 0) {
		at->c = &r->call;	/* let go with sp 0 */
		return true;
	}
	if (!(t = thread(true)))
		return false;
	at->c = &t->call;
	at->fallback = true;
	return true;
}

/* A call was opened in @at's record (in place), which held none if not
 * @was_open. */
static __always_inline void call_opened(struct call_at *at, bool was_open)
{
	if (at->fallback && !was_open)
		__sync_fetch_and_add(&at->r->fallbacks, 1);
}

/* Closes @at's call, if open, and lets its index go. */
static __always_inline void call_close(struct call_at *at)
{
	bool was_open = at->c->sp;

	WRITE_ONCE(at->c->sp, 0);
	if (!at->fallback)
		WRITE_ONCE(at->r->owner, 0);
	else if (was_open)
		__sync_fetch_and_add(&at->r->fallbacks, -1);
}

/* a * b into @out; true if it overflows 64 bits. Written with 32-bit halves:
 * clang turns the usual division test into a 128-bit multiply, which BPF
 * does not have. */
static __always_inline bool mul_overflows(__u64 a, __u64 b, __u64 *out)
{
	__u64 ahi = a >> 32, alo = a & 0xffffffff;
	__u64 bhi = b >> 32, blo = b & 0xffffffff;
	__u64 cross, low;

	*out = a * b;
	if (ahi && bhi)
		return true;
	cross = ahi * blo + alo * bhi;	/* one of the two terms is 0 */
	if (cross >> 32)
		return true;
	low = alo * blo;
	return low + (cross << 32) < low;
}

/* The return value of an entry point's entry in a uprobe session: 1
 * declines its return probe. */
#define MW_NO_RETURN	1

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MW_MAX_TARGETS);
	__type(key, __u32);		/* slot */
	__type(value, struct mw_loader);
} loaders SEC(".maps");

/* The slot's attach generation: the loader counts its resets. */
static __always_inline __u32 generation(__u32 slot)
{
	struct mw_loader *l = bpf_map_lookup_elem(&loaders, &slot);

	return l ? l->gen : 0;
}

/*
 * Open call @c lost its return: counted as unpaired, and a realloc's old
 * block, which may still be live, put back rather than lost. A call
 * opened before the slot's figures were reset (its probes detached
 * mid-call, at execve, SIGUSR1) is not this attach's: neither.
 */
static __always_inline void call_lost(const struct mw_call *c)
{
	if (c->gen != generation(c->slot))
		return;
	count(c->slot, MW_C_LOST_UNPAIRED, 1);
	if (c->has_stash)
		block_put_back(MW_BLOCK_KEY(c->slot, c->old), &c->stash);
}

/* Whether the outer call recorded at @sp is still running: the kernel's
 * trampoline is in its return slot (an outer call always has a return
 * probe). A call whose return went unseen (probes attached while the
 * process was inside it, a longjmp out of it) no longer has it there. */
static __always_inline bool outer_open(__u64 sp)
{
	__u64 ra = 0;

	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)sp))
		return true;		/* unreadable: trust the record */
	return ra == trampoline() || held_by_trampoline(sp, ra);
}

/* Whether an entry at @sp is nested inside open call @c. */
static __always_inline bool nested_in(const struct mw_call *c, __u64 sp)
{
	return c->sp && c->op != MW_OP_DECLINED && c->sp >= sp && outer_open(c->sp) &&
	       !stale(c->start);
}

/*
 * A free of @addr at stack pointer @sp not in the table: expected inside
 * an outer call (a realloc or sized free took the block at its entry),
 * and while glibc's thread exit gives its cache back (see thread_exit);
 * else an untracked free. Only here does a free look at its thread. A
 * call of the thread's still open but not running lost its return: it
 * is settled first, as the next entry would (a realloc's taken block
 * put back), and the block looked for again.
 */
static __always_inline void free_unknown(__u32 slot, __u64 addr, __u64 sp)
{
	struct call_at at;
	struct mw_thread *t;
	struct mw_block blk;

	if (call_find(bpf_get_current_pid_tgid(), &at) && at.c->sp &&
	    at.c->op != MW_OP_DECLINED) {
		if (nested_in(at.c, sp))
			return;
		call_lost(at.c);
		call_close(&at);
		if (block_take(slot, addr, &blk)) {
			block_gone(slot, &blk);
			return;
		}
	}
	if ((t = thread(false)) && t->exiting)
		return;
	count(slot, MW_C_UNTRACKED_FREES, 1);
}

/* A free of @addr at stack pointer @sp: the block's entry taken, with no
 * look at the thread unless the block is not there. */
static __always_inline void block_free(__u32 slot, __u64 addr, __u64 sp)
{
	struct mw_block blk;

	if (!addr)
		return;
	if (block_take(slot, addr, &blk))
		block_gone(slot, &blk);
	else
		free_unknown(slot, addr, sp);
}

/* The values allocator op @op reads (mw_op_args, a constant here) into @c. */
static __always_inline void read_args(struct pt_regs *ctx, const struct mw_place *pl,
				      __u32 op, struct mw_call *c)
{
	const struct mw_op_args *a = &mw_op_args[op];

	c->old = entry_arg(ctx, pl, a->old);
	c->size = entry_arg(ctx, pl, a->size);
	if (a->count)
		c->bad_size = mul_overflows(c->size, entry_arg(ctx, pl, a->count), &c->size);
	c->extra = entry_arg(ctx, pl, a->extra);
}

/* What an entry does with its thread's call record. */
enum entry_do {
	ENTRY_KEEP,	/* leave it: the outer call's, open */
	ENTRY_OPEN,	/* open this call in it */
	ENTRY_DECLINE,	/* open it as a call that must fail (no return) */
	ENTRY_NONE,	/* close it */
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, MW_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MW_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/*
 * An allocator entry point's entry, with the thread's call record @c:
 * what to do with it, the call to open written in it in place (only its
 * thread reads it: no copy). A nested call, a free, and a call that must
 * fail (a throwing entry point, whose frame an exception will then
 * unwind: counted as failed now) want no return.
 */
static __always_inline enum entry_do alloc_call(struct pt_regs *ctx, __u64 cookie,
						const struct mw_place *pl, __u64 sp,
						struct mw_call *c)
{
	__u32 op = MW_ALLOC_OP(cookie);
	__u32 slot = MW_COOKIE_SLOT(cookie);
	struct mw_thread *t = NULL;
	bool declined_here = false;

	if (c->sp) {
		if (c->op == MW_OP_DECLINED)
			/* a tail jump from it has the same stack pointer */
			declined_here = c->sp == sp;
		else if (nested_in(c, sp))
			return ENTRY_KEEP;	/* nested inside an outer call */
		else
			call_lost(c);
	}
	if (have_structs && (t = thread(false)) && t->nscopes)
		prune_scopes(t, sp, slot);

	/* the new call over the old record: what read_args and the rest do
	 * not always write */
	c->bad_size = 0;
	c->has_stash = 0;
	c->charge = 0;
	c->stack = 0;	/* (site: set at the return, with sites) */
	c->op = op;
	c->slot = slot;
	c->gen = generation(slot);
	/* a case per op, so that each reads its arguments at constant
	 * offsets of the registers (the verifier refuses ctx at a variable
	 * one); which they are is mw_op_args's to say */
	switch (op) {
	case MW_OP_MALLOC:		read_args(ctx, pl, MW_OP_MALLOC, c); break;
	case MW_OP_CALLOC:		read_args(ctx, pl, MW_OP_CALLOC, c); break;
	case MW_OP_REALLOC:		read_args(ctx, pl, MW_OP_REALLOC, c); break;
	case MW_OP_REALLOCARRAY:	read_args(ctx, pl, MW_OP_REALLOCARRAY, c); break;
	case MW_OP_MEMALIGN:		read_args(ctx, pl, MW_OP_MEMALIGN, c); break;
	case MW_OP_POSIX_MEMALIGN:	read_args(ctx, pl, MW_OP_POSIX_MEMALIGN, c); break;
	case MW_OP_FREE:		read_args(ctx, pl, MW_OP_FREE, c); break;
	case MW_OP_XALLOCX:		read_args(ctx, pl, MW_OP_XALLOCX, c); break;
	case MW_OP_EXPAND:		read_args(ctx, pl, MW_OP_EXPAND, c); break;
	default:
		return ENTRY_NONE;
	}
	if (op == MW_OP_FREE) {
		/* a sized or aligned free, operator delete: what it calls
		 * (free) is nested in the call it opens */
		block_free(slot, c->old, sp);
		c->old = 0;
	}
	if ((cookie & MW_ALLOC_THROWS) &&
	    (c->bad_size || c->size >= (cookie & MW_ALLOC_NORESERVE ?
					never_fits[slot & (MW_MAX_TARGETS - 1)].any :
					never_fits[slot & (MW_MAX_TARGETS - 1)].reserved))) {
		/* one failed call, even if it tail-jumps to another entry
		 * point (jemalloc's operator new[] to operator new) */
		if (!declined_here)
			count(slot, MW_C_FAILED_CALLS, 1);
		c->op = MW_OP_DECLINED;
		c->sp = sp;
		c->start = bpf_jiffies64();
		return ENTRY_DECLINE;
	}

	/*
	 * realloc frees the old block before it returns, and another thread
	 * may be handed the same address at once: take it out of the table
	 * now and put it back only if the call fails.
	 */
	if ((op == MW_OP_REALLOC || op == MW_OP_REALLOCARRAY) && c->old &&
	    !c->bad_size)
		c->has_stash = block_take(c->slot, c->old, &c->stash);

	if (t && t->nscopes)
		c->charge = innermost_insert(t);
	if (want_stacks && want_unwind) {
		c->stack = unwind_stack(ctx, slot);
	} else if (want_stacks) {
		long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

		if (id >= 0)
			c->stack = (__u64)id + 1;
		else
			count(slot, MW_C_LOST_STACKS, 1);
	}
	c->sp = sp;
	c->start = bpf_jiffies64();
	return ENTRY_OPEN;
}

/* free with no return probe (not paired): its block gone, at its entry,
 * with no call record; the thread's scopes that ended are closed first */
static __always_inline void plain_free(__u32 slot, __u64 addr, __u64 sp)
{
	struct mw_thread *t;

	if (have_structs && (t = thread(false)) && t->nscopes)
		prune_scopes(t, sp, slot);
	block_free(slot, addr, sp);
}

/*
 * An allocator entry point's entry: opens the thread's call, to be closed
 * by its return; MW_NO_RETURN when the return does not matter. free
 * itself (no return probe) does its work here and looks at no thread.
 */
static __always_inline int alloc_entry_at(struct pt_regs *ctx, __u64 cookie,
					  const struct mw_place *pl)
{
	__u32 slot = MW_COOKIE_SLOT(cookie);
	__u64 sp = entry_sp(ctx, pl), id;
	struct call_at at;
	bool was_open;

	if (MW_ALLOC_OP(cookie) == MW_OP_FREE && !(cookie & MW_ALLOC_PAIRED)) {
		plain_free(slot, entry_arg(ctx, pl, mw_op_args[MW_OP_FREE].old), sp);
		return MW_NO_RETURN;
	}
	id = bpf_get_current_pid_tgid();
	if (!call_hold(id, &at)) {
		if (solo)	/* no note an older call left is this one's */
			ret_noted(sp, id, NULL);
		count(slot, MW_C_LOST_UNPAIRED, 1);
		return 0;
	}
	if (solo)
		ret_noted(sp, id, &at);
	was_open = at.c->sp;
	switch (alloc_call(ctx, cookie, pl, sp, at.c)) {
	case ENTRY_KEEP:
		return MW_NO_RETURN;
	case ENTRY_OPEN:
		call_opened(&at, was_open);
		return 0;
	case ENTRY_DECLINE:
		call_opened(&at, was_open);
		return MW_NO_RETURN;
	default:
		call_close(&at);
		return MW_NO_RETURN;
	}
}

/* The same at a probe whose entry state its cookie says (places). */
static __always_inline int alloc_entry(struct pt_regs *ctx, __u64 cookie)
{
	return alloc_entry_at(ctx, cookie, place_of(cookie));
}

/* An entry point with no return probe (a free; attach.c sends every
 * other one to a session). */
SEC("uprobe")
int alloc_enter(struct pt_regs *ctx)
{
	__u64 cookie;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	count_hit(MW_COOKIE_SLOT(cookie), entry_hit(cookie));
	alloc_entry(ctx, cookie);
	return 0;
}

/*
 * free at an instruction whose state is the entry's, emulated, with no
 * return probe, in a session of one process (solo: slot 0): what
 * alloc_enter does for it, without reading the probe's cookie (a helper
 * call a free less). attach.c sends only such probes here.
 */
SEC("uprobe")
int free_enter(struct pt_regs *ctx)
{
	count(0, MW_C_HITS + MW_HIT_EMULATED, 1);
	plain_free(0, PT_REGS_PARM1(ctx), PT_REGS_SP(ctx));
	return 0;
}

static __always_inline void realloc_return(struct mw_call *c, __u64 ret)
{
	__u64 key = MW_BLOCK_KEY(c->slot, c->old);
	__u32 charge = c->charge;

	if (c->bad_size || (!ret && (c->size || !c->old))) {
		/* failed: the old block is still live, unchanged */
		if (c->has_stash && !block_put_back(key, &c->stash))
			count(c->slot, MW_C_LOST_TABLE_FULL, 1);
		count(c->slot, MW_C_FAILED_CALLS, 1);
		return;
	}
	if (c->old) {
		if (c->has_stash) {
			block_gone(c->slot, &c->stash);
			if (c->stash.struct_id)
				charge = c->stash.struct_id;
		} else {
			count(c->slot, MW_C_UNTRACKED_FREES, 1);
		}
	}
	if (ret)	/* realloc(p, 0) returned NULL: p was freed, nothing new */
		block_live(c->slot, ret, c->size, charge, c->site, c->stack);
}

/* Call @c (its thread's open record, read in place) returned @ret. */
static __always_inline void call_returned(struct pt_regs *ctx, struct mw_call *c, __u64 ret)
{
	/* the kernel has put the address the call returns to back in ip
	 * (no stack read, where the entry's read of it was a helper call) */
	if (want_sites)
		c->site = PT_REGS_IP(ctx);

	switch (c->op) {
	case MW_OP_FREE:
		return;		/* done at entry */
	case MW_OP_REALLOC:
	case MW_OP_REALLOCARRAY:
		realloc_return(c, ret);
		return;
	case MW_OP_XALLOCX:
		/* usable size >= size: resized; it may give up to size + extra */
		if (ret < c->size) {
			count(c->slot, MW_C_FAILED_CALLS, 1);
			return;
		}
		block_resize(c->slot, c->old,
			     ret < c->size + c->extra ? ret : c->size + c->extra);
		return;
	case MW_OP_EXPAND:
		if (ret != c->old || !ret) {
			count(c->slot, MW_C_FAILED_CALLS, 1);
			return;
		}
		block_resize(c->slot, c->old, c->size);
		return;
	case MW_OP_POSIX_MEMALIGN:
		if ((int)ret != 0 ||
		    bpf_probe_read_user(&ret, sizeof(ret), (void *)c->old))
			ret = 0;
		break;
	default:
		if (c->bad_size)
			ret = 0;
		break;
	}
	if (!ret) {
		count(c->slot, MW_C_FAILED_CALLS, 1);
		return;
	}
	block_live(c->slot, ret, c->size, c->charge, c->site, c->stack);
}

/* An allocator entry point's return: closes the thread's call, once
 * done with it (the thread holds it until then). */
static __always_inline int alloc_exit(struct pt_regs *ctx)
{
	__u64 sp = PT_REGS_SP(ctx) - 8;	/* the entry's */
	struct call_at at;

	if (!(solo && call_noted(sp, &at)) && !call_find(bpf_get_current_pid_tgid(), &at))
		return 0;
	if (at.c->op == MW_OP_DECLINED || at.c->sp != sp)
		return 0;	/* not the outermost call's return */
	/* a call opened before the slot's figures were reset is not this
	 * attach's */
	if (at.c->gen == generation(at.c->slot))
		call_returned(ctx, at.c, PT_REGS_RC(ctx));
	call_close(&at);
	return 0;
}

/*
 * Every entry point with a return probe is a uprobe session: one program
 * for entry and return, one consumer of the kernel's uprobe where an
 * entry and a return probe are two (releasing a probe scans every
 * consumer of every process's: exit with 256 processes took 4.1 s so,
 * 1.5 s thus). The entry declines the return of a call whose return does
 * not matter (a nested call, a free) and of one that must fail (a
 * throwing entry point, C++ operator new: the frame its exception
 * unwinds must not have the kernel's trampoline for a return address).
 * The return's hit is counted at the entry, with the entry's in one
 * lookup, when it is not declined: the return reads no cookie.
 */
static __always_inline int session_entry(struct pt_regs *ctx, __u64 cookie,
					 const struct mw_place *pl, __u32 hit)
{
	int r = alloc_entry_at(ctx, cookie, pl);

	count2(MW_COOKIE_SLOT(cookie), MW_C_HITS + hit, 1, MW_C_HITS + MW_HIT_RETURN, r == 0);
	return r;
}

SEC("uprobe")
int alloc_session(struct pt_regs *ctx)
{
	__u64 cookie;

	if (bpf_session_is_return())
		return alloc_exit(ctx);
	if (!probe_cookie(ctx, &cookie))
		return 0;
	return session_entry(ctx, cookie, place_of(cookie), entry_hit(cookie));
}

/*
 * malloc at an instruction whose state is the entry's, emulated, in a
 * session of one process: alloc_session with the cookie that every such
 * probe has (slot 0, no flags), a constant here, so that it reads none
 * (a helper call a malloc less). attach.c sends only such probes here.
 */
SEC("uprobe")
int malloc_session(struct pt_regs *ctx)
{
	if (bpf_session_is_return())
		return alloc_exit(ctx);
	return session_entry(ctx, MW_ALLOC_COOKIE(MW_OP_MALLOC), NULL, MW_HIT_EMULATED);
}

/* The entry state of a malloc whose size is in rsi where its probe sits,
 * the rest as at the entry: mimalloc's, moved past its first two
 * instructions (a rip-relative load, then mov %rdi,%rsi), single-stepped
 * both. A constant here: its loads fold away. */
static const struct mw_place size_in_si = { .arg = { MW_REG_SI } };

/* malloc_session for such a probe (attach.c sends only those here). */
SEC("uprobe")
int malloc_si_session(struct pt_regs *ctx)
{
	if (bpf_session_is_return())
		return alloc_exit(ctx);
	return session_entry(ctx, MW_ALLOC_COOKIE(MW_OP_MALLOC), &size_in_si, MW_HIT_EMULATED);
}

/*
 * The same on a kernel without uprobe sessions (before Linux 6.12,
 * kernel.c): an entry program and a return probe, attached side by side.
 * The return's hit is counted at the entry, as a session's is, but
 * always: the return probe runs whether the call matters or not, and a
 * declined call's return finds its record declined (alloc_exit).
 */
static __always_inline int open_entry(struct pt_regs *ctx, __u64 cookie,
				      const struct mw_place *pl, __u32 hit)
{
	count2(MW_COOKIE_SLOT(cookie), MW_C_HITS + hit, 1, MW_C_HITS + MW_HIT_RETURN, 1);
	alloc_entry_at(ctx, cookie, pl);
	return 0;
}

SEC("uprobe")
int alloc_open(struct pt_regs *ctx)
{
	__u64 cookie;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	return open_entry(ctx, cookie, place_of(cookie), entry_hit(cookie));
}

/* malloc_session's and malloc_si_session's entries */
SEC("uprobe")
int malloc_open(struct pt_regs *ctx)
{
	return open_entry(ctx, MW_ALLOC_COOKIE(MW_OP_MALLOC), NULL, MW_HIT_EMULATED);
}

SEC("uprobe")
int malloc_si_open(struct pt_regs *ctx)
{
	return open_entry(ctx, MW_ALLOC_COOKIE(MW_OP_MALLOC), &size_in_si, MW_HIT_EMULATED);
}

SEC("uretprobe")
int alloc_return(struct pt_regs *ctx)
{
	return alloc_exit(ctx);
}

/* ------------------------------------------------------ structure probes */

static __always_inline __s64 arg_delta(struct pt_regs *ctx, const struct mw_place *pl,
					__u32 rule)
{
	switch (rule) {
	case MW_DELTA_ONE:		return 1;
	case MW_DELTA_ARG1:		return as_count(entry_arg(ctx, pl, 1));
	case MW_DELTA_ARG1 + 1:		return as_count(entry_arg(ctx, pl, 2));
	case MW_DELTA_ARG1 + 2:		return as_count(entry_arg(ctx, pl, 3));
	case MW_DELTA_ARG1 + 3:		return as_count(entry_arg(ctx, pl, 4));
	case MW_DELTA_ARG1 + 4:		return as_count(entry_arg(ctx, pl, 5));
	case MW_DELTA_ARG1 + 5:		return as_count(entry_arg(ctx, pl, 6));
	}
	return 0;
}

/* A call of a structure function is made: one more call, and with
 * @apply its delta @d (one and argN count at entry). */
static __always_inline void struct_call(struct mw_struct_stats *ss, __u64 cookie, bool apply,
					__s64 d)
{
	if (!ss)
		return;
	if (cookie & MW_SF_REMOVE) {
		ss->remove_calls++;
		if (apply)
			ss->elements -= d;
	} else {
		ss->insert_calls++;
		if (apply)
			ss->elements += d;
	}
}

/* A call returned @d elements (--delta ret). */
static __always_inline void struct_apply(__u32 slot, __u64 cookie, __s64 d)
{
	struct mw_struct_stats *ss = sstats(slot, MW_SF_ID(cookie));

	if (ss)
		ss->elements += cookie & MW_SF_REMOVE ? -d : d;
}

/* One hit of a probe of the structure in @cookie: its statistics, for
 * the calls it counts next; NULL if the slot is out of range. */
static __always_inline struct mw_struct_stats *struct_hit(__u64 cookie, __u32 hit)
{
	struct mw_struct_stats *ss = sstats(MW_COOKIE_SLOT(cookie), MW_SF_ID(cookie));

	if (ss && hit < MW_HIT__COUNT)
		ss->hits[hit]++;
	return ss;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MW_MAX_SITES);
	__type(key, struct mw_insert_site_key);
	__type(value, __u64);		/* calls */
} insert_sites SEC(".maps");

/* One more call of structure @id's insert from the site it returns to. */
static __always_inline void count_insert_site(__u32 slot, __u32 id, __u64 sp)
{
	struct mw_insert_site_key key = { .struct_id = id };
	__u64 one = 1, ra = 0, *calls;

	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)sp) || !ra)
		return;
	key.site = MW_BLOCK_KEY(slot, ra);
	calls = bpf_map_lookup_elem(&insert_sites, &key);
	if (!calls) {
		if (!bpf_map_update_elem(&insert_sites, &key, &one, BPF_NOEXIST))
			return;		/* created with this call counted */
		calls = bpf_map_lookup_elem(&insert_sites, &key);
		if (!calls) {		/* the table is full */
			count(slot, MW_C_LOST_SITES, 1);
			return;
		}			/* else another CPU created it first */
	}
	__sync_fetch_and_add(calls, 1);
}

/*
 * The same function entered again at the slot of one of its open scopes,
 * with the same return address there: called again from the same place
 * (a loop), so that call has returned; it ends, with any after it. (A
 * tail call from another function at that slot keeps its scope.)
 */
static __always_inline void drop_reentered(struct mw_thread *t, __u64 sp,
					   __u64 cookie, __u32 slot)
{
	for (int i = MW_MAX_SCOPES - 1; i >= 0; i--) {
		if ((__u32)i >= t->nscopes)
			continue;
		if (t->scopes[i].sp != sp)
			break;
		if (t->scopes[i].cookie != cookie)
			continue;
		for (int k = MW_MAX_SCOPES - 1; k >= 0; k--)
			if ((__u32)k >= (__u32)i && (__u32)k < t->nscopes)
				scope_gone(&t->scopes[k], slot);
		t->nscopes = (__u32)i;
		break;
	}
}

/*
 * A split function: the header's entry records its call; the outlined
 * part's entry is the same call (true: not counted again) when it returns
 * into the header's code, or when the header jumped to it (same slot,
 * same return address there).
 */
static __always_inline bool split_call(struct pt_regs *ctx, const struct mw_place *pl,
				       __u64 cookie, __u64 sp)
{
	struct mw_thread *t;
	__u64 ra = 0;

	if (!(cookie & (MW_SF_HEAD | MW_SF_PART)))
		return false;
	t = thread(cookie & MW_SF_HEAD);
	if (!t || bpf_probe_read_user(&ra, sizeof(ra), (void *)sp))
		return false;
	if (cookie & MW_SF_HEAD) {
		t->head.sp = sp;
		t->head.ra = ra;
		t->head.lo = pl ? PT_REGS_IP(ctx) - pl->fn_back : 0;
		t->head.hi = pl ? t->head.lo + pl->fn_len : 0;
		return false;
	}
	return (ra >= t->head.lo && ra < t->head.hi) ||
	       (sp == t->head.sp && ra == t->head.ra);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MW_MAX_ROOTS);
	__type(key, struct mw_root_key);
	__type(value, __u64);		/* user space's: failed reads in a row */
} roots SEC(".maps");

/* A call shows an instance of a structure read through this parameter
 * (--read 'self.dag'): noted in the roots table, once; counted when the
 * table has no room for it (the structure's figures are then short). */
static __always_inline void note_root(struct pt_regs *ctx, const struct mw_place *pl,
				      __u64 cookie, struct mw_struct_stats *ss)
{
	struct mw_root_key key = {
		.slot = MW_COOKIE_SLOT(cookie),
		.struct_id = MW_SF_ID(cookie),
		.addr = entry_arg(ctx, pl, MW_SF_ROOT(cookie)),
	};
	__u64 zero = 0;
	long err;

	if (!key.addr || bpf_map_lookup_elem(&roots, &key))
		return;
	err = bpf_map_update_elem(&roots, &key, &zero, BPF_NOEXIST);
	if (err && err != -MW_EEXIST /* another thread noted it */ && ss)
		ss->roots_lost++;
}

SEC("uprobe")
int struct_enter(struct pt_regs *ctx)
{
	const struct mw_place *pl;
	struct mw_struct_stats *ss;
	__u64 cookie, sp, ra = 0;
	struct mw_thread *t;
	__u32 slot, n;
	__s64 delta;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	pl = place_of(cookie);
	sp = entry_sp(ctx, pl);
	slot = MW_COOKIE_SLOT(cookie);
	ss = struct_hit(cookie, entry_hit(cookie));
	if (restarting(ctx, pl) || split_call(ctx, pl, cookie, sp))
		return 0;
	if (MW_SF_ROOT(cookie))
		note_root(ctx, pl, cookie, ss);
	if (want_sites && !(cookie & (MW_SF_REMOVE | MW_SF_COPY)))
		count_insert_site(slot, MW_SF_ID(cookie), sp);
	/* one and argN count when the call is made (and are taken back if
	 * an exception unwinds it: its scope remembers them); ret counts
	 * when it returns */
	delta = MW_SF_DELTA(cookie) != MW_DELTA_RET ? arg_delta(ctx, pl, MW_SF_DELTA(cookie)) : 0;
	struct_call(ss, cookie, MW_SF_DELTA(cookie) != MW_DELTA_RET, delta);
	if (!(cookie & (MW_SF_SCOPE | MW_SF_UNWIND)))
		return 0;
	t = thread(true);
	if (!t || bpf_probe_read_user(&ra, sizeof(ra), (void *)sp)) {
		if (cookie & MW_SF_SCOPE)
			count(slot, MW_C_LOST_SCOPES, 1);
		return 0;
	}
	prune_scopes(t, sp, slot);	/* a caller at this slot tail-called us */
	drop_reentered(t, sp, cookie, slot);
	n = t->nscopes;
	if (n >= MW_MAX_SCOPES) {
		/* a scope kept for unwinding only loses nothing until an
		 * exception crosses it */
		if (cookie & MW_SF_SCOPE)
			count(slot, MW_C_LOST_SCOPES, 1);
		return 0;
	}
	t->scopes[n].sp = sp;
	t->scopes[n].cookie = cookie;
	t->scopes[n].ra = ra;
	t->scopes[n].delta = delta;
	t->scopes[n].unwinding = 0;
	t->nscopes = n + 1;
	return 0;
}

/* The root type's drop (Rust's drop_in_place::<T>, a C++ destructor) on
 * the instance in arg1: no longer a root of the structure in @cookie. */
SEC("uprobe")
int root_drop(struct pt_regs *ctx)
{
	struct mw_root_key key = { 0 };
	__u64 cookie;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	key.slot = MW_COOKIE_SLOT(cookie);
	key.struct_id = MW_SF_ID(cookie);
	key.addr = entry_arg(ctx, place_of(cookie), 1);
	struct_hit(cookie, entry_hit(cookie));
	bpf_map_delete_elem(&roots, &key);
	return 0;
}

/*
 * glibc's __libc_thread_freeres, as a thread ends (libc's debug symbols
 * give its address; it is not exported). tcache_thread_shutdown then
 * calls free on every chunk the thread's cache holds, which the program
 * freed already (memwatch counted those frees), and on the cache itself,
 * which glibc allocated inside malloc without a call of its own: none
 * is a block of the program's, so none is an untracked free. A block the
 * program still had live and that is freed now counts as ever.
 */
SEC("uprobe")
int thread_exit(struct pt_regs *ctx)
{
	struct mw_thread *t;
	__u64 cookie;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	count_hit(MW_COOKIE_SLOT(cookie), entry_hit(cookie));
	t = thread(true);
	if (t)
		t->exiting = 1;
	return 0;
}

/* The call whose scope @s is returns @rc: its scope ends. */
static __always_inline void scope_return(struct mw_thread *t, struct mw_scope *s,
					 __u64 rc, __u32 slot)
{
	if (MW_SF_DELTA(s->cookie) == MW_DELTA_RET)
		struct_apply(slot, s->cookie, as_count(rc));
	t->nscopes--;
}

/*
 * A return instruction of a structure function (structs.c probes every
 * one): the stack pointer is at the return address. Every scope at this
 * slot returns now with this value: the function's own, and those of
 * callers that tail-called it.
 */
SEC("uprobe")
int struct_exit(struct pt_regs *ctx)
{
	__u64 sp = PT_REGS_SP(ctx), cookie;
	struct mw_thread *t;
	__u32 slot;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	slot = MW_COOKIE_SLOT(cookie);
	struct_hit(cookie, entry_hit(cookie));
	if (cookie & MW_SF_DIRECT) {	/* Go: no scope to pair with */
		struct_apply(slot, cookie, as_count(PT_REGS_RC(ctx)));
		return 0;
	}
	t = thread(false);
	if (!t || !t->nscopes)
		return 0;
	prune_scopes(t, sp, slot);	/* calls below this frame are over */
	for (int i = 0; i < MW_MAX_SCOPES; i++) {
		__u32 n = t->nscopes;
		struct mw_scope *s;

		if (n == 0 || n > MW_MAX_SCOPES)
			break;
		s = &t->scopes[(n - 1) & (MW_MAX_SCOPES - 1)];
		if (s->sp != sp)
			break;
		scope_return(t, s, PT_REGS_RC(ctx), slot);
	}
	return 0;
}

/* A return probe, for a function whose returns structs.c could not find
 * (it leaves by a jump): the stack pointer is past the return address. */
SEC("uretprobe")
int struct_return(struct pt_regs *ctx)
{
	__u64 sp = PT_REGS_SP(ctx), cookie;
	struct mw_scope *s;
	struct mw_thread *t;
	__u32 slot, n;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	slot = MW_COOKIE_SLOT(cookie);
	struct_hit(cookie, MW_HIT_RETURN);
	t = thread(false);
	if (!t)
		return 0;
	/* scopes below this frame whose returns were missed */
	prune_scopes(t, sp - 9, slot);
	n = t->nscopes;
	if (n == 0 || n > MW_MAX_SCOPES)
		return 0;
	s = &t->scopes[(n - 1) & (MW_MAX_SCOPES - 1)];
	if (s->sp + 8 == sp)
		scope_return(t, s, PT_REGS_RC(ctx), slot);
	return 0;
}

/*
 * An exception's personality routine (unwind.c probes those of C++, Rust
 * and C). In the unwind's first phase (arg2 has _UA_SEARCH_PHASE) the
 * stack is whole: every scope still open then is a call the exception
 * may unwind, and is marked. In the second phase, the cleanup code of
 * the frames above such a call runs first (its drops, a free, the call
 * to _Unwind_Resume): they overwrite the call's return slot, so a marked
 * scope that then looks over has been unwound (scope_gone). Called for
 * the frame that handles the exception (_UA_CLEANUP_PHASE |
 * _UA_HANDLER_FRAME), arg4 is the _Unwind_Exception, whose private_2
 * (offset 24) the unwinder set to that frame's stack pointer at its call
 * (libgcc: its callee's CFA; LLVM's libunwind: its SP). Every scope whose
 * return slot is below it, and that was marked or is still open, is
 * unwound: it ends, counted as unwound; a ret delta is not counted (no
 * value returned), and one or argN, counted at the entry, is taken back:
 * an insert an exception or panic unwinds added nothing, as C++'s strong
 * guarantee and a Rust panic before the mutation have it. The scopes
 * that remain (the handler's and its callers') lose their mark. A scope
 * whose call had already returned just ends.
 */
#define MW_UA_SEARCH	1
#define MW_UA_HANDLER	(2 | 4)

/* Phase one: marks the scopes open at stack pointer @sp. */
static __always_inline void mark_unwinding(struct mw_thread *t, __u64 sp)
{
	/* ended by a break: Linux 6.1's verifier takes a loop that skips
	 * past nscopes to its fixed end for one with a back-edge */
	for (__u32 i = 0; i < MW_MAX_SCOPES; i++) {
		if (i >= t->nscopes)
			break;
		if (scope_open(&t->scopes[i], sp))
			t->scopes[i].unwinding = 1;
	}
}

SEC("uprobe")
int unwind_handler(struct pt_regs *ctx)
{
	const struct mw_place *pl;
	__u64 cookie, exc, keep = 0;
	struct mw_thread *t;
	__u32 actions;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	pl = place_of(cookie);
	exc = entry_arg(ctx, pl, MW_PERSONALITY_EXCEPTION);
	actions = (__u32)entry_arg(ctx, pl, MW_PERSONALITY_ACTIONS);
	count_hit(MW_COOKIE_SLOT(cookie), entry_hit(cookie));
	t = thread(false);
	if (!t || !t->nscopes)
		return 0;
	if (actions & MW_UA_SEARCH) {
		mark_unwinding(t, PT_REGS_SP(ctx));
		return 0;
	}
	if ((actions & MW_UA_HANDLER) != MW_UA_HANDLER ||
	    bpf_probe_read_user(&keep, sizeof(keep), (void *)(exc + 24)))
		return 0;
	for (int i = 0; i < MW_MAX_SCOPES; i++) {
		__u32 n = t->nscopes;
		struct mw_scope *s;

		if (n == 0 || n > MW_MAX_SCOPES)
			break;
		s = &t->scopes[(n - 1) & (MW_MAX_SCOPES - 1)];
		if (s->sp >= keep)
			break;
		if (s->unwinding || scope_open(s, PT_REGS_SP(ctx)))
			scope_unwound(s);
		t->nscopes = n - 1;
	}
	for (__u32 i = 0; i < MW_MAX_SCOPES; i++) {
		if (i >= t->nscopes)
			break;
		t->scopes[i].unwinding = 0;
	}
	return 0;
}

/* ----------------------------------------------------------- lifecycle */

/* Tells the loader; an event that finds the ring buffer full is lost,
 * and the loader finds out at its next interval (execs are counted). */
/* Events of processes not watched (follow mode's execs and moves) that
 * found the ring buffer full: memwatch says so on stderr. */
__u64 lost_unwatched_events = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MW_EVENTS_BYTES);
} events SEC(".maps");

static __always_inline void report(__u32 kind, __u32 pid, __u32 ppid, __u32 slot)
{
	struct mw_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		if (slot != MW_NO_SLOT)
			count(slot, MW_C_LOST_EVENTS, 1);
		else
			__sync_fetch_and_add(&lost_unwatched_events, 1);
		return;
	}
	e->kind = kind;
	e->pid = pid;
	e->ppid = ppid;
	e->slot = slot;
	bpf_ringbuf_submit(e, 0);
}

/* Whether the process in @slot is held at the loader's events. */
static __always_inline bool held(__u32 slot)
{
	struct mw_loader *l = bpf_map_lookup_elem(&loaders, &slot);

	return l && l->hold;
}

/* execve replaces the program image: the probes and the live blocks
 * belong to the old one. Counted and reported here, acted on by the
 * loader; a held process stops before its first instruction. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(target_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	__u32 *slot = bpf_map_lookup_elem(&slots, &tgid);

	/* the thread's calls and scopes were the old image's */
	bpf_task_storage_delete(&threads, bpf_get_current_task_btf());
	if (slot) {
		count(*slot, MW_C_EXECS, 1);
		report(MW_EV_EXEC, tgid, 0, *slot);
		if (held(*slot))
			bpf_send_signal_thread(MW_SIGSTOP);
	} else if (report_execs) {
		report(MW_EV_EXEC, tgid, 0, MW_NO_SLOT);
	}
	return 0;
}

/* A watched process forked a new process (not a thread): in follow mode
 * the child is watched too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(target_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid;
	__u32 *slot;

	if (!report_forks || child->pid != child->tgid)
		return 0;
	slot = bpf_map_lookup_elem(&slots, &ptgid);
	if (slot)
		report(MW_EV_FORK, child->tgid, ptgid, *slot);
	return 0;
}

/* A process moved to another cgroup (echo PID > cgroup.procs): with
 * --cgroup it may now match, or a followed one no longer. Once a thread
 * moved; memwatch reads where the process is now. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(target_moved, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	__u32 tgid = task->tgid;
	__u32 *slot;

	if (!report_moves)
		return 0;
	slot = bpf_map_lookup_elem(&slots, &tgid);
	report(MW_EV_MOVED, tgid, 0, slot ? *slot : MW_NO_SLOT);
	return 0;
}

/* The dynamic loader's hook: at RT_CONSISTENT the objects it just mapped
 * are ready and none of their code has run. A held process stops here
 * until memwatch has probed them. */
SEC("uprobe")
int loader_hook(struct pt_regs *ctx)
{
	int state = MW_RT_CONSISTENT;
	struct mw_loader *l;
	__u64 cookie;
	__u32 slot;

	if (!probe_cookie(ctx, &cookie))
		return 0;
	slot = MW_COOKIE_SLOT(cookie);
	l = bpf_map_lookup_elem(&loaders, &slot);
	count_hit(slot, entry_hit(cookie));
	if (!l)
		return 0;
	if (l->r_debug &&
	    bpf_probe_read_user(&state, sizeof(state), (void *)(l->r_debug + MW_R_STATE_OFFSET)))
		state = MW_RT_CONSISTENT;
	if (state != MW_RT_CONSISTENT)
		return 0;
	report(MW_EV_LOADED, bpf_get_current_pid_tgid() >> 32, 0, slot);
	if (l->hold)
		bpf_send_signal_thread(MW_SIGSTOP);
	return 0;
}

/* ------------------------------------------------------------- floor */

/* Empty programs at the same probe points (--floor): what the probes cost
 * with no work at all, the floor the benchmark compares memwatch with. */
SEC("uprobe")
int floor_enter(struct pt_regs *ctx)
{
	return 0;
}

SEC("uretprobe")
int floor_return(struct pt_regs *ctx)
{
	return 0;
}

/* where memwatch makes a session: its return always runs */
SEC("uprobe")
int floor_session(struct pt_regs *ctx)
{
	return 0;
}
