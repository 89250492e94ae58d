// SPDX-License-Identifier: GPL-2.0
/*
 * test_read.c - structures read from outside (--read): integers found by
 * their DWARF types in the target's memory, through a global struct, a
 * pointer to a heap block that moves, an array index, and a static. The
 * target changes them from four threads; at each quiescent point the
 * figures equal its own, and a walk that cannot finish (a NULL pointer)
 * is counted and marked incomplete, never a wrong figure.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "session.h"

static const char *const read_c[] = { TARGET("read_c"), NULL };
static const char *const read_c_nodebug[] = { TARGET("read_c.nodebug"), NULL };

static void field(struct session *s, const char *column, char *out, size_t len)
{
	int c = csv_col(s->header, column);

	cr_assert(c >= 0 && csv_field(s->row, c, out, len), "column %s is there: %s", column,
		  s->header);
}

/* Structure @name read whole this interval, with @want. */
static void expect_read(struct session *s, const char *name, long long want, const char *reply)
{
	char col[96];

	snprintf(col, sizeof(col), "%s_length", name);
	cr_expect_eq(session_int(s, col), want, "%s equals the target's (%s)", col, reply);
	snprintf(col, sizeof(col), "%s_read_complete", name);
	cr_expect_eq(session_int(s, col), 1, "%s: the walk completed", name);
	snprintf(col, sizeof(col), "%s_retained_bytes", name);
	cr_expect_eq(session_int(s, col), 0, "%s: an integer owns no memory", name);
	snprintf(col, sizeof(col), "%s_roots", name);
	cr_expect_eq(session_int(s, col), 1, "%s: one root, a global", name);
	snprintf(col, sizeof(col), "%s_read_errors", name);
	cr_expect_eq(session_int(s, col), 0, "%s: no failed walk", name);
}

Test(read, c_integers__exact_at_each_quiescent_point, .timeout = 120)
{
	const char *extra[] = { "--no-heap",
				"--struct", "count2", "--read", "srv.tab->shard[2].count",
				"--struct", "gen", "--read", "srv.generation",
				"--struct", "level", "--read", "level", NULL };
	struct session s;
	char *reply, v[64];
	const char *err;

	session_start_target(&s, read_c, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "--read 'srv.tab->shard[2].count' reads srv (long int)"),
		  "says what it reads, and its type: %s", err);
	for (int round = 0; round < 3; round++) {
		reply = session_command(&s, "run 20000\n");
		session_settle(&s);
		expect_read(&s, "count2", reply_int(reply, "count2"), reply);
		expect_read(&s, "gen", reply_int(reply, "generation"), reply);
		expect_read(&s, "level", reply_int(reply, "level"), reply);
		if (round == 1) {	/* the table moves: the pointer is read anew */
			reply = session_command(&s, "swap\n");
			session_settle(&s);
			expect_read(&s, "count2", reply_int(reply, "count2"), reply);
		}
	}
	cr_expect_lt(session_int(&s, "level_length"), 0, "a signed int read as one");
	session_command(&s, "drop\n");
	session_settle(&s);
	field(&s, "count2_length", v, sizeof(v));
	cr_expect_str_empty(v, "a walk through NULL gives no figure, not a stale one");
	cr_expect_eq(session_int(&s, "count2_read_complete"), 0, "and is marked incomplete");
	cr_expect_gt(session_int(&s, "count2_read_errors"), 0, "and counted");
	cr_expect_eq(session_int(&s, "gen_read_complete"), 1, "the other structures go on");
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* The same figures as OpenMetrics families, with the struct label. */
Test(read, openmetrics__length_and_errors_families, .timeout = 60)
{
	const char *targv[] = { TARGET("read_c"), NULL };
	struct proc t, mw;
	char pid[16], want[160], *line, *reply;
	bool length = false, errors = false;

	proc_spawn(&t, targv);
	cr_assert(proc_line(&t, 10000), "target ready");
	proc_send(&t, "run 5000\n");
	reply = proc_line(&t, 30000);
	cr_assert(reply, "ran");
	snprintf(want, sizeof(want), "struct=\"gen\"} %lld", reply_int(reply, "generation"));
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "--no-heap", "-n", "1", "-f", "openmetrics",
			       "--struct", "gen", "--read", "srv.generation", NULL };
	proc_spawn(&mw, argv);
	while ((line = proc_line(&mw, 20000)) && strcmp(line, "# EOF")) {
		if (!strncmp(line, "memwatch_struct_length{", 23))
			length = strstr(line, want) != NULL;
		if (!strncmp(line, "memwatch_struct_read_errors_total{", 34))
			errors = strstr(line, "struct=\"gen\"} 0") != NULL;
	}
	cr_expect(length, "memwatch_struct_length ...%s", want);
	cr_expect(errors, "memwatch_struct_read_errors_total at 0");
	cr_expect_eq(proc_wait(&mw, 10000), 0, "exit 0: %s", proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t, 5000);
}

/* What cannot be read is said in one line, exit 1; the target runs on. */
static void refused(const char *const targv[], const char *expr, const char *why)
{
	const char *extra[] = { "--no-heap", "--struct", "x", "--read", expr, NULL };
	struct session s;
	const char *err;

	session_spawn(&s, targv, extra, false);
	cr_expect_eq(proc_wait(&s.mw, 30000), 1, "--read '%s': exit 1", expr);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, why), "--read '%s' says [%s]: %s", expr, why, err);
	cr_expect_eq(strchr(err, '\n') - err + 1, (long)strlen(err), "one line: %s", err);
	session_stop(&s);
}

Test(read, what_cannot_be_read__one_line_exit_1, .timeout = 120)
{
	refused(read_c, "srv.nosuch", "has no member nosuch");
	refused(read_c, "srv.name", "names a pointer");
	refused(read_c, "srv.tab->shard[9].count", "past the end");
	refused(read_c, "nosuchvariable", "no such variable");
	refused(read_c_nodebug, "srv.generation", "has no debug information");
}

Test(read, bad_expressions__usage_error, .timeout = 30)
{
	static const char *const cases[][2] = {
		{ "srv..x", "a field's name expected" },
		{ "srv[x]", "an index (a number) expected" },
		{ "srv.tab->", "a field's name expected" },
		{ "3srv", "a variable's name expected" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { MEMWATCH, "-p", "1", "--struct", "x", "--read", cases[i][0], NULL };
		const char *err;

		cr_expect_eq(run_memwatch(argv, &err), 2, "--read '%s': exit 2", cases[i][0]);
		cr_expect(strstr(err, cases[i][1]), "--read '%s' says [%s]: %s", cases[i][0],
			  cases[i][1], err);
	}
}
