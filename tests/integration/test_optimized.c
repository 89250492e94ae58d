// SPDX-License-Identifier: GPL-2.0
/*
 * test_optimized.c - structures in a release build (the optimized target,
 * gcc -O2 -fcf-protection): tail calls between probed functions and into
 * malloc, clones named by their source name, a cold part never probed, a
 * split function counted once. Each test first checks with nm or objdump
 * that the compiler produced the shape it covers: a -O0 build hides them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"
#include "session.h"

static const char *const target[] = { TARGET("optimized"), NULL };

/* The disassembly of function @fn holds a line matching @insn (grep -E). */
static bool disasm_has(const char *fn, const char *insn)
{
	char cmd[512], out[64];

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn " TARGET("optimized")
		 " | awk '/^[0-9a-f]+ <%s>:/,/^$/' | grep -cE '%s'", fn, insn);
	run_capture(cmd, out, sizeof(out));
	return atoi(out) > 0;
}

/* The symbol table holds a function matching @re (grep -E, whole name). */
static bool has_symbol(const char *re)
{
	char cmd[512], out[64];

	snprintf(cmd, sizeof(cmd), "nm " TARGET("optimized") " | grep -cE ' [tT] %s$'", re);
	run_capture(cmd, out, sizeof(out));
	return atoi(out) > 0;
}

static void expect_figure(struct session *s, const char *reply, const char *column,
			  const char *key)
{
	long long got = session_int(s, column);

	cr_expect_eq(got, reply_int(reply, key), "%s = %lld equals the target's %s (%s)",
		     column, got, key, reply);
}

static void expect_nothing_lost(struct session *s, bool heap)
{
	cr_expect_eq(session_int(s, "lost_unpaired"), 0, "every call paired");
	cr_expect_eq(session_int(s, "lost_scopes"), 0, "no scope lost");
	if (heap)	/* the live-block table's column is empty without it */
		cr_expect_eq(session_int(s, "lost_table_full"), 0, "no table full");
}

Test(optimized, shapes__the_compiler_made_them)
{
	cr_expect(disasm_has("index_add", "jmp +[0-9a-f]+ <table_insert>"),
		  "index_add ends in a tail call of table_insert");
	cr_expect(disasm_has("index_del", "jmp +[0-9a-f]+ <table_remove>"),
		  "index_del ends in a tail call of table_remove");
	cr_expect(disasm_has("blob_new", "jmp +[0-9a-f]+ <malloc@plt>"),
		  "blob_new ends in a tail call of malloc");
	cr_expect(has_symbol("item_push\\.constprop\\.[0-9]+") && !has_symbol("item_push"),
		  "item_push exists only as a .constprop clone");
	cr_expect(has_symbol("pair_put\\.isra\\.[0-9]+") && !has_symbol("pair_put"),
		  "pair_put exists only as an .isra clone");
	cr_expect(has_symbol("reg_insert") && has_symbol("reg_insert\\.cold"),
		  "reg_insert has a .cold part");
	cr_expect(has_symbol("cache_add") && has_symbol("cache_add\\.part\\.[0-9]+"),
		  "cache_add was split");
	cr_expect(disasm_has("cache_add", "jmp +[0-9a-f]+ <cache_add\\.part\\.[0-9]+>"),
		  "cache_add reaches its part by a tail jump");
	cr_expect(disasm_has("main", "call +[0-9a-f]+ <cache_add\\.part\\.[0-9]+>"),
		  "a caller with the inlined header calls the part itself");
	cr_expect(disasm_has("split_add", "call +[0-9a-f]+ <split_add\\.part\\.0>"),
		  "split_add calls its part");
}

#define TAIL_ARGS \
	"--struct", "index", "--insert", "index_add", "--remove", "index_del", \
	"--struct", "table", "--insert", "table_insert", "--delta", "ret", \
	"--remove", "table_remove", "--delta", "ret", \
	"--struct", "blob", "--insert", "blob_new"

/* tail calls from one probed function into another, and into malloc:
 * both scopes stay open, every figure exact */
Test(optimized, tail_calls__exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { TAIL_ARGS, NULL };
	struct session s;
	char *reply;

	session_start_target(&s, target, extra);
	for (int round = 0; round < 2; round++) {
		reply = session_command(&s, "run 150\n");
		session_settle(&s);
		expect_figure(&s, reply, "index_elements", "index");
		expect_figure(&s, reply, "index_bytes", "index_bytes");
		expect_figure(&s, reply, "index_insert_calls", "index_calls");
		expect_figure(&s, reply, "index_remove_calls", "index_remove_calls");
		expect_figure(&s, reply, "table_elements", "table");
		expect_figure(&s, reply, "table_bytes", "table_bytes");
		expect_figure(&s, reply, "table_insert_calls", "table_calls");
		expect_figure(&s, reply, "table_remove_calls", "table_remove_calls");
		expect_figure(&s, reply, "blob_bytes", "blob_bytes");
		expect_figure(&s, reply, "blob_insert_calls", "blob_calls");
		expect_nothing_lost(&s, true);
	}
	cr_expect_gt(session_int(&s, "blob_bytes"), 0, "blob_new's malloc was charged");
	session_stop(&s);
}

/* --delta ret on a function that tail-calls another: its return value is
 * the callee's, counted once for each; structure-only, so that no
 * allocator probe opens scopes in between */
Test(optimized, tail_call_ret__the_callees_value, .timeout = MW_TIMEOUT)
{
	const char *extra[] = {
		"--no-heap",
		"--struct", "index", "--insert", "index_add", "--delta", "ret",
		"--remove", "index_del", "--delta", "ret",
		"--struct", "table", "--insert", "table_insert", "--delta", "ret",
		"--remove", "table_remove", "--delta", "ret", NULL
	};
	struct session s;
	char *reply;

	session_start_target(&s, target, extra);
	reply = session_command(&s, "run 150\n");
	session_settle(&s);
	expect_figure(&s, reply, "index_elements", "index_ret");
	expect_figure(&s, reply, "index_insert_calls", "index_calls");
	expect_figure(&s, reply, "table_elements", "table");
	expect_figure(&s, reply, "table_insert_calls", "table_calls");
	cr_expect_neq(reply_int(reply, "index_ret"), reply_int(reply, "index"),
		      "the two tallies differ, so the test tells them apart");
	expect_nothing_lost(&s, false);
	session_stop(&s);
}

#define CLONE_ARGS \
	"--struct", "items", "--insert", "item_push", \
	"--struct", "pairs", "--insert", "pair_put", \
	"--struct", "regs", "--insert", "reg_insert", \
	"--struct", "cache", "--insert", "cache_add", \
	"--struct", "split", "--insert", "split_add"

static void expect_clones(struct session *s, bool bytes)
{
	char *reply = session_command(s, "run 120\n");

	session_settle(s);
	expect_figure(s, reply, "items_elements", "items");
	expect_figure(s, reply, "pairs_elements", "pairs");
	/* --delta one: a failed reg_insert is a call too */
	cr_expect_eq(session_int(s, "regs_elements"),
		     reply_int(reply, "regs") + reply_int(reply, "regs_failed"),
		     "regs: one per call, the .cold path's included (%s)", reply);
	expect_figure(s, reply, "cache_elements", "cache");
	expect_figure(s, reply, "cache_insert_calls", "cache_misses");
	expect_figure(s, reply, "split_elements", "split");
	if (bytes) {
		expect_figure(s, reply, "items_bytes", "items_bytes");
		expect_figure(s, reply, "pairs_bytes", "pairs_bytes");
		expect_figure(s, reply, "regs_bytes", "regs_bytes");
		expect_figure(s, reply, "cache_bytes", "cache_bytes");
		expect_figure(s, reply, "split_bytes", "split_bytes");
	}
	expect_nothing_lost(s, bytes);
}

/* clones named by the source name; a .cold part not a choice; a split
 * function's header and part counted once a call */
Test(optimized, clones_and_parts__by_source_name, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { CLONE_ARGS, NULL };
	const char *noheap[] = { "--no-heap", CLONE_ARGS, NULL };
	struct session s;
	const char *err;

	session_start_target(&s, target, extra);
	expect_clones(&s, true);
	expect_clones(&s, true);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "item_push.constprop."), "the clone probed is named: [%s]", err);
	cr_expect(strstr(err, "pair_put.isra."), "the clone probed is named: [%s]", err);
	cr_expect(strstr(err, "cache_add.part.0 is the outlined rest of cache_add"),
		  "the split is said: [%s]", err);
	cr_expect(!strstr(err, ".cold"), "the cold part is never mentioned: [%s]", err);
	cr_expect(strstr(err, "DWARF says the compiler also copied cache_add's start into run"),
		  "the inlined copies of cache_add's start are said, with their caller: [%s]", err);
	session_stop(&s);

	session_start_target(&s, target, noheap);
	expect_clones(&s, false);
	session_stop(&s);
}

/* memwatch on the optimized target with @args; its exit status, stderr
 * in @err */
static int refused(const char *const args[], char *err, size_t len)
{
	struct proc t, mw;
	const char *argv[16] = { MEMWATCH, "-p" };
	char pid[16], *line;
	int n = 3, rc;

	proc_spawn(&t, target);
	line = proc_line(&t);
	cr_assert(line && !strncmp(line, "ready", 5), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	argv[2] = pid;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	proc_spawn(&mw, argv);
	rc = proc_wait(&mw);
	snprintf(err, len, "%s", proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t);
	return rc;
}

/* How many lines of @text hold @word. */
static int lines_with(const char *text, const char *word)
{
	int n = 0;

	for (const char *l = text; *l; ) {
		const char *end = strchr(l, '\n');
		const char *w = strstr(l, word);

		if (w && (!end || w < end))
			n++;
		if (!end)
			break;
		l = end + 1;
	}
	return n;
}

Test(optimized, argument_delta_on_a_clone__refused, .timeout = MW_TIMEOUT)
{
	const char *isra[] = { "--struct", "p", "--insert", "pair_put", "--delta", "arg1", NULL };
	const char *part[] = { "--struct", "c", "--insert", "cache_add", "--delta", "ret", NULL };
	char err[4096];

	cr_expect_eq(refused(isra, err, sizeof(err)), 1, "refused, exit 1");
	cr_expect(strstr(err, "--delta arg1: pair_put.isra.") && strstr(err, "use --delta one"),
		  "one line naming the clone: [%s]", err);
	cr_expect_eq(lines_with(err, "pair_put"), 1, "one line about it: [%s]", err);
	cr_expect_eq(refused(part, err, sizeof(err)), 1, "refused, exit 1");
	cr_expect(strstr(err, "--delta ret: cache_add.part.0"), "names the part: [%s]", err);
}

/* note_round has no symbol: its one copy, in run (itself inlined into
 * main), is probed where DWARF says it starts, and counts every call. */
Test(optimized, inlined_everywhere__counted_at_its_copy, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "n", "--insert", "note_round", NULL };
	struct session s;
	const char *err;
	char *reply;

	cr_assert(!has_symbol("note_round"), "note_round has no symbol of its own");
	session_start_target(&s, target, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "probes 1 inlined copy of note_round, in main (DWARF)"),
		  "names the copy and where it went: [%s]", err);
	for (int round = 0; round < 2; round++) {
		reply = session_command(&s, "run 150\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "n_insert_calls"), reply_int(reply, "rounds"),
			     "one call a round: %s", reply);
		cr_expect_eq(session_int(&s, "n_elements"), reply_int(reply, "rounds"),
			     "one element a call");
	}
	session_stop(&s);
}

Test(optimized, near_miss__suggests_the_source_name, .timeout = MW_TIMEOUT)
{
	const char *typo[] = { "--struct", "i", "--insert", "item_psh", NULL };
	char err[4096];

	cr_expect_eq(refused(typo, err, sizeof(err)), 1, "no such function, exit 1");
	cr_expect(strstr(err, "nearest: item_push") && !strstr(err, "constprop"),
		  "suggests the clone by its source name: [%s]", err);
}

/* Another return probe on an insert (here a second memwatch's --delta ret
 * on another process of the same program: the kernel prepares a return
 * for every return consumer of a probe, whatever pid it filters on) puts
 * the trampoline in the insert's return slot: its scope stays open. */
Test(optimized, another_return_probe__scopes_stay_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { TAIL_ARGS, NULL };
	const char *other_args[] = { "--no-heap", "--struct", "o", "--insert", "index_add",
				     "--delta", "ret", "-i", "1", NULL };
	struct session other, s;
	char *reply;

	session_start_target(&other, target, other_args);
	session_start_target(&s, target, extra);
	reply = session_command(&s, "run 150\n");
	session_settle(&s);
	expect_figure(&s, reply, "index_bytes", "index_bytes");
	expect_figure(&s, reply, "index_elements", "index");
	expect_figure(&s, reply, "blob_bytes", "blob_bytes");
	expect_nothing_lost(&s, true);
	session_stop(&s);
	session_stop(&other);
}
