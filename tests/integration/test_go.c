// SPDX-License-Identifier: GPL-2.0
/*
 * test_go.c - memwatch never changes what a Go program does, and counts
 * its calls once each with Go's register ABI. go_reg (built by go build,
 * as releases are) runs goroutines whose calls of the probed functions
 * sometimes restart through runtime.morestack, grow their stack inside
 * the call or panic, with the collector running. In every mode, with and
 * without heap probes, it must reply and exit as it does untraced, and
 * the figures must equal its own tally.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

static const char *const go_reg[] = { TARGET("go_reg"), "8", NULL };

/* The reply's fields that do not depend on scheduling (entry_moves does:
 * which calls restarted is the runtime's choice). */
static const char *const fixed[] = {
	"inserts", "removes", "one", "arg", "ret", "recovered", "bumps", "bumped",
};

struct mode {
	const char *reg_delta, *bump_delta;
	const char *reg_tally;		/* the reply field reg_elements equals */
	bool heap, probe_entry;
};

/* hits_elements for bump's delta: calls, what it returned, or its
 * argument (it returns it + 1) */
static long long bump_tally(const struct mode *m, const char *reply)
{
	if (!strcmp(m->bump_delta, "one"))
		return reply_int(reply, "bumps");
	if (!strcmp(m->bump_delta, "ret"))
		return reply_int(reply, "bumped");
	return reply_int(reply, "bumped") - reply_int(reply, "bumps");
}

static void run_mode(const struct mode *m)
{
	const char *extra[16] = { "--struct", "reg",
				  "--insert", "main.regInsert", "--delta", m->reg_delta,
				  "--remove", "main.regRemove", "--delta", m->reg_delta,
				  "--struct", "hits", "--insert", "main.bump", "--delta", m->bump_delta };
	const char *argv[20];
	char ran[512], *reply;
	struct session s;
	int n = 0;

	session_untraced(go_reg, ran, sizeof(ran));
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		argv[n++] = extra[i];
	if (!m->heap)
		argv[n++] = "--no-heap";
	if (m->probe_entry)
		argv[n++] = "--probe-entry";
	argv[n] = NULL;
	session_start_target(&s, go_reg, argv);
	reply = session_command(&s, "run\n");
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		cr_expect_eq(reply_int(reply, fixed[i]), reply_int(ran, fixed[i]),
			     "%s: the target computes what it does untraced (%s vs %s)",
			     fixed[i], reply, ran);
	cr_expect_gt(reply_int(reply, "entry_moves"), 0,
		     "some calls restarted through runtime.morestack (%s)", reply);
	session_settle(&s);
	cr_expect_eq(session_int(&s, "reg_insert_calls"), reply_int(reply, "inserts"),
		     "--delta %s: one count per insert call, restarted or not (%s)", m->reg_delta, reply);
	cr_expect_eq(session_int(&s, "reg_remove_calls"), reply_int(reply, "removes"),
		     "--delta %s: one count per remove call (%s)", m->reg_delta, reply);
	cr_expect_eq(session_int(&s, "reg_elements"), reply_int(reply, m->reg_tally),
		     "--delta %s: reg_elements equals the target's %s (%s)", m->reg_delta,
		     m->reg_tally, reply);
	cr_expect_eq(session_int(&s, "hits_insert_calls"), reply_int(reply, "bumps"),
		     "a leaf's calls, once each (%s)", reply);
	cr_expect_eq(session_int(&s, "hits_elements"), bump_tally(m, reply),
		     "--delta %s on the leaf bump (%s)", m->bump_delta, reply);
	cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "nothing unpaired");
	if (m->heap) {
		cr_expect_eq(session_int(&s, "heap_live_bytes"), 0,
			     "a Go program without cgo maps no malloc: no heap figures");
		cr_expect_eq(session_int(&s, "reg_bytes"), 0, "Go's allocations are not malloc's");
	}
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0 under memwatch");
	cr_expect_str_empty(proc_stderr(&s.target),
			    "the target says nothing on stderr under memwatch");
}

Test(go, one__calls_once_each_through_morestack, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "one", "one", "one", false, false });
}

Test(go, one_heap__the_program_untouched, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "one", "one", "one", true, false });
}

Test(go, one_probe_entry__still_past_the_stack_check, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "one", "one", "one", false, true });
}

/* argument 3 is the third parameter (name is a string: two registers) */
Test(go, arg3__the_third_parameter_by_dwarf, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "arg3", "arg1", "arg", false, false });
}

Test(go, arg3_heap__the_third_parameter_by_dwarf, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "arg3", "arg1", "arg", true, false });
}

/* no return probe: a goroutine's stack copy would abort the program */
Test(go, ret__read_at_the_return_instructions, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "ret", "ret", "ret", false, false });
}

Test(go, ret_heap__read_at_the_return_instructions, .timeout = MW_TIMEOUT)
{
	run_mode(&(struct mode){ "ret", "ret", "ret", true, false });
}

/* What cannot be read is refused with one line that names the function
 * and says why; the program is untouched. */
static void refused(const char *delta, const char *symbol, const char *why)
{
	const char *extra[] = { "--no-heap", "--struct", "reg", "--insert", symbol,
				"--delta", delta, NULL };
	struct session s;
	const char *err;

	session_spawn(&s, go_reg, extra, false);
	cr_expect_eq(proc_wait(&s.mw), 1, "--delta %s on %s: exit 1", delta, symbol);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "is Go code") && strstr(err, why),
		  "--delta %s on %s says [%s]: %s", delta, symbol, why, err);
	cr_expect_eq(strchr(err, '\n') - err + 1, (long)strlen(err), "one line: %s", err);
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

Test(go, arg_not_an_integer__refused_with_one_line, .timeout = MW_TIMEOUT)
{
	refused("arg2", "main.regInsert", "its parameter 2, 'name', is a string, in 2 registers");
	refused("arg1", "main.regInsert", "its parameter 1, 'r', is a *main.registry, not an integer");
	refused("arg4", "main.regInsert", "it has 3 parameters");
}

/* heap mode on a Go program says once what it sees there */
Test(go, heap_mode__says_what_it_sees, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "reg", "--insert", "main.regInsert", NULL };
	struct session s;
	const char *err, *line;

	session_start_target(&s, go_reg, extra);
	session_settle(&s);
	err = proc_stderr(&s.mw);
	line = strstr(err, "is a Go program (go1.");
	cr_expect(line && strstr(line, "no malloc (no cgo)") && strstr(line, "Go's own heap"),
		  "heap mode says it sees no Go allocation: %s", err);
	cr_expect(line && !strstr(line + 1, "is a Go program"), "said once: %s", err);
	cr_expect(strstr(err, "--insert 'main.regInsert': Go code allocates from Go's heap"),
		  "and that reg_bytes counts none of the insert's: %s", err);
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* ---------------------------------------------------------------- cgo */

static const char *const go_cgo[] = { TARGET("go_cgo"), NULL };

/* Live bytes the folded file at @path gives sites whose name has @site. */
static long long folded_bytes(const char *path, const char *site)
{
	char line[4096];
	long long sum = 0;
	FILE *f = fopen(path, "r");

	cr_assert(f, "memwatch wrote %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');

		if (sp && strstr(line, site))
			sum += atoll(sp + 1);
	}
	fclose(f);
	return sum;
}

/*
 * A cgo program: heap mode probes libc's malloc (its return probes are on
 * C frames, on the thread's own stack), sees the C blocks to the byte at
 * the cgo call's site, and says that Go's heap is not among them. The
 * structure functions are Go code among the C units of the DWARF (libdw's
 * address table covers only the C ones): read by Go's registers, and no
 * return probe on them.
 */
static void cgo_mode(bool heap)
{
	char folded[] = "/tmp/memwatch-go-folded-XXXXXX";
	const char *extra[16] = { "--struct", "c", "--insert", "main.keep", "--delta", "arg2",
				  "--remove", "main.drop", "--delta", "ret" };
	struct session s;
	char ran[256], *reply;
	const char *err;
	int n = 10, fd = mkstemp(folded);

	cr_assert(fd >= 0, "a temporary file");
	close(fd);
	extra[n++] = heap ? "--folded" : "--no-heap";
	if (heap)
		extra[n++] = folded;
	extra[n] = NULL;

	session_untraced(go_cgo, ran, sizeof(ran));
	session_start_target(&s, go_cgo, extra);
	reply = session_command(&s, "run\n");
	cr_expect_str_eq(reply, ran, "the target replies as it does untraced");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "c_insert_calls"), reply_int(reply, "keeps"), "keep calls");
	cr_expect_eq(session_int(&s, "c_remove_calls"), reply_int(reply, "drops"), "drop calls");
	cr_expect_eq(session_int(&s, "c_elements"), reply_int(reply, "live"),
		     "keep's argument 2 less drop's return values: the bytes held (%s)", reply);
	if (heap) {
		cr_expect_eq(folded_bytes(folded, "_Cfunc__Cmalloc"), reply_int(reply, "live"),
			     "C.malloc's site holds the C bytes held, exactly (%s)", reply);
		cr_expect_geq(session_int(&s, "heap_live_allocations"), reply_int(reply, "blocks"),
			      "every C block is live in the heap figures (%s)", reply);
		cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "every malloc paired");
		err = proc_stderr(&s.mw);
		cr_expect(strstr(err, "is a Go program (go1.") &&
			  strstr(err, "those of cgo and C libraries"),
			  "heap mode says what it sees: %s", err);
	}
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0 under memwatch");
	cr_expect_str_empty(proc_stderr(&s.target), "and says nothing on stderr");
	unlink(folded);
}

Test(go, cgo_heap__c_blocks_exact_program_untouched, .timeout = MW_TIMEOUT)
{
	cgo_mode(true);
}

Test(go, cgo_no_heap__ret_among_c_units, .timeout = MW_TIMEOUT)
{
	cgo_mode(false);
}
