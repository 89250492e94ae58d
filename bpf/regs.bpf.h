/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regs.bpf.h - the entry's state at a probe: where placement.c moved it
 * (the places map), the registers an argument is in, the stack pointer at
 * the entry. A part of memwatch.bpf.c, included there (one translation
 * unit, one object).
 */
#ifndef MW_REGS_BPF_H
#define MW_REGS_BPF_H

/* ---------------------------------------------------------------- helpers */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MW_MAX_PLACES);
	__type(key, __u32);		/* MW_COOKIE_PLACE(cookie); 0: the entry */
	__type(value, struct mw_place);
} places SEC(".maps");

/*
 * The entry's state at a probe placement.c moved past leading
 * instructions: NULL for a probe at the entry itself (no lookup: most).
 */
static __always_inline const struct mw_place *place_of(__u64 cookie)
{
	__u32 i = MW_COOKIE_PLACE(cookie);

	return i ? bpf_map_lookup_elem(&places, &i) : NULL;
}

/* Register @r of @ctx. Each case loads at its own constant offset, which
 * the verifier checks as a read of the context; written as asm because
 * the compiler would otherwise merge the cases' loads into one at an
 * offset chosen at run time, which the verifier refuses. */
#define CTX_LOAD(ctx, field)						\
({									\
	__u64 __v;							\
	asm volatile("%0 = *(u64 *)(%1 + %2)"				\
		     : "=r"(__v)					\
		     : "r"(ctx), "i"(offsetof(struct pt_regs, field)));	\
	__v;								\
})

static __always_inline __u64 reg_of(struct pt_regs *ctx, __u32 r)
{
	switch (r) {
	case MW_REG_DI:		return CTX_LOAD(ctx, di);
	case MW_REG_SI:		return CTX_LOAD(ctx, si);
	case MW_REG_DX:		return CTX_LOAD(ctx, dx);
	case MW_REG_CX:		return CTX_LOAD(ctx, cx);
	case MW_REG_R8:		return CTX_LOAD(ctx, r8);
	case MW_REG_R9:		return CTX_LOAD(ctx, r9);
	case MW_REG_AX:		return CTX_LOAD(ctx, ax);
	case MW_REG_BX:		return CTX_LOAD(ctx, bx);
	case MW_REG_BP:		return CTX_LOAD(ctx, bp);
	case MW_REG_R10:	return CTX_LOAD(ctx, r10);
	case MW_REG_R11:	return CTX_LOAD(ctx, r11);
	case MW_REG_R12:	return CTX_LOAD(ctx, r12);
	case MW_REG_R13:	return CTX_LOAD(ctx, r13);
	case MW_REG_R14:	return CTX_LOAD(ctx, r14);
	case MW_REG_R15:	return CTX_LOAD(ctx, r15);
	default:		return 0;
	}
}

/* The stack pointer at the function's entry: its return address on top. */
static __always_inline __u64 entry_sp(struct pt_regs *ctx, const struct mw_place *pl)
{
	return PT_REGS_SP(ctx) + (pl ? (__s64)pl->sp_off : 0);
}

/*
 * Whether the jcc a probe sits on jumps, by the flags its compare left:
 * @cc is its condition code (the low nibble of its opcode), as x86 reads
 * it: o, b, e, be, s, p, l, le, each odd code its negation.
 */
static __always_inline bool jcc_taken(__u64 fl, __u32 cc)
{
	bool cf = fl & 1, pf = fl >> 2 & 1, zf = fl >> 6 & 1, sf = fl >> 7 & 1,
	     of = fl >> 11 & 1, t;

	switch (cc >> 1) {
	case 0:	t = of; break;
	case 1:	t = cf; break;
	case 2:	t = zf; break;
	case 3:	t = cf || zf; break;
	case 4:	t = sf; break;
	case 5:	t = pf; break;
	case 6:	t = sf != of; break;
	default: t = zf || sf != of; break;
	}
	return cc & 1 ? !t : t;
}

/* A probe on a Go prologue's stack check whose jump to runtime.morestack
 * is taken: the function restarts from its first instruction once its
 * stack has grown, and this hit is not a call of its own. */
static __always_inline bool restarting(struct pt_regs *ctx, const struct mw_place *pl)
{
	return pl && pl->guard && jcc_taken(ctx->flags, pl->guard - 1u);
}

/* Integer argument @n (1-6, a constant) as the function was called with
 * it; 0 for argument 0 (a value the op does not read, mw_op_args). */
static __always_inline __u64 entry_arg(struct pt_regs *ctx, const struct mw_place *pl, __u32 n)
{
	if (n < 1 || n > MW_NARGS)
		return 0;
	if (pl) {
		__u32 i = n - 1;

		/* opaque to clang, so that the bound below stays in the code:
		 * Linux 6.1's verifier does not carry n's range into i */
		asm volatile("" : "+r"(i));
		if (i >= MW_NARGS)
			return 0;
		return reg_of(ctx, pl->arg[i]);
	}
	switch (n) {
	case 1:	return PT_REGS_PARM1(ctx);
	case 2:	return PT_REGS_PARM2(ctx);
	case 3:	return PT_REGS_PARM3(ctx);
	case 4:	return PT_REGS_PARM4(ctx);
	case 5:	return PT_REGS_PARM5(ctx);
	case 6:	return MW_PARM6(ctx);
	}
	return 0;
}

#endif /* MW_REGS_BPF_H */
