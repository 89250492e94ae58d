// SPDX-License-Identifier: GPL-2.0
/*
 * test_launch.c - launch mode, memwatch [options] -- CMD: the program is
 * started by memwatch with every probe in before its first instruction,
 * so a structure it fills before it reads anything (before anyone could
 * attach by pid) is counted from birth; a library it dlopens later is
 * probed before it runs; it keeps its stdio, its signals and its exit
 * status (125 memwatch, 126 cannot execute, 127 not found, 128+N).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "memwatch.h"

/* each test its own feed: tests may run side by side */
static char feed_path[64];
#define FEED (feed_path[0] ? feed_path : \
	      (snprintf(feed_path, sizeof(feed_path), "/tmp/memwatch-launch-%d.csv", \
			(int)getpid()), feed_path))

struct launched {
	struct proc mw;		/* memwatch; its stdout is the program's */
	char header[8192], row[8192];
	long long reg, reg_bytes;
	pid_t pid;
};

/* memwatch @opts... -- launch_target N [STATUS], the feed in FEED; waits
 * for the program's tally and memwatch's first rows. */
static void launch_as(struct launched *l, const char *target, const char *const targs[],
		      const char *const extra[]);

static void launch(struct launched *l, const char *n, const char *status,
		   const char *const extra[])
{
	const char *targs[] = { n, status, NULL };

	launch_as(l, TARGET("launch_target"), targs, extra);
}

static void launch_as(struct launched *l, const char *target, const char *const targs[],
		      const char *const extra[])
{
	const char *argv[32] = { MEMWATCH, "-i", "0.1", "-o", FEED, "--struct", "reg",
				 "--insert", "reg_add", "--struct", "plugin",
				 "--insert", "plugin_add" };
	int k = 13;
	char *line;

	unlink(FEED);
	for (int i = 0; extra && extra[i]; i++)
		argv[k++] = extra[i];
	argv[k++] = "--";
	argv[k++] = target;
	for (int i = 0; targs[i]; i++)
		argv[k++] = targs[i];
	argv[k] = NULL;
	proc_spawn(&l->mw, argv);
	line = proc_line(&l->mw);
	cr_assert(line && !strncmp(line, "filled", 6), "the program runs, on memwatch's stdout: [%s] %s",
		  line ? line : "", proc_stderr(&l->mw));
	l->reg = reply_int(line, "reg");
	l->reg_bytes = reply_int(line, "bytes");
	l->pid = (pid_t)reply_int(line, "pid");
	cr_assert(file_wait_rows(FEED, 2, l->header, sizeof(l->header), l->row,
				 sizeof(l->row)) >= 2, "rows in the feed: %s", proc_stderr(&l->mw));
}

/* The feed's newest row, written after now. */
static void settle(struct launched *l)
{
	int n = file_rows(FEED, l->header, sizeof(l->header), l->row, sizeof(l->row));

	cr_assert(file_wait_rows(FEED, n + 2, l->header, sizeof(l->header), l->row,
				 sizeof(l->row)) >= n + 2, "the feed goes on");
}

static long long col(struct launched *l, const char *name)
{
	return csv_int(l->header, l->row, name);
}

Test(launch, structure_filled_before_any_attach__counted_from_birth, .timeout = MW_TIMEOUT)
{
	struct launched l;

	launch(&l, "300", "5", NULL);
	settle(&l);
	cr_expect_eq(col(&l, "pid"), l.pid, "the rows are the program's");
	cr_expect_eq(l.reg, 300, "the program's own tally");
	cr_expect_eq(col(&l, "reg_elements"), l.reg, "every element since birth");
	cr_expect_eq(col(&l, "reg_bytes"), l.reg_bytes, "every byte since birth");
	cr_expect_eq(col(&l, "heap_untracked_frees"), 0, "no free of a block from before the probes");
	cr_expect_eq(col(&l, "lost_unpaired"), 0, "nothing lost");
	cr_expect_geq(col(&l, "heap_live_bytes"), l.reg_bytes, "the heap holds them");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 5, "memwatch exits with the program's status");
	file_rows(FEED, l.header, sizeof(l.header), l.row, sizeof(l.row));
	cr_expect_eq(col(&l, "reg_elements"), 300, "a final row after the program exited");
}

/* Threads that end give glibc's per-thread malloc cache back with free
 * (the chunks the program freed already, and the cache glibc allocated
 * inside malloc): not a free of the program's, so no untracked free in
 * any row, the final one included. */
Test(launch, threads_that_end__no_untracked_free, .timeout = MW_TIMEOUT)
{
	struct launched l;
	char *line;

	launch(&l, "50", "0", NULL);
	proc_send(&l.mw, "threads 12\n");
	line = proc_line(&l.mw);
	cr_assert(line && !strcmp(line, "threads done=12"), "the threads ran: [%s]", line ? line : "");
	settle(&l);
	cr_expect_eq(col(&l, "heap_untracked_frees"), 0, "none while it runs");
	cr_expect_eq(col(&l, "heap_alloc_calls") - col(&l, "heap_free_calls"),
		     col(&l, "heap_live_allocations"), "every free paired with its block");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 0, "the program's status");
	file_rows(FEED, l.header, sizeof(l.header), l.row, sizeof(l.row));
	cr_expect_eq(col(&l, "heap_untracked_frees"), 0, "none in the final row either");
	cr_expect_eq(col(&l, "lost_unpaired"), 0, "nothing lost");
}

/* The plugin's reply to its K calls: waits for it, then checks that the
 * feed counted every call and exactly the bytes the plugin allocated. */
static void expect_plugin_counted(struct launched *l, int k)
{
	char *line = proc_line(&l->mw);
	long long bytes;

	cr_assert(line && !strncmp(line, "plugin", 6), "the plugin ran: [%s]", line ? line : "");
	cr_assert_eq(reply_int(line, "elements"), k, "the plugin made %d calls", k);
	bytes = reply_int(line, "bytes");
	settle(l);
	cr_expect_eq(col(l, "plugin_elements"), k, "every call into the library");
	cr_expect_eq(col(l, "plugin_bytes"), bytes, "its allocations, exactly");
}

/* A structure in a library the loader maps at start: probed before the
 * program's first instruction too. */
Test(launch, structure_in_a_startup_library__counted_from_birth, .timeout = MW_TIMEOUT)
{
	const char *targs[] = { "5", "0", "plugin", "30", NULL };
	struct launched l;

	launch_as(&l, TARGET("launch_target_linked"), targs, NULL);
	cr_expect_not(strstr(proc_stderr(&l.mw), "not in pid"),
		      "the startup library's function is found at once: %s", proc_stderr(&l.mw));
	expect_plugin_counted(&l, 30);
	cr_expect_eq(col(&l, "reg_elements"), 5, "and the executable's");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 0, "exit 0");
}

Test(launch, library_dlopened_later__probed_before_it_runs, .timeout = MW_TIMEOUT)
{
	struct launched l;

	launch(&l, "10", "0", NULL);
	cr_expect(strstr(proc_stderr(&l.mw), "--insert 'plugin_add': not in pid") &&
		  strstr(proc_stderr(&l.mw), "probed when a library that defines it is loaded"),
		  "says the function is not there yet: %s", proc_stderr(&l.mw));
	settle(&l);
	cr_expect_eq(col(&l, "plugin_elements"), 0, "nothing before the library");
	proc_send(&l.mw, "load 40\n");
	expect_plugin_counted(&l, 40);
	cr_expect_eq(col(&l, "reg_elements"), 10, "the rest unchanged");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 0, "exit 0 as the program");
}

/* --stacks walks by the objects' unwind tables: a library dlopened later
 * gets its table when memwatch sees it loaded, so the stacks through it
 * are whole, from the program's main to the library's function. */
Test(launch, library_dlopened_later__its_stacks_whole, .timeout = MW_TIMEOUT)
{
	static char text[1 << 16], copy[1 << 16];
	char folded[96], *line, *save = NULL;
	const char *extra[] = { "--stacks", "--folded", folded, NULL };
	struct launched l;
	bool whole = false;
	size_t n;
	FILE *f;

	snprintf(folded, sizeof(folded), "/tmp/memwatch-launch-%d.folded", (int)getpid());
	launch(&l, "10", "0", extra);
	proc_send(&l.mw, "load 40\n");
	expect_plugin_counted(&l, 40);
	settle(&l);
	f = fopen(folded, "r");
	cr_assert(f, "the folded stacks are written");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	memcpy(copy, text, n + 1);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		whole |= strstr(line, "launch_target`main;") && strstr(line, ";libplugin.so`plugin_add ");
	cr_expect(whole, "a stack from main into the dlopened library's plugin_add: [%s]", text);
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 0, "exit 0 as the program");
	unlink(folded);
}

/* Whether process @pid is stopped (state T). */
static bool stopped(pid_t pid)
{
	char path[64], stat[512], *paren;
	bool yes;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	yes = fgets(stat, sizeof(stat), f) && (paren = strrchr(stat, ')')) && paren[1] == ' ' &&
	      paren[2] == 'T';
	fclose(f);
	return yes;
}

/* The ring buffer full (memwatch stopped while the program forks 15,000
 * children), the library-load event of a dlopen is lost with the rest:
 * the program, held at its loader's hook, is still probed and let go
 * within an interval, and the library's calls are counted exactly. */
Test(launch, library_load_event_lost__still_probed_and_let_go, .timeout = MW_TIMEOUT)
{
	struct launched l;
	char *line;

	launch(&l, "10", "0", NULL);
	settle(&l);
	proc_kill(&l.mw, SIGSTOP);
	proc_send(&l.mw, "forks 15000\n");
	line = proc_line(&l.mw);
	cr_assert(line && reply_int(line, "made") == 15000, "15000 children: [%s]", line ? line : "");
	proc_send(&l.mw, "load 40\n");
	cr_assert(wait_until(stopped(l.pid), "pid %d to stop at its loader's hook", (int)l.pid),
		  "it stops at its loader's hook, its event lost");
	proc_kill(&l.mw, SIGCONT);
	expect_plugin_counted(&l, 40);
	cr_expect_eq(col(&l, "lost_events"), 15000 + 1 - MW_EVENTS_BYTES / (8 + (long long)sizeof(struct mw_event)),
		     "the fork events that did not fit, and the library-load event");
	cr_expect_eq(col(&l, "reg_elements"), 10, "the rest unchanged");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 0, "exit 0 as the program");
}

Test(launch, sigterm_to_memwatch__passed_on_then_final_row, .timeout = MW_TIMEOUT)
{
	struct launched l;
	int rows;

	launch(&l, "20", "0", NULL);
	proc_send(&l.mw, "sleep\n");
	proc_kill(&l.mw, SIGTERM);
	cr_expect_eq(proc_wait(&l.mw), 128 + SIGTERM, "the program was killed by SIGTERM: 143");
	rows = file_rows(FEED, l.header, sizeof(l.header), l.row, sizeof(l.row));
	cr_expect_geq(rows, 2, "rows");
	cr_expect_eq(col(&l, "reg_elements"), 20, "the final row, after the program's exit");
}

Test(launch, count_reached__detaches_and_waits_for_the_program, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "-n", "3", NULL };
	struct launched l;
	char *line;

	launch(&l, "20", "9", extra);
	/* detached once the count is reached: no breakpoint left */
	cr_assert(wait_until(text_changes(l.pid, NULL, 0) == 0,
			     "memwatch to take its probes out of pid %d", (int)l.pid),
		  "detached after --count rows: %s", proc_stderr(&l.mw));
	cr_expect_eq(file_rows(FEED, l.header, sizeof(l.header), l.row, sizeof(l.row)), 3,
		     "exactly --count rows");
	cr_expect_eq(kill(l.pid, 0), 0, "the program still runs");
	cr_expect_eq(kill(l.mw.pid, 0), 0, "memwatch waits for it");
	proc_send(&l.mw, "load 5\n");
	line = proc_line(&l.mw);
	cr_expect(line && !strncmp(line, "plugin", 6), "the program works unprobed: [%s]",
		  line ? line : "");
	proc_send(&l.mw, "quit\n");
	cr_expect_eq(proc_wait(&l.mw), 9, "then exits with its status");
}

/* One run of memwatch -o FEED @args... (options, --, the command); its
 * exit code and stderr. */
static int run_opts(const char *const args[], const char **err)
{
	static struct proc p;
	const char *argv[24] = { MEMWATCH, "-o", FEED };
	int k = 3, rc;

	for (int i = 0; args[i]; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	proc_spawn(&p, argv);
	rc = proc_wait(&p);
	*err = proc_stderr(&p);
	return rc;
}

/* One run of memwatch -o FEED -- @cmd... */
static int run_cmd(const char *const cmd[], const char **err)
{
	const char *args[16] = { "--" };
	int k = 1;

	for (int i = 0; cmd[i]; i++)
		args[k++] = cmd[i];
	args[k] = NULL;
	return run_opts(args, err);
}

Test(launch, exit_status__like_env, .timeout = MW_TIMEOUT)
{
	const char *err;

	cr_expect_eq(run_cmd((const char *[]){ "/nonexistent/prog", NULL }, &err), 127, "not found: 127");
	cr_expect(strstr(err, "memwatch: cannot run '/nonexistent/prog': No such file"), "%s", err);
	char noexec[64];
	FILE *f;

	snprintf(noexec, sizeof(noexec), "/tmp/memwatch-noexec-%d", (int)getpid());
	f = fopen(noexec, "w");
	cr_assert(f, "a file to run");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(noexec, 0644);
	cr_expect_eq(run_cmd((const char *[]){ noexec, NULL }, &err), 126, "not executable: 126");
	unlink(noexec);
	cr_expect(strstr(err, "Permission denied"), "%s", err);
	cr_expect_eq(run_cmd((const char *[]){ "sh", "-c", "kill -KILL $$", NULL }, &err), 128 + 9,
		     "killed by SIGKILL: 137");
	cr_expect_eq(run_cmd((const char *[]){ "sh", "-c", "exit 42", NULL }, &err), 42,
		     "the program's own status");
	cr_expect_eq(run_cmd((const char *[]){ "true", NULL }, &err), 0, "found in PATH");
}

/* memwatch fails on the program's first attach (an allocator it does not
 * map): the program, held at its loader's hook, never runs its own code,
 * not even a constructor. Once in a few runs it did: it was let go before
 * the failure ended it. */
Test(launch, first_attach_fails__program_never_runs_its_code, .timeout = MW_TIMEOUT)
{
	char mark[64], cmd[128];
	const char *err;

	snprintf(mark, sizeof(mark), "/tmp/memwatch-ran-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "echo ran > %s", mark);
	unlink(mark);
	for (int i = 0; i < 10; i++) {
		const char *argv[] = { "--allocator", "/nonexistent/liballoc.so", "--", "sh", "-c",
				       cmd, NULL };

		cr_expect_eq(run_opts(argv, &err), 125, "memwatch failed: 125 (%s)", err);
		cr_expect(strstr(err, "maps no such object"), "saying why: %s", err);
	}
	cr_expect_neq(access(mark, F_OK), 0, "the program never ran a line of its own");
	unlink(mark);
}

/* A program that ends at once still gets its row, and no false word that
 * it ended before the attach. */
Test(launch, short_lived_program__its_row_every_time, .timeout = MW_TIMEOUT)
{
	char header[8192], row[8192];
	const char *err;

	for (int i = 0; i < 20; i++) {
		const char *argv[] = { "-i", "0.5", "--", "sh", "-c", "exit 3", NULL };

		cr_expect_eq(run_opts(argv, &err), 3, "the program's status");
		cr_expect_null(strstr(err, "before memwatch could attach"), "run %d: %s", i, err);
		cr_expect_eq(file_rows(FEED, header, sizeof(header), row, sizeof(row)), 1,
			     "run %d: the final row, once", i);
		cr_expect_eq(csv_int(header, row, "heap_attached"), 1, "run %d: observed", i);
	}
}

/* --listen and no -o: the feed goes over HTTP alone; stdout is the
 * program's, with nothing of memwatch's in it. */
Test(launch, listen_alone__stdout_is_the_programs, .timeout = MW_TIMEOUT)
{
	char port[16];
	const char *argv[] = { MEMWATCH, "-i", "0.1", "-l", port, "--", "sh", "-c",
			       "echo program-output; sleep 0.5", NULL };
	struct proc p;
	char *line;

	snprintf(port, sizeof(port), "%d", free_port());
	proc_spawn(&p, argv);
	line = proc_line(&p);
	cr_expect(line && !strcmp(line, "program-output"), "the program's line first: [%s]",
		  line ? line : "");
	line = proc_line(&p);
	cr_expect_null(line, "and nothing else: [%s]", line ? line : "");
	cr_expect_eq(proc_wait(&p), 0, "its status: %s", proc_stderr(&p));
}

Test(launch, bad_input__exit_2_one_line, .timeout = MW_TIMEOUT)
{
	const char *no_out[] = { MEMWATCH, "--", "true", NULL };
	const char *no_cmd[] = { MEMWATCH, "-o", FEED, "--", NULL };
	const char *bad_user[] = { MEMWATCH, "-o", FEED, "--user", "no-such-user-x", "--", "true", NULL };
	struct proc p;

	proc_spawn(&p, no_out);
	cr_expect_eq(proc_wait(&p), 2, "no -o or --listen: 2");
	cr_expect(strstr(proc_stderr(&p), "memwatch: in launch mode the program keeps stdout"),
		  "%s", proc_stderr(&p));
	proc_spawn(&p, no_cmd);
	cr_expect_eq(proc_wait(&p), 2, "-- alone: 2");
	cr_expect(strstr(proc_stderr(&p), "memwatch: -- needs a command"), "%s", proc_stderr(&p));
	proc_spawn(&p, bad_user);
	cr_expect_eq(proc_wait(&p), 2, "no such user: 2");
	cr_expect(strstr(proc_stderr(&p), "memwatch: --user 'no-such-user-x': no such user"),
		  "%s", proc_stderr(&p));
}

/* --user: the program is that user, with none of memwatch's capabilities. */
Test(launch, user__runs_as_that_user_without_capabilities, .timeout = MW_TIMEOUT)
{
	const char *argv[] = { MEMWATCH, "-o", FEED, "--user", "nobody", "--", "sh", "-c",
			       "id -u; grep -E '^Cap(Eff|Prm|Amb)' /proc/self/status", NULL };
	struct proc p;
	char *line;
	int caps = 0;

	proc_spawn(&p, argv);
	line = proc_line(&p);
	cr_assert(line, "output: %s", proc_stderr(&p));
	cr_expect_str_eq(line, "65534", "uid of nobody");
	while ((line = proc_line(&p))) {
		cr_expect(strstr(line, "0000000000000000"), "no capability: %s", line);
		caps++;
	}
	cr_expect_eq(caps, 3, "CapEff, CapPrm, CapAmb read");
	cr_expect_eq(proc_wait(&p), 0, "exit 0");
}
