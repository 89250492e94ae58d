/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwatch.h - the one header shared by the BPF programs (bpf/) and the
 * loader (user/): limits, probe cookies, and the layouts of every map key
 * and value. Only fixed-width types, so both compilers agree on the layout.
 */
#ifndef MEMWATCH_H
#define MEMWATCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>	/* the BPF side has these from vmlinux.h */
#endif

#define MW_MAX_TARGETS		1024	/* processes observed at once, at most
					 * (--max-targets sizes the maps) */
#define MW_DEFAULT_TARGETS	256
#define MW_MAX_STRUCTS		64	/* user-named structures */
#define MW_MAX_SCOPES		8	/* nested insert calls tracked per thread */
#define MW_DEFAULT_LIVE_BLOCKS	(1u << 20)

/*
 * Allocator entry points. Each probe carries its operation in the BPF
 * cookie, so one program serves every function of an allocator family.
 */
enum mw_op {
	MW_OP_NONE = 0,
	MW_OP_MALLOC,
	MW_OP_CALLOC,
	MW_OP_REALLOC,
	MW_OP_REALLOCARRAY,
	MW_OP_MEMALIGN,		/* aligned_alloc, memalign */
	MW_OP_POSIX_MEMALIGN,	/* the result in *out */
	MW_OP_FREE,		/* entry probe only */
	MW_OP_XALLOCX,		/* jemalloc: returns the usable size, in place */
	MW_OP_EXPAND,		/* mimalloc mi_expand: returns old if resized in
				 * place, else NULL */
	MW_OP__COUNT,
};

/*
 * Which argument (1-6; 0: none) holds each value an op reads: the block
 * it frees or resizes (posix_memalign: its out pointer), the size, what
 * the size is multiplied by (calloc, reallocarray), xallocx's extra. The
 * BPF program reads exactly these (alloc_entry), and placement keeps
 * exactly these recoverable (mw_op_reads): this table is the one place
 * that says it.
 */
struct mw_op_args {
	__u8 old, size, count, extra;
};

static const struct mw_op_args mw_op_args[MW_OP__COUNT] __attribute__((unused)) = {
	[MW_OP_MALLOC]		= { .size = 1 },
	[MW_OP_CALLOC]		= { .size = 1, .count = 2 },
	[MW_OP_REALLOC]		= { .old = 1, .size = 2 },
	[MW_OP_REALLOCARRAY]	= { .old = 1, .size = 2, .count = 3 },
	[MW_OP_MEMALIGN]	= { .size = 2 },
	[MW_OP_POSIX_MEMALIGN]	= { .old = 1, .size = 3 },
	[MW_OP_FREE]		= { .old = 1 },
	[MW_OP_XALLOCX]		= { .old = 1, .size = 2, .extra = 3 },
	[MW_OP_EXPAND]		= { .old = 1, .size = 2 },
};

/* Bit n - 1 for argument n (1-6), none for 0. */
#define MW_ARG_BIT(n)		((n) ? 1u << ((n) - 1) : 0u)

/* The arguments @op reads, a bit each (bit n: argument n + 1). */
static inline __u8 mw_op_reads(__u32 op)
{
	const struct mw_op_args *a;

	if (op >= MW_OP__COUNT)
		return 0;
	a = &mw_op_args[op];
	return (__u8)(MW_ARG_BIT(a->old) | MW_ARG_BIT(a->size) | MW_ARG_BIT(a->count) |
		      MW_ARG_BIT(a->extra));
}

/*
 * An exception's personality routine, as the unwinder calls it:
 * (version, actions, exception class, exception, context). The handler
 * probe reads these two.
 */
#define MW_PERSONALITY_ACTIONS		2
#define MW_PERSONALITY_EXCEPTION	4

/* Cookie of an allocator probe: the op in the low byte, and this flag for a
 * free-type entry point that has a return probe too, because it may call
 * another entry point (mimalloc's mi_free_size tail-calls mi_free; C++
 * operator delete calls free): the inner call is then seen as nested. */
#define MW_ALLOC_COOKIE(op)	((__u64)(op))
#define MW_ALLOC_OP(c)		((__u32)((c) & 0xff))
#define MW_ALLOC_PAIRED		(1ull << 8)
/* An entry point that throws when it fails (C++ operator new, where the
 * allocator implements it): attached as a uprobe session, so that its
 * entry can decline the return probe for a call that must fail. */
#define MW_ALLOC_THROWS		(1ull << 9)
/* Its allocator maps with MAP_NORESERVE where the kernel overcommits
 * (jemalloc, mimalloc): RAM plus swap does not bound what it can get. */
#define MW_ALLOC_NORESERVE	(1ull << 10)

/* Request sizes from which no allocation can succeed in a target. */
struct mw_fits {
	__u64 any;		/* every allocator */
	__u64 reserved;		/* one whose mappings reserve memory */
};

/* A probe the kernel single-steps (placement.c could not move it to an
 * instruction the kernel emulates): its hits cost ~45x an emulated one,
 * and the overhead estimate counts them apart. Set at attach. */
#define MW_COOKIE_STEPPED	(1ull << 39)

/* A probe whose kernel event every process mapping its code shares
 * (tracefs uprobe events, on kernels without multi-uprobe links:
 * probes/tracefs.c): its cookie carries no slot, and the programs find
 * the process's in the slots map by its tgid. */
#define MW_COOKIE_SHARED	(1ull << 38)

/* Every probe's cookie also carries its target's slot, set at attach (the
 * links are per pid): the programs need no pid lookup. */
#define MW_COOKIE_SLOT_SHIFT	40
#define MW_COOKIE_WITH_SLOT(c, slot) ((__u64)(c) | ((__u64)(slot) << MW_COOKIE_SLOT_SHIFT))
#define MW_COOKIE_SLOT(c)	((__u32)(((c) >> MW_COOKIE_SLOT_SHIFT) & (MW_MAX_TARGETS - 1)))
#define MW_COOKIE_SLOT_MASK	((__u64)(MW_MAX_TARGETS - 1) << MW_COOKIE_SLOT_SHIFT)

/*
 * Where a probe sits. The kernel single-steps most instructions under a
 * uprobe (~45x dearer than the few it emulates), so placement.c moves a
 * probe past a function's leading instructions to an emulated one when
 * the entry's state can still be told: the stack pointer moved by a known
 * amount, and each argument the program reads in a known register. The
 * cookie's top bits index the places map; index 0 is the entry itself.
 */
enum mw_reg {
	MW_REG_DI, MW_REG_SI, MW_REG_DX, MW_REG_CX, MW_REG_R8, MW_REG_R9, /* arguments 1-6 */
	MW_REG_AX, MW_REG_BX, MW_REG_BP, MW_REG_R10, MW_REG_R11, MW_REG_R12,
	MW_REG_R13, MW_REG_R14, MW_REG_R15,
	MW_REG__COUNT,
};
#define MW_NARGS		6

struct mw_place {
	__s32 sp_off;		/* the entry's stack pointer = sp + sp_off */
	__u8 arg[MW_NARGS];	/* enum mw_reg holding argument n + 1 now */
	/* Go: the probe is on the jcc of the prologue's stack check, and
	 * this is 1 + its condition code (the low nibble of its opcode).
	 * When the jump is taken, runtime.morestack grows the stack and
	 * restarts the function: that hit is not a call. 0: no guard. */
	__u8 guard;
	__u8 pad;
	/* MW_SF_HEAD: the function's code is [ip - fn_back, + fn_len) */
	__u32 fn_back;
	__u32 fn_len;
};
#define MW_MAX_PLACES		4096
#define MW_COOKIE_PLACE_SHIFT	50
#define MW_COOKIE_WITH_PLACE(c, i) ((__u64)(c) | ((__u64)(i) << MW_COOKIE_PLACE_SHIFT))
#define MW_COOKIE_PLACE(c)	((__u32)((c) >> MW_COOKIE_PLACE_SHIFT))

/*
 * Structure function probes: cookie = struct id | kind | delta rule.
 * MW_SF_SCOPE: the entry opens a scope on the thread, to charge the
 * blocks allocated inside the call (heap mode, inserts) or to wait for
 * its return value (--delta ret). The return is seen by probes on the
 * function's return instructions, or, with MW_SF_RETPROBE, by a return
 * probe (only where those cannot be found: see structs.c).
 */
enum mw_delta {
	MW_DELTA_ONE = 0,
	MW_DELTA_RET = 1,
	MW_DELTA_ARG1 = 2,	/* MW_DELTA_ARG1 + n - 1 for argument n, 1..6 */
};
#define MW_SF_DELTA_SHIFT	16
#define MW_SF_COOKIE(id, delta)	((__u64)(id) | ((__u64)(delta) << MW_SF_DELTA_SHIFT))
#define MW_SF_ID(c)		((__u32)((c) & 0xffff))
#define MW_SF_DELTA(c)		((__u32)(((c) >> MW_SF_DELTA_SHIFT) & 0xff))
#define MW_SF_REMOVE		(1ull << 24)
#define MW_SF_RETPROBE		(1ull << 25)
#define MW_SF_SCOPE		(1ull << 26)
/*
 * A function GCC split (partial inlining): f, its header, reaches the
 * outlined rest f.part.N by a call or a tail jump, and callers that
 * inlined the header call f.part.N themselves. MW_SF_HEAD (f) records the
 * call on the thread; MW_SF_PART (f.part.N) is not counted again when
 * entered from f's code or by f's tail jump.
 */
#define MW_SF_HEAD		(1ull << 27)
#define MW_SF_PART		(1ull << 28)
/*
 * Go code: a goroutine moves between threads and its stack is copied when
 * it grows, so neither a thread's scope nor a stack slot pairs a call's
 * entry with its return. Go's functions open no scope: a --delta ret is
 * read by probes on the return instructions, which apply the value in
 * RAX (the first result, by Go's register ABI) at once.
 */
#define MW_SF_DIRECT		(1ull << 29)
/*
 * A structure read from memory whose root is a parameter of this function
 * (--read 'self.dag'): the entry notes the argument's value, N (1 to 6),
 * in the roots table. A probe on the root type's drop (Rust's
 * drop_in_place, a C++ destructor: root_drop) takes it out again.
 */
/*
 * MW_SF_UNWIND: a scope kept only so that a call an exception or panic
 * unwinds adds nothing (one, argN, in a process that can unwind): one
 * that does not fit is not a lost figure. MW_SF_COPY: an inlined copy,
 * with no call of its own: no return address to read, no insert site.
 */
#define MW_SF_UNWIND		(1ull << 33)
#define MW_SF_COPY		(1ull << 34)
#define MW_SF_ROOT_SHIFT	30
#define MW_SF_ROOT(c)		((__u32)(((c) >> MW_SF_ROOT_SHIFT) & 7))
#define MW_SF_WITH_ROOT(n)	((__u64)(n) << MW_SF_ROOT_SHIFT)

/* Per-target counters, one per-CPU array element per target slot. */
enum mw_counter {
	MW_C_ALLOC_CALLS,	/* blocks that became live */
	MW_C_ALLOC_BYTES,	/* their requested bytes */
	MW_C_FREE_CALLS,	/* live blocks that were freed */
	MW_C_FREE_BYTES,
	MW_C_UNTRACKED_FREES,	/* frees of blocks not in the live table */
	MW_C_FAILED_CALLS,	/* allocator calls that returned failure */
	MW_C_LOST_TABLE_FULL,	/* live blocks not recorded: table full */
	MW_C_LOST_UNPAIRED,	/* entries whose return was never seen */
	MW_C_LOST_SCOPES,	/* insert calls nested deeper than MW_MAX_SCOPES */
	MW_C_EXECS,		/* the target ran execve: new program image */
	MW_C_LOST_SITES,	/* allocations not attributed: site table full */
	MW_C_LOST_STACKS,	/* stacks not recorded: stack table full */
	MW_C_LOST_EVENTS,	/* its exec, fork or loader events: ring buffer full */
	/* probe hits of the allocator, loader and unwinder programs, by what
	 * the kernel does for them (the overhead estimate); structure
	 * probes count theirs in struct mw_struct_stats */
	MW_C_HITS,		/* on an instruction the kernel emulates */
	MW_C_HITS_STEPPED,	/* on one it single-steps */
	MW_C_HITS_RETURN,	/* return probes (the kernel's trampoline) */
	MW_C__COUNT,
};

/* The kinds of probe hit, in the order of the counters above. */
enum mw_hit { MW_HIT_EMULATED, MW_HIT_STEPPED, MW_HIT_RETURN, MW_HIT__COUNT };

struct mw_stats {
	__u64 c[MW_C__COUNT];
};

/* Per-structure counters, per-CPU, indexed slot * MW_MAX_STRUCTS + id. */
struct mw_struct_stats {
	__s64 elements;		/* net change since attach */
	__u64 alloc_bytes;	/* bytes charged to the structure */
	__u64 free_bytes;	/* charged bytes since freed */
	__u64 insert_calls;
	__u64 remove_calls;
	__u64 unwound_calls;	/* calls an exception or panic unwound */
	__u64 hits[MW_HIT__COUNT];	/* its probes' hits, by enum mw_hit */
	__u64 roots_lost;	/* roots the roots table had no room for */
};

/*
 * The roots table: each instance of a structure read through a parameter
 * (--read 'self.dag') that a call has shown, by its address. The value is
 * user space's: how many intervals in a row it failed to read.
 */
#define MW_MAX_ROOTS		65536
struct mw_root_key {
	__u32 slot;
	__u32 struct_id;
	__u64 addr;
};

/*
 * The live-block table: one entry per block allocated since attach, keyed
 * by address. User-space addresses fit in 47 bits, so the key is the
 * address (bits 0-47) with the target's slot in bits 48-57.
 */
#define MW_KEY_SLOT_SHIFT	48
#define MW_BLOCK_KEY(slot, addr) ((__u64)(addr) | ((__u64)(slot) << MW_KEY_SLOT_SHIFT))
#define MW_BLOCK_KEY_SLOT(key)	((__u32)(((key) >> MW_KEY_SLOT_SHIFT) & (MW_MAX_TARGETS - 1)))
#define MW_KEY_ADDR(key)	((key) & ((1ull << MW_KEY_SLOT_SHIFT) - 1))
/* A site: the call's return address (bits 0-47), and with --stacks its
 * stack id + 1 above it (bits 48-59); the slot is a field of its key. */
#define MW_SITE(ra, stack)	((__u64)(ra) | ((__u64)(stack) << MW_KEY_STACK_SHIFT))
#define MW_KEY_STACK_SHIFT	48
#define MW_KEY_STACK(key)	((__u32)((key) >> MW_KEY_STACK_SHIFT))
#define MW_MAX_STACKS		4095
#define MW_STACK_DEPTH		64

/*
 * Stacks walked by the objects' unwind tables (--stacks; user/stacks/):
 * every row of every table in one array (unwind_rows), each process's
 * executable mappings with where their rows are (unwind_procs, by slot),
 * and the stacks walked (walked_stacks, by id, as the stack-trace map
 * keeps frame-pointer stacks).
 */
#define MW_UNWIND_ROWS		(1u << 21)	/* rows of all tables */
#define MW_UNWIND_MAPS		64		/* executable mappings a process (a power of 2) */
#define MW_UNWIND_PROBE		4		/* ids tried for a stack */

enum mw_unwind_kind {	/* as user/stacks/cfi.h's enum mw_cfa */
	MW_UW_NONE, MW_UW_RSP, MW_UW_RBP, MW_UW_PLT, MW_UW_END, MW_UW_OTHER,
};

struct mw_unwind_row {
	__u64 pc;		/* link-time address where the row starts */
	__s32 off;		/* the CFA's offset from %rsp or %rbp */
	__s16 rbp;		/* the caller's %rbp at CFA + rbp; 0: unchanged */
	__u8 kind;		/* enum mw_unwind_kind */
	__u8 plt;		/* MW_UW_PLT: %rip & 15 from which 8 more */
};

struct mw_unwind_map {
	__u64 start, end;	/* mapped addresses */
	__u64 bias;		/* link-time address = address - bias */
	__u32 first, count;	/* its object's rows in unwind_rows */
};

struct mw_unwind_proc {
	__u32 n;		/* mappings, sorted by start */
	__u32 version;		/* new at every write: the walk's cache of rows
				 * found holds only this version's */
	struct mw_unwind_map m[MW_UNWIND_MAPS];
};

/*
 * The rows a walk found, by address (per CPU, direct-mapped): a stack
 * walked again (allocation stacks repeat) finds each frame's row in one
 * lookup, not a search of the mappings and of the object's rows. An entry
 * is checked whole (its check is a hash of the others), so that one torn
 * by another walk on the CPU is a miss, never another object's row.
 */
#define MW_WALK_CACHE		1024	/* entries a CPU (a power of 2) */

/*
 * The top of the stack being walked, read once (per CPU): a deep stack's
 * return addresses are then loads, not a read of the target's memory
 * each. Frames above it are read one by one.
 */
#define MW_STACK_WINDOW		2048	/* bytes (a power of 2) */

struct mw_stack_window {
	__u64 base, len;	/* the target's addresses [base, base + len) */
	__u64 tid;		/* the walk's thread: another's is not used */
	__u8 data[MW_STACK_WINDOW];
};

struct mw_walk_cached {
	__u64 at;		/* the frame's address */
	__u32 slot, version;	/* the process's, and its tables' version */
	__u32 row, pad;		/* in unwind_rows */
	__u64 check;
};

struct mw_walked_stack {
	__u64 hash;		/* of the frames: tells two stacks of one id apart */
	__u64 ips[MW_STACK_DEPTH];	/* as the stack-trace map's: 0 ends it */
};

struct mw_block {
	__u64 size : 48;	/* requested bytes */
	__u64 struct_id : 16;	/* 0: none, else structure id + 1 */
	__u64 site;		/* MW_SITE(call site, stack), 0: none */
};

/*
 * The table is an array probed linearly from the key's hash (open
 * addressing), not a kernel hash map: an array entry is a load where a
 * hash map's insert, lookup and delete took about 360 ns of BPF time a
 * malloc+free pair (measured). An entry is claimed by swapping its key
 * in (compare-and-swap), freed by swapping MW_LIVE_GONE in, or 0 where no
 * search must go past it (its next entry is never-used: bpf's live_free),
 * so that freed entries do not pile up; a key lies at most
 * MW_LIVE_PROBES entries past its hash, so a search ends there or at a
 * never-used entry (key 0).
 *
 * Two parts. In the main part a key's search starts where its address
 * lies in its 512-byte group of addresses (MW_LIVE_GROUP_SHIFT), in a
 * region of 64 entries the group's hash picks: the blocks an allocator
 * hands out one after another are neighbours in the table, whose pages
 * and cache lines then stay hot (on redis, an insert's BPF time halved:
 * each took a cache and TLB miss at a random entry). A key whose search
 * there finds no room (groups of tiny blocks, packed, whose regions
 * meet) goes to the spill part, searched from its plain hash, and its
 * region's bit is set in the spills map: only then does a search look
 * there too. Sized by the loader: the main part the power of two at or
 * above 1.25 x --max-live-blocks, the spill part a quarter of it; 24
 * bytes an entry.
 */
#define MW_LIVE_GONE		(~0ull)
#define MW_LIVE_CLEARING	(~0ull - 1)	/* freed, being made never-used */
#define MW_LIVE_PROBES		32
#define MW_LIVE_HASH		0x9e3779b97f4a7c15ull	/* 2^64 / golden ratio */
#define MW_LIVE_GROUP_SHIFT	9		/* a group: 512 bytes of addresses */
#define MW_LIVE_REGION		(1u << (MW_LIVE_GROUP_SHIFT - 3))	/* its entries: one
							 * for each 8 bytes */
#define MW_LIVE_SPILL		(1u << 31)	/* an index into the spill part */

/* Where @key's search starts in a main part of 2^(64 - @shift) entries:
 * the region of 64 that its group's hash picks, at the key's 8-byte
 * offset in its group turned round by that hash (bits below the
 * region's), so that blocks at one offset of many groups (512-byte
 * aligned ones) do not all start at one entry of their regions, while a
 * group's blocks stay neighbours. (The test target that packs blocks
 * computes it too.) */
#define MW_LIVE_GROUP_HASH(key)	(((__u64)(key) >> MW_LIVE_GROUP_SHIFT) * MW_LIVE_HASH)
#define MW_LIVE_HOME(key, shift)						\
	(((__u32)(MW_LIVE_GROUP_HASH(key) >> (shift)) & ~(MW_LIVE_REGION - 1)) |	\
	 (((__u32)((__u64)(key) >> 3) + (__u32)(MW_LIVE_GROUP_HASH(key) >> 26)) &	\
	  (MW_LIVE_REGION - 1)))

struct mw_live {
	__u64 key;		/* MW_BLOCK_KEY; 0: never used; MW_LIVE_GONE: freed;
				 * MW_LIVE_CLEARING: freed, a moment */
	struct mw_block blk;
};

/* The outermost allocator call a thread is in. */
struct mw_call {
	__u64 sp;		/* stack pointer at entry; 0: no call */
	__u64 start;		/* when the call started, in jiffies */
	__u64 old;		/* realloc: old block; posix_memalign: out */
	__u64 size;		/* requested bytes */
	__u64 extra;		/* xallocx: bytes wanted beyond size */
	__u32 op;
	__u32 slot;
	__u32 charge;		/* structure id + 1 charged, 0: none */
	__u64 site;		/* with sites: the address it returns to (at return) */
	__u64 stack;		/* stack id + 1, with --stacks; 0: none */
	__u32 bad_size;		/* size product overflowed: call must fail */
	struct mw_block stash;	/* realloc: the old block, taken at entry */
	__u32 has_stash;
	__u32 gen;		/* the slot's attach generation (mw_loader) */
};

/*
 * A thread's outermost allocator call is recorded, from its entry to its
 * return, in the calls array at its thread id's index (MW_CALL_SLOTS
 * entries), which the thread holds (owner) for that long: found by one
 * helper call (the thread id) and an array load, where the thread's task
 * storage took two helper calls, a third of heap mode's BPF time
 * (measured, docs/cost.md); in a session of one process the return finds
 * it by a note its entry left under its stack pointer, with no helper
 * call (bpf's ret_notes). Where another thread's open call holds the
 * index, the call is recorded in the thread's task storage instead, and
 * the index counts such calls (fallbacks), so that their threads look
 * there first. Only the holder lets an index go, but for a holder that
 * died inside a call (its process exited or exec'd): the loader lets that
 * one go (sample/calls.c).
 */
#define MW_CALL_SLOTS	4096
#define MW_CALL_LETTING_GO	(~0ull)	/* owner while the loader lets it go */

struct mw_call_slot {
	__u64 owner;		/* bpf_get_current_pid_tgid() of the holder; 0: free */
	__u32 fallbacks;	/* open calls of this index in task storage */
	__u32 pad;
	struct mw_call call;
} __attribute__((aligned(64)));	/* 128 bytes: two cache lines, its own */

/*
 * Allocation sites (with --top, --folded or -f table): the address the
 * outermost allocator call returns to, read from the stack at entry. Keyed
 * like blocks, MW_BLOCK_KEY(slot, return address) (with the stack id on
 * top, with --stacks), and by the structure the blocks are charged to, so
 * that a structure's profile is a filter, not a walk of the live blocks;
 * updated atomically.
 */
#define MW_MAX_SITES		16384
struct mw_site_key {
	__u64 site;		/* MW_SITE(ra, stack) */
	__u32 charge;		/* structure id + 1, 0: none */
	__u32 slot;
};
struct mw_site {
	__s64 live_bytes;
	__s64 live_blocks;
	__u64 allocs;		/* blocks allocated there since attach */
	__u64 alloc_bytes;	/* their bytes (pprof's alloc_space) */
};

/* Who grows a structure: calls of its insert functions by call site. */
struct mw_insert_site_key {
	__u64 site;		/* MW_BLOCK_KEY(slot, return address) */
	__u32 struct_id;
	__u32 pad;
};

/*
 * Process events the loader acts on at once (a BPF ring buffer): a watched
 * process's dynamic loader finished loading objects (startup, dlopen),
 * a process ran execve, a watched process forked, a process changed
 * cgroup.
 */
enum mw_event_kind {
	MW_EV_LOADED = 1,	/* pid's loader is consistent: new objects mapped */
	MW_EV_EXEC,		/* pid ran execve (watched, or followed mode) */
	MW_EV_FORK,		/* ppid (watched) forked pid, a new process */
	MW_EV_MOVED,		/* pid moved to another cgroup (with --cgroup) */
};

struct mw_event {
	__u32 kind;		/* enum mw_event_kind */
	__u32 pid;
	__u32 ppid;		/* MW_EV_FORK: the parent */
	__u32 slot;		/* the watched process's slot, or ~0u */
};
#define MW_EVENTS_BYTES		(256 * 1024)
#define MW_NO_SLOT		0xffffffffu

/*
 * The dynamic loader's hook (glibc's _dl_debug_state, which debuggers
 * break on): called with r_state RT_ADD before it maps objects and
 * RT_CONSISTENT once they are mapped and relocated, before any of their
 * code runs. Per slot: where the loader's struct r_debug is (0: unknown,
 * every call is reported), and whether to stop the process there and at
 * execve until memwatch has attached (launch mode: memwatch's child).
 */
struct mw_loader {
	__u64 r_debug;		/* address of _r_debug in the process */
	__u32 hold;		/* SIGSTOP at execve and at RT_CONSISTENT */
	__u32 gen;		/* bumped when the slot's figures are reset:
				 * calls opened before are not counted lost */
};
#define MW_R_STATE_OFFSET	24	/* struct r_debug's r_state */
#define MW_RT_CONSISTENT	0

/* The packed layouts above hold these limits; the build fails otherwise. */
_Static_assert((MW_MAX_TARGETS & (MW_MAX_TARGETS - 1)) == 0, "slots are masked");
_Static_assert(MW_KEY_SLOT_SHIFT + 10 <= 64 && MW_MAX_TARGETS <= (1 << 10),
	       "a block key has 10 bits of target slot");
_Static_assert(MW_MAX_TARGETS <= (1 << 10), "a cookie has 10 bits of target slot");
_Static_assert((MW_UNWIND_MAPS & (MW_UNWIND_MAPS - 1)) == 0, "mappings are indexed with a mask");
_Static_assert(MW_MAX_STACKS < (1 << 12), "a site has 12 bits of stack id + 1 (ids < MW_MAX_STACKS)");
_Static_assert(MW_MAX_STRUCTS < (1 << 16), "a cookie and a block have 16 bits of structure id");
_Static_assert(MW_OP__COUNT <= 0xff, "an allocator cookie has 8 bits of op");
_Static_assert(MW_DELTA_ARG1 + 5 <= 0xff, "a structure cookie has 8 bits of delta rule");
_Static_assert(MW_SF_REMOVE >= (1ull << (MW_SF_DELTA_SHIFT + 8)), "structure flags above the delta rule");
_Static_assert(MW_ALLOC_NORESERVE < MW_COOKIE_STEPPED && MW_SF_WITH_ROOT(7) < MW_COOKIE_STEPPED &&
	       MW_SF_WITH_ROOT(7) < MW_SF_UNWIND && MW_SF_COPY < MW_COOKIE_STEPPED &&
	       MW_SF_DIRECT < MW_SF_WITH_ROOT(1) && MW_SF_COPY < MW_COOKIE_SHARED &&
	       MW_COOKIE_SHARED < MW_COOKIE_STEPPED &&
	       MW_COOKIE_STEPPED < (1ull << MW_COOKIE_SLOT_SHIFT), "cookie flags below the slot");
_Static_assert(MW_C_HITS + MW_HIT_STEPPED == MW_C_HITS_STEPPED &&
	       MW_C_HITS + MW_HIT_RETURN == MW_C_HITS_RETURN, "hit counters in enum mw_hit's order");
_Static_assert(MW_COOKIE_SLOT_SHIFT + 10 <= MW_COOKIE_PLACE_SHIFT, "the slot below the place");
_Static_assert(MW_MAX_PLACES <= (1 << (64 - MW_COOKIE_PLACE_SHIFT)), "a cookie has 14 bits of place");
_Static_assert(MW_REG__COUNT <= 0xff, "a place has 8 bits per register");
_Static_assert((MW_MAX_SCOPES & (MW_MAX_SCOPES - 1)) == 0, "scopes are indexed with a mask");

#endif /* MEMWATCH_H */
