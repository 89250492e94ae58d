// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind.c - memwatch never changes what the target does: C++
 * exceptions and Rust panics that cross probed frames are caught as they
 * are untraced, in every mode and on every allocator, and the figures stay
 * the target's own. The targets (unwind_cxx on glibc with CET prologues,
 * on jemalloc, tcmalloc and mimalloc; unwind_rust) are built -O2; each is
 * first run untraced, and under memwatch must give the same replies and
 * exit 0 with nothing on stderr.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

#define ROUNDS "20"

struct target {
	const char *argv[6];
	/* raw or demangled names of its functions */
	const char *reg, *chk, *outer;
	bool cxx;
};

#define CXX_NAMES "_Z10reg_insertP8RegistryPKc", "_Z10chk_insertP8RegistryPKc", \
		  "_Z9outer_addP8RegistryPKc", true

/* by the plain names: each has a .cold part, which is not a choice */
static const struct target cxx_glibc = {
	{ TARGET("unwind_cxx"), ROUNDS, NULL }, "reg_insert", "chk_insert", "outer_add", true };
static const struct target cxx_jemalloc = {
	{ TARGET("unwind_cxx_jemalloc"), ROUNDS, NULL }, CXX_NAMES };
static const struct target rust = {
	{ TARGET("unwind_rust"), ROUNDS, NULL },
	"unwind_rust::reg_insert", "unwind_rust::chk_insert", "unwind_rust::outer_add", false };

enum mode { HEAP, NO_HEAP, RET };

static void expect_untouched(const char *ran, const char *reply)
{
	cr_expect_str_eq(reply, ran, "the target replies as it does untraced");
}

/* Stops memwatch and the target: it must exit 0 and print nothing on
 * stderr (no "terminate called", no "failed to initiate panic"). */
static void expect_target_fine(struct session *s)
{
	session_stop(s);
	cr_expect_eq(s->target.status, 0, "the target exits 0 under memwatch");
	cr_expect_str_empty(proc_stderr(&s->target),
			    "the target says nothing on stderr under memwatch");
}

/* Structures and heap against the target's tally in @r. */
static void expect_figures(struct session *s, const struct target *t, enum mode mode,
			   const char *r)
{
	session_settle(s);
	cr_expect_eq(session_int(s, "reg_insert_calls"), reply_int(r, "reg_calls"),
		     "every reg_insert call counts, unwound or not (%s)", r);
	cr_expect_eq(session_int(s, "reg_elements"),
		     mode == RET ? reply_int(r, "reg_returned")
				 : reply_int(r, "reg_calls") - reply_int(r, "reg_unwound"),
		     "ret: what the calls that returned returned; one: each call that was not unwound (%s)", r);
	cr_expect_eq(session_int(s, "reg_unwound_calls"), reply_int(r, "reg_unwound"),
		     "every reg_insert an exception or panic unwound, counted (%s)", r);
	cr_expect_eq(session_int(s, "chk_unwound_calls"), 0,
		     "chk_insert catches inside: never unwound (%s)", r);
	cr_expect_eq(session_int(s, "outer_unwound_calls"), reply_int(r, "outer_calls"),
		     "outer_add always is (%s)", r);
	cr_expect_eq(session_int(s, "chk_elements"), reply_int(r, "chk_returned"),
		     "chk_insert catches inside and returns: every return seen (%s)", r);
	cr_expect_eq(session_int(s, "chk_insert_calls"), reply_int(r, "chk_calls"),
		     "chk_insert calls (%s)", r);
	cr_expect_eq(session_int(s, "outer_elements"), 0,
		     "outer_add always unwinds: it adds nothing, ret or one (%s)", r);
	cr_expect_eq(session_int(s, "outer_insert_calls"), reply_int(r, "outer_calls"),
		     "outer_add calls (%s)", r);
	cr_expect_eq(session_int(s, "lost_unpaired"), 0, "no unwound frame counts as lost");
	cr_expect_eq(session_int(s, "lost_scopes"), 0, "no scope was lost");
	if (mode == NO_HEAP)
		return;
	cr_expect_eq(session_int(s, "reg_bytes"), reply_int(r, "reg_bytes"),
		     "reg_bytes: live blocks allocated inside reg_insert (%s)", r);
	cr_expect_eq(session_int(s, "heap_live_bytes"), reply_int(r, "reg_bytes"),
		     "all that stays live is the registry's (%s)", r);
	cr_expect_eq(session_int(s, "heap_failed_calls"),
		     t->cxx ? reply_int(r, "failed_calls") : 0,
		     "a new that throws is one failed call (%s)", r);
	cr_expect_eq(session_int(s, "heap_untracked_frees"), 0,
		     "exception objects are seen from their allocation on");
}

static void watch(const struct target *t, enum mode mode)
{
	const char *delta = mode == RET ? "ret" : "one";
	const char *extra[24] = { 0 };
	char ran[512], *reply;
	struct session s;
	int n = 0;

	skip_unless_built(t->argv[0]);
	session_untraced(t->argv, ran, sizeof(ran));
	if (mode == NO_HEAP)
		extra[n++] = "--no-heap";
	const char *rest[] = {
		"--struct", "reg", "--insert", t->reg, "--delta", delta,
		"--struct", "chk", "--insert", t->chk, "--delta", "ret",
		"--struct", "outer", "--insert", t->outer, "--delta", delta,
	};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		extra[n++] = rest[i];
	session_start_target(&s, t->argv, extra);
	reply = session_command(&s, "run\n");
	expect_untouched(ran, reply);
	expect_figures(&s, t, mode, reply);
	reply = session_command(&s, "clear\n");
	session_settle(&s);
	if (mode != NO_HEAP) {
		cr_expect_eq(session_int(&s, "reg_bytes"), 0, "clear freed every entry");
		cr_expect_eq(session_int(&s, "heap_live_bytes"), 0, "nothing else stays live");
	}
	cr_expect_null(strstr(proc_stderr(&s.mw), "return probe"),
		       "no function needed a return probe: %s", proc_stderr(&s.mw));
	expect_target_fine(&s);
}

Test(unwind, cxx_glibc_heap_mode__exceptions_caught_figures_exact, .timeout = MW_TIMEOUT)
{
	watch(&cxx_glibc, HEAP);
}

Test(unwind, cxx_glibc_no_heap__exceptions_caught_counts_exact, .timeout = MW_TIMEOUT)
{
	watch(&cxx_glibc, NO_HEAP);
}

Test(unwind, cxx_glibc_delta_ret__exceptions_caught_returns_exact, .timeout = MW_TIMEOUT)
{
	watch(&cxx_glibc, RET);
}

/* A std::bad_alloc thrown by the allocator's own operator new is caught
 * only where the kernel has uprobe sessions: elsewhere its return probe
 * stays, the throw aborts the target, and memwatch says so at attach
 * (no_sessions__throwing_new_warned). */
static void skip_unless_sessions(void)
{
	const char *mech = kernel_mechanism();

	if (!strstr(mech, "uprobe sessions"))
		cr_skip_test("a throwing operator new needs uprobe sessions (Linux 6.12); memwatch attaches here with %s",
			     *mech ? mech : "(it did not say)");
}

Test(unwind, no_sessions__throwing_new_warned, .timeout = MW_TIMEOUT)
{
	char out[8192];

	/* as on a kernel before 6.12, on any: jemalloc's operator new */
	run_capture("MEMWATCH_NO_SESSIONS=1 " MEMWATCH " -n 1 -o /tmp/memwatch-nosessions.csv -- "
		    TARGET("unwind_cxx_jemalloc") " 1 < /dev/null 2>&1 >/dev/null", out, sizeof(out));
	unlink("/tmp/memwatch-nosessions.csv");
	cr_expect(strstr(out, "has no uprobe sessions (6.12), so the allocator's own operator new keeps its return probe"),
		  "memwatch says a throwing operator new keeps its return probe: %s", out);
	run_capture(MEMWATCH " -n 1 -o /tmp/memwatch-nosessions.csv -- " TARGET("unwind_cxx")
		    " 1 < /dev/null 2>&1 >/dev/null", out, sizeof(out));
	unlink("/tmp/memwatch-nosessions.csv");
	cr_expect(!strstr(out, "uprobe sessions"),
		  "and says nothing of it for glibc's C++, whose operator new calls malloc: %s", out);
}

Test(unwind, cxx_jemalloc_heap_mode__bad_alloc_and_exceptions_caught, .timeout = MW_TIMEOUT)
{
	skip_unless_sessions();
	watch(&cxx_jemalloc, HEAP);
}

Test(unwind, cxx_jemalloc_no_heap__exceptions_caught_counts_exact, .timeout = MW_TIMEOUT)
{
	watch(&cxx_jemalloc, NO_HEAP);
}

Test(unwind, cxx_jemalloc_delta_ret__exceptions_caught_returns_exact, .timeout = MW_TIMEOUT)
{
	skip_unless_sessions();
	watch(&cxx_jemalloc, RET);
}

Test(unwind, rust_heap_mode__panics_caught_figures_exact, .timeout = MW_TIMEOUT)
{
	watch(&rust, HEAP);
}

Test(unwind, rust_no_heap__panics_caught_counts_exact, .timeout = MW_TIMEOUT)
{
	watch(&rust, NO_HEAP);
}

Test(unwind, rust_delta_ret__panics_caught_returns_exact, .timeout = MW_TIMEOUT)
{
	watch(&rust, RET);
}

/* ------------------------------------------------ operator new that fails */

/*
 * A throwing operator new gets a return probe only for requests that can
 * succeed. @argv's news of HUGE bytes: failed calls as the target counts
 * them, or blocks when the allocator hands them out.
 */
static void failing_new(const char *const argv[], const char *warning)
{
	const char *extra[] = { "--struct", "reg", "--insert", "_Z10reg_insertP8RegistryPKc", NULL };
	char ran[512], *reply;
	struct session s;

	session_untraced(argv, ran, sizeof(ran));
	session_start_target(&s, argv, extra);
	reply = session_command(&s, "run\n");
	expect_untouched(ran, reply);
	session_settle(&s);
	cr_expect_eq(session_int(&s, "heap_failed_calls"), reply_int(reply, "failed_calls"),
		     "each new that threw is one failed call, and no other (%s)", reply);
	cr_expect_eq(session_int(&s, "heap_live_bytes"), reply_int(reply, "reg_bytes"),
		     "a huge block handed out and freed leaves nothing live (%s)", reply);
	cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "every call was paired");
	/* without sessions every throwing new keeps its return probe: said */
	if (!warning && !strstr(kernel_mechanism(), "uprobe sessions"))
		warning = "has no uprobe sessions (6.12), so the allocator's own operator new keeps its return probe";
	if (warning)
		cr_expect(strstr(proc_stderr(&s.mw), warning),
			  "memwatch says why a new may still fail: %s", proc_stderr(&s.mw));
	else
		cr_expect_null(strstr(proc_stderr(&s.mw), "bad_alloc"),
			       "nothing to warn about: %s", proc_stderr(&s.mw));
	expect_target_fine(&s);
}

static void skip_unless_heuristic_overcommit(void)
{
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
	int mode = -1;

	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = -1;
		fclose(f);
	}
	if (mode != 0)
		cr_skip_test("vm.overcommit_memory is %d, not the default 0", mode);
}

/* tcmalloc reserves what it maps: RAM + swap + 1 GiB is refused */
Test(unwind, tcmalloc_new_over_ram_and_swap__throws_and_is_caught, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { TARGET("unwind_cxx_tcmalloc"), "5", "ram", NULL };

	skip_unless_sessions();
	skip_unless_heuristic_overcommit();
	failing_new(argv, NULL);
}

/* jemalloc and mimalloc map with MAP_NORESERVE: the same request
 * succeeds, and memwatch must see it as the block it is */
Test(unwind, jemalloc_new_over_ram_and_swap__succeeds_and_is_counted, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { TARGET("unwind_cxx_jemalloc"), "5", "ram", NULL };

	skip_unless_heuristic_overcommit();
	failing_new(argv, NULL);
}

Test(unwind, mimalloc_new_over_ram_and_swap__succeeds_and_is_counted, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { TARGET("unwind_cxx_mimalloc"), "5", "ram", NULL };

	skip_unless_heuristic_overcommit();
	failing_new(argv, NULL);
}

/* over an address-space limit every request fails; memwatch warns that
 * smaller ones may fail too */
Test(unwind, new_over_rlimit_as__throws_caught_and_warned, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { "/usr/bin/prlimit", "--as=8589934592",
			       TARGET("unwind_cxx_jemalloc"), "5", "12884901888", NULL };

	skip_unless_sessions();
	failing_new(argv, "address-space limit");
}

/* ------------------------------------------------------ the unsafe mode */

/* --delta ret on a function that leaves by a tail call needs a return
 * probe: memwatch says so, and still counts exactly */
Test(unwind, delta_ret_on_a_tail_call__warns_once, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "tail", "--insert", "_Z11tail_insertP8RegistryPKc",
				"--delta", "ret", NULL };
	const char *err, *warning = "return probe; a C++ exception or Rust panic", *at;
	char *reply;
	struct session s;

	session_start_target(&s, cxx_glibc.argv, extra);
	err = proc_stderr(&s.mw);
	at = strstr(err, warning);
	cr_expect(at, "memwatch warns at attach: [%s]", err);
	cr_expect(!at || !strstr(at + 1, warning), "once: [%s]", err);
	cr_expect_gt(reply_int(session_command(&s, "run\n"), "tail_returned"), 0,
		     "tail_insert inserted keys");
	reply = session_command(&s, "run\n");
	reply = session_command(&s, "run\n");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "tail_elements"), reply_int(reply, "tail_returned"),
		     "its returns are read all the same (%s)", reply);
	cr_expect_eq(session_int(&s, "tail_insert_calls"), reply_int(reply, "tail_calls"),
		     "its calls (%s)", reply);
	cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "every call was paired");
	expect_target_fine(&s);
}

/* the plain names above cover .cold parts only if GCC made them */
Test(unwind, cxx_shape__inserts_have_cold_parts)
{
	FILE *p = popen("nm " TARGET("unwind_cxx") " | grep -cE ' t _Z(10reg|10chk|9outer)_[a-z]+P8RegistryPKc\\.cold$'", "r");
	int n = 0;

	cr_assert(p, "nm");
	cr_expect_eq(fscanf(p, "%d", &n), 1, "nm's count");
	pclose(p);
	cr_expect_geq(n, 2, "reg_insert and chk_insert have .cold parts (%d)", n);
}
