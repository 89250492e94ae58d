// SPDX-License-Identifier: GPL-2.0
/*
 * test_lifecycle.c - how memwatch starts and ends: signals, target exit,
 * SIGKILL leaving no probe behind, --count and --output, and the exit
 * codes and messages of failures.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

/* With an hour between rows, a row at all is the final one. */
static void ends_with_final_row(int sig)
{
	const char *extra[] = { "-i", "3600", NULL };
	struct session s;
	int rows = 0;
	char *line;

	session_start(&s, "1", "1", extra);
	proc_kill(&s.mw, sig);
	for (; (line = proc_line(&s.mw)); rows++)	/* to memwatch's end */
		snprintf(s.row, sizeof(s.row), "%s", line);
	cr_expect_eq(rows, 1, "a final row after the signal");
	cr_expect_eq(proc_wait(&s.mw), 0, "signal %d ends memwatch with 0", sig);
	cr_expect_eq(csv_nfields(s.row), csv_nfields(s.header), "the final row is whole");
	session_stop(&s);
}

Test(lifecycle, sigterm__final_row_and_exit_0, .timeout = MW_TIMEOUT)
{
	ends_with_final_row(SIGTERM);
}

Test(lifecycle, sigint__final_row_and_exit_0, .timeout = MW_TIMEOUT)
{
	ends_with_final_row(SIGINT);
}

/* With an hour between rows, a final row at all means the exit was
 * noticed at once (its pidfd), not at the next tick. */
Test(lifecycle, target_exits__noticed_at_once_final_row_exit_0, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "-i", "3600", NULL };
	struct session s;
	char *row;

	session_start(&s, "1", "1", extra);
	proc_send(&s.target, "quit\n");
	row = proc_line(&s.mw);
	cr_assert(row, "a final row once the target exits, long before the next tick");
	cr_expect_eq(proc_wait(&s.mw), 0, "memwatch exits 0 when the target exits");
	cr_expect(strstr(proc_stderr(&s.mw), "exited"), "stderr says the target exited");
	session_stop(&s);
}

Test(lifecycle, sigkill__no_probe_left_behind, .timeout = MW_TIMEOUT)
{
	struct session s;
	int original;

	session_start(&s, "1", "1", NULL);
	original = 0;
	cr_assert_eq(peek_byte(s.target.pid, s.malloc_addr), 0xcc,
		     "malloc holds a breakpoint (int3) while memwatch runs");
	proc_kill(&s.mw, SIGKILL);
	cr_expect_eq(proc_wait(&s.mw), 128 + SIGKILL, "memwatch was killed");
	/* the kernel removes the probes when the last link fd closes */
	wait_until((original = peek_byte(s.target.pid, s.malloc_addr)) != 0xcc,
		   "the breakpoint to leave malloc");
	cr_expect_neq(original, 0xcc, "no breakpoint remains in malloc after SIGKILL");
	cr_expect_neq(original, -1, "the target's memory is readable");
	/* and the target still runs correctly */
	cr_expect(strstr(session_command(&s, "run\n"), "ran"), "the target keeps working");
	session_stop(&s);
}

Test(lifecycle, count_and_output__n_rows_in_file, .timeout = MW_TIMEOUT)
{
	char path[] = "/tmp/memwatch-test-XXXXXX", line[4096];
	const char *extra[3] = { "-n", "3", NULL };
	const char *targv[] = { TARGET("alloc_script"), "1", "1", NULL };
	struct proc target, mw;
	int fd = mkstemp(path), rows = 0;
	FILE *f;

	cr_assert_geq(fd, 0, "temp file");
	close(fd);
	proc_spawn(&target, targv);
	cr_assert(proc_line(&target), "target ready");
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.2", "-o", path, extra[0], extra[1], NULL };
	proc_spawn(&mw, argv);
	cr_expect_eq(proc_wait(&mw), 0, "memwatch -n 3 ends by itself with 0; stderr: %s",
		     proc_stderr(&mw));
	f = fopen(path, "r");
	cr_assert(f, "the output file exists");
	cr_expect(fgets(line, sizeof(line), f) && !strncmp(line, "timestamp,pid,", 14),
		  "the file starts with the header");
	while (fgets(line, sizeof(line), f))
		rows++;
	fclose(f);
	cr_expect_eq(rows, 3, "exactly 3 rows after the header");
	cr_expect_eq(proc_line(&mw), NULL, "nothing on stdout with --output");
	unlink(path);
	proc_send(&target, "quit\n");
	proc_wait(&target);
}

Test(cli, bad_options__exit_2_with_one_line, .timeout = MW_TIMEOUT)
{
	const char *const cases[][6] = {
		{ MEMWATCH, NULL },
		{ MEMWATCH, "-p", "abc", NULL },
		{ MEMWATCH, "-p", "1", "-i", "0", NULL },
		{ MEMWATCH, "-p", "1", "-i", "-1", NULL },
		{ MEMWATCH, "-p", "1", "-n", "x", NULL },
		{ MEMWATCH, "-p", "1", "--bogus", NULL },
		{ MEMWATCH, "-p", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *err;
		int code = run_memwatch(cases[i], &err);

		cr_expect_eq(code, 2, "case %zu: usage error exits 2", i);
		cr_expect(!strncmp(err, "memwatch: ", 10), "case %zu: message starts with memwatch: [%s]", i, err);
		cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "case %zu: exactly one line [%s]", i, err);
	}
}

Test(cli, no_such_process__exit_1, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { MEMWATCH, "-p", "4000000", NULL };
	const char *err;

	cr_expect_eq(run_memwatch(argv, &err), 1, "a pid that does not exist exits 1");
	cr_expect(strstr(err, "memwatch: no process with pid 4000000"), "says so: [%s]", err);
}

Test(cli, unprivileged__exit_1_names_capabilities, .timeout = MW_TIMEOUT)
{
	char pid[16];
	const char *argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
			       "--clear-groups", MEMWATCH, "-p", pid, NULL };
	const char *err;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	cr_assert(access(argv[0], X_OK) == 0, "setpriv is installed (util-linux)");
	cr_expect_eq(run_memwatch(argv, &err), 1, "an unprivileged run exits 1");
	cr_expect(strstr(err, "memwatch: not permitted") && strstr(err, "CAP_BPF"),
		  "names what is missing: [%s]", err);
}

Test(cli, help_and_version__exit_0, .timeout = MW_TIMEOUT)
{
	const char *help[] = { MEMWATCH, "--help", NULL }, *ver[] = { MEMWATCH, "-V", NULL };
	const char *err;

	cr_expect_eq(run_memwatch(help, &err), 0, "--help exits 0");
	cr_expect_eq(run_memwatch(ver, &err), 0, "-V exits 0");
}

/* execve: the probes belonged to the old image. memwatch says so,
 * re-attaches to the new one, and its figures restart from zero. */
Test(lifecycle, target_execs__reattached_and_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--top", "3", NULL };
	long long sites_before;
	struct session s;
	char *line;

	session_start(&s, "2", "10", extra);
	session_command(&s, "run\n");
	session_settle(&s);
	sites_before = session_int(&s, "sites");
	proc_send(&s.target, "exec\n");
	line = proc_line(&s.target);
	cr_assert(line && !strncmp(line, "ready", 5), "the new image starts");
	wait_until(strstr(proc_stderr(&s.mw), "re-attached"), "memwatch to say it re-attached");
	cr_assert(strstr(proc_stderr(&s.mw), "executed a new program"),
		  "stderr says the target executed a new program: [%s]", proc_stderr(&s.mw));
	/* after re-attach, the new image's tally */
	session_expect_tally(&s, session_command(&s, "run\n"));
	cr_expect_eq(session_int(&s, "sites"), sites_before,
		     "the old image's allocation sites are forgotten (same program, same sites)");
	session_stop(&s);
}

/* Two targets at once: each row carries its pid, each pid's figures are
 * its own. */
Test(lifecycle, two_pids__rows_per_pid_each_exact, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("alloc_script"), "1", "5", NULL };
	struct proc a, b, mw;
	char pa[16], pb[16], row[2][4096] = { "", "" }, header[4096], *line, *ra, *rb;
	long long want_a, want_b;
	int seen[2] = { 0, 0 };

	proc_spawn(&a, targv);
	proc_spawn(&b, (const char *[]){ TARGET("alloc_script"), "2", "9", NULL });
	cr_assert(proc_line(&a) && proc_line(&b), "both targets ready");
	snprintf(pa, sizeof(pa), "%d", (int)a.pid);
	snprintf(pb, sizeof(pb), "%d", (int)b.pid);
	const char *argv[] = { MEMWATCH, "-p", pa, "--pid", pb, "-i", "0.1", NULL };
	proc_spawn(&mw, argv);
	line = proc_line(&mw);
	cr_assert(line, "header");
	snprintf(header, sizeof(header), "%s", line);
	proc_send(&a, "run\n");
	proc_send(&b, "run\n");
	ra = strdup(proc_line(&a));
	rb = strdup(proc_line(&b));
	want_a = reply_int(ra, "live_bytes");
	want_b = reply_int(rb, "live_bytes");
	cr_assert_neq(want_a, want_b, "the two targets hold different amounts");
	proc_skip(&mw, NULL, 0);
	/* each pid's second row from now, sampled after the runs, however
	 * long a row takes */
	while ((seen[0] < 2 || seen[1] < 2) && (line = proc_line(&mw))) {
		int k = csv_int(header, line, "pid") == a.pid ? 0 :
			csv_int(header, line, "pid") == b.pid ? 1 : -1;

		if (k >= 0 && ++seen[k] == 2)
			snprintf(row[k], sizeof(row[k]), "%s", line);
	}
	cr_assert(row[0][0] && row[1][0], "rows for both pids");
	cr_expect_eq(csv_int(header, row[0], "heap_live_bytes"), want_a, "pid A's own figure (%s)", ra);
	cr_expect_eq(csv_int(header, row[1], "heap_live_bytes"), want_b, "pid B's own figure (%s)", rb);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	proc_send(&a, "quit\n");
	proc_send(&b, "quit\n");
	proc_wait(&a);
	proc_wait(&b);
	free(ra);
	free(rb);
}

/* Calls of process @pid's threads open in the newest memwatch's calls
 * array: the holder is each record's first 8 bytes, the process id its
 * high half. */
static long long open_calls(pid_t pid)
{
	char expr[64];

	snprintf(expr, sizeof(expr), "k >> 32 == %d", (int)pid);
	return newest_map_count("calls", expr);
}

/*
 * A thread killed inside malloc never returns from it: the calls array's
 * index its open call holds is let go by memwatch at the next interval,
 * while memwatch goes on watching the other process.
 */
Test(lifecycle, thread_killed_inside_malloc__its_call_let_go, .timeout = MW_TIMEOUT)
{
	struct proc a, b, mw;
	char pa[16], pb[16], *line;
	int held = -1;

	proc_spawn(&a, (const char *[]){ TARGET("stuck_alloc"), NULL });
	proc_spawn(&b, (const char *[]){ TARGET("alloc_script"), "1", "1", NULL });
	cr_assert(proc_line(&a) && proc_line(&b), "both targets ready");
	snprintf(pa, sizeof(pa), "%d", (int)a.pid);
	snprintf(pb, sizeof(pb), "%d", (int)b.pid);
	proc_spawn(&mw, (const char *[]){ MEMWATCH, "-p", pa, "-p", pb, "-i", "0.2", NULL });
	cr_assert(proc_line(&mw), "header");
	proc_send(&a, "stick\n");
	line = proc_line(&a);
	cr_assert(line && strstr(line, "stuck tid="), "the worker stopped inside mi_malloc");
	cr_expect_eq(open_calls(a.pid), 1, "its call open in the calls array");
	proc_kill(&a, SIGKILL);
	proc_wait(&a);
	wait_until((proc_skip(&mw, NULL, 0), held = open_calls(a.pid)) == 0,
		   "the dead thread's call to be let go (%d open)", held);
	cr_expect_eq(held, 0, "the dead thread's index let go");
	cr_expect(!proc_exited(&mw), "memwatch still watching the other process");
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	proc_send(&b, "quit\n");
	proc_wait(&b);
}
