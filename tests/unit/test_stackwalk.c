// SPDX-License-Identifier: GPL-2.0
/*
 * test_stackwalk.c - unwind tables from .eh_frame (stacks/cfi.c) and the
 * stack walk over them (stacks/stackwalk.c), on build/fixtures/chain: a chain
 * of calls built -O2 without frame pointers, through libchain.so and a
 * callback. The fixture stops at its deepest frame with the stack glibc's
 * backtrace(3) computed for itself; the walk from its registers, through
 * its memory read from outside, must give the same frames, one for one.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "process/memory.h"
#include "process/procmaps.h"
#include "stacks/cfi.h"
#include "stacks/stackwalk.h"
#include "symbols/elfsym.h"

#define CHAIN "build/fixtures/chain"
#define MAX_FRAMES 64

/* The row at link-time address @pc of @path's table, as expected. */
static void expect_row(const struct mw_cfi *t, uint64_t pc, enum mw_cfa kind, int32_t off,
		       const char *what)
{
	const struct mw_cfi_row *r = cfi__find(t, pc);

	cr_assert_not_null(r, "%s: a row covers %#llx", what, (unsigned long long)pc);
	cr_expect_eq(r->kind, kind, "%s: kind %d, got %d", what, kind, r->kind);
	cr_expect_eq(r->off, off, "%s: CFA offset %d, got %d", what, off, r->off);
}

Test(stackwalk, table__rows_follow_the_prologue)
{
	struct mw_elf *e;
	const struct mw_sym *d, *start;
	struct mw_cfi t;

	cr_assert_eq(cfi__build(CHAIN, &t), 0, "the fixture's table builds");
	cr_assert_gt(t.n, 10, "rows: %zu", t.n);
	for (size_t i = 1; i < t.n; i++)
		cr_assert_gt(t.rows[i].pc, t.rows[i - 1].pc, "rows sorted, none twice");
	cr_assert_eq(elfsym__open(CHAIN, &e), 0);
	d = elfsym__find(e, "chain_d");
	cr_assert_not_null(d, "chain_d has a symbol");
	/* sub $0x8,%rsp (4 bytes), then the call: CFA = %rsp+8, then +16 */
	expect_row(&t, d->vaddr, MW_CFA_RSP, 8, "chain_d's entry");
	expect_row(&t, d->vaddr + 4, MW_CFA_RSP, 16, "past its sub");
	start = elfsym__find(e, "_start");
	cr_assert_not_null(start);
	cr_expect_eq(cfi__find(&t, start->vaddr + 4)->kind, MW_CFA_END,
		     "_start's return address is undefined: the outermost frame");
	cr_expect_null(cfi__find(&t, 0x10), "no row below the code");
	elfsym__close(e);
	cfi__free(&t);
}

Test(stackwalk, table__plt_rule_recognised)
{
	struct mw_cfi t;
	size_t plt = 0;

	cr_assert_eq(cfi__build(CHAIN, &t), 0);
	for (size_t i = 0; i < t.n; i++)
		plt += t.rows[i].kind == MW_CFA_PLT;
	cr_expect_gt(plt, 0, "the PLT's expression is read as its rule");
	for (size_t i = 0; i < t.n; i++)
		if (t.rows[i].kind == MW_CFA_PLT)
			cr_expect(t.rows[i].off == 8 && t.rows[i].plt >= 10 && t.rows[i].plt <= 11,
				  "%%rsp+8, and 8 more past the push: off %d at %u", t.rows[i].off,
				  t.rows[i].plt);
	cfi__free(&t);
}

Test(stackwalk, table__no_file_no_table)
{
	struct mw_cfi t;

	cr_expect_eq(cfi__build("/nonexistent/x", &t), -ENOENT);
	cr_expect_eq(cfi__build("tests/unit/test_stackwalk.c", &t), -EINVAL, "not ELF");
	cr_expect_eq(t.n, 0);
}

/* The objects a process maps, with their tables. */
struct loaded {
	struct mw_unwind_map maps[64];
	struct mw_elf *elf[64];
	struct mw_cfi cfi[64];
	size_t n;
};

static void load(pid_t pid, struct loaded *l)
{
	struct mw_maps m;

	memset(l, 0, sizeof(*l));
	cr_assert_eq(procmaps__load(pid, &m), 0, "its maps");
	for (size_t i = 0; i < m.n && l->n < 64; i++) {
		const struct mw_mapping *p = &m.v[i];

		if (!strchr(p->perms, 'x') || p->path[0] != '/')
			continue;
		if (elfsym__open(p->path, &l->elf[l->n]) ||
		    cfi__build(p->path, &l->cfi[l->n])) {
			if (l->elf[l->n])
				elfsym__close(l->elf[l->n]);
			l->elf[l->n] = NULL;
			continue;	/* [vdso] and the like */
		}
		l->maps[l->n] = (struct mw_unwind_map){ p->start, p->end, p->offset, l->elf[l->n],
							&l->cfi[l->n] };
		l->n++;
	}
	procmaps__free(&m);
}

static void unload(struct loaded *l)
{
	for (size_t i = 0; i < l->n; i++) {
		elfsym__close(l->elf[i]);
		cfi__free(&l->cfi[i]);
	}
}

static int read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return memory__read(*(pid_t *)ctx, addr, buf, len);
}

Test(stackwalk, walk__equals_the_targets_backtrace, .timeout = 30)
{
	int in[2], out[2];
	char regs[256], bt[2048], *p;
	unsigned long long ip, sp, bp;
	uint64_t want[MAX_FRAMES], got[MAX_FRAMES];
	int nwant = 0, n, depth;
	enum mw_walk_end end;
	struct loaded l;
	FILE *f;
	pid_t pid;

	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(CHAIN, CHAIN, "4", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	cr_assert(f && fgets(regs, sizeof(regs), f) && fgets(bt, sizeof(bt), f), "the fixture speaks");
	cr_assert_eq(sscanf(regs, "regs ip=%llx sp=%llx bp=%llx depth=%d", &ip, &sp, &bp, &depth), 4,
		     "[%s]", regs);
	for (p = strtok(bt + 2, " \n"); p && nwant < MAX_FRAMES; p = strtok(NULL, " \n"))
		want[nwant++] = strtoull(p, NULL, 16);
	cr_assert_gt(nwant, 10, "backtrace gave the whole chain: %d frames", nwant);

	load(pid, &l);
	n = stackwalk__run(l.maps, l.n, read_target, &pid,
			   (struct mw_regs){ ip, sp, bp }, got, MAX_FRAMES, &end);
	cr_expect_eq(end, MW_WALK_ROOT, "the walk reaches the outermost frame");
	cr_expect_eq(n, nwant, "as many frames as backtrace(3): %d and %d", n, nwant);
	/* frame 0 is where each was taken: the walk's at capture's asm,
	 * backtrace's after its call; every caller's return address after */
	for (int i = 1; i < n && i < nwant; i++)
		cr_expect_eq(got[i], want[i], "frame %d: %#llx, backtrace says %#llx", i,
			     (unsigned long long)got[i], (unsigned long long)want[i]);
	unload(&l);
	cr_assert_eq(write(in[1], "go\n", 3), 3);
	close(in[1]);
	fclose(f);
	waitpid(pid, NULL, 0);
}
