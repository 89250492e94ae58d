// SPDX-License-Identifier: GPL-2.0
/*
 * test_shared.c - the probes of a kernel without multi-uprobe links
 * (MEMWATCH_NO_MULTI=1 attaches as on Linux 6.1, on any kernel): tracefs
 * uprobe events that every watched process shares (probes/tracefs.c).
 * Two processes of one program are each exact under one set of events;
 * the events are gone after exit; a second memwatch leaves the first's
 * alone, and events a memwatch left behind when it was killed are
 * removed by the next.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define EVENTS "/sys/kernel/tracing/uprobe_events"

/* The shared mechanism, with tracefs where memwatch would mount it. */
static void shared_mode(void)
{
	setenv("MEMWATCH_NO_MULTI", "1", 1);
	if (access(EVENTS, W_OK))
		cr_assert_eq(system("mount -t tracefs tracefs /sys/kernel/tracing"), 0,
			     "tracefs mounts");
	cr_assert(strstr(kernel_mechanism(), "shared tracefs events"),
		  "MEMWATCH_NO_MULTI=1 chooses the shared events: %s", kernel_mechanism());
}

/* How many uprobe events group memwatch_@pid has. */
static int events_of(pid_t pid)
{
	char group[32], line[4096];
	int n = 0;
	FILE *f;

	snprintf(group, sizeof(group), ":memwatch_%d/", (int)pid);
	f = fopen(EVENTS, "r");
	cr_assert(f, "%s is readable", EVENTS);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, group) != NULL;
	fclose(f);
	return n;
}

/* Appends @line to uprobe_events. */
static void define_event(const char *line)
{
	int fd = open(EVENTS, O_WRONLY | O_APPEND);

	cr_assert_geq(fd, 0, "%s opens", EVENTS);
	cr_assert_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line), "defined: %s", line);
	close(fd);
}

/* memwatch -p each of @pids (@n), its header read into @header. */
static void watch(struct proc *mw, const pid_t *pids, int n, char *header, size_t len)
{
	const char *argv[16] = { MEMWATCH, "-i", "0.1" };
	char pid[4][16];
	int k = 3;

	for (int i = 0; i < n; i++) {
		snprintf(pid[i], sizeof(pid[i]), "%d", (int)pids[i]);
		argv[k++] = "-p";
		argv[k++] = pid[i];
	}
	argv[k] = NULL;
	proc_spawn(mw, argv);
	char *line = proc_line(mw);

	cr_assert(line, "header: %s", proc_stderr(mw));
	snprintf(header, len, "%s", line);
}

/* Each of @n targets' heap_live_bytes in rows sampled after now (the
 * second row of each pid from now), into @got. */
static void rows_after(struct proc *mw, const char *header, const pid_t *pids, int n,
		       long long *got)
{
	int seen[4] = { 0 }, done = 0;
	char *line;

	proc_skip(mw, NULL, 0);
	while (done < n && (line = proc_line(mw)))
		for (int k = 0; k < n; k++)
			if (csv_int(header, line, "pid") == pids[k] && ++seen[k] == 2) {
				got[k] = csv_int(header, line, "heap_live_bytes");
				done++;
			}
	cr_assert_eq(done, n, "rows for all %d processes: %s", n, proc_stderr(mw));
}

static void quit(struct proc *t)
{
	proc_send(t, "quit\n");
	proc_wait(t);
}

/*
 * One process first, to count its events; then it and a second process
 * of the same program, whose probes join the same events: as many
 * events, each process's figure its own tally exactly, none left after.
 */
Test(shared, two_processes__one_set_of_events_each_exact, .timeout = MW_TIMEOUT)
{
	struct proc a, b, mw;
	char header[4096];
	long long want[2], got[2];
	pid_t pids[2];
	int one;

	shared_mode();
	proc_spawn(&a, (const char *[]){ TARGET("alloc_script"), "1", "5", NULL });
	proc_spawn(&b, (const char *[]){ TARGET("alloc_script"), "2", "9", NULL });
	cr_assert(proc_line(&a) && proc_line(&b), "both targets ready");
	pids[0] = a.pid;
	pids[1] = b.pid;

	watch(&mw, pids, 1, header, sizeof(header));
	one = events_of(mw.pid);
	cr_assert_gt(one, 0, "one process's probes are tracefs events");
	proc_kill(&mw, SIGTERM);
	cr_assert_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	cr_expect_eq(events_of(mw.pid), 0, "its events are removed at exit");

	watch(&mw, pids, 2, header, sizeof(header));
	rows_after(&mw, header, pids, 2, got);	/* both attached */
	cr_expect_eq(events_of(mw.pid), one, "two processes share the %d events of one", one);
	proc_send(&a, "run\n");
	proc_send(&b, "run\n");
	want[0] = reply_int(proc_line(&a), "live_bytes");
	want[1] = reply_int(proc_line(&b), "live_bytes");
	cr_assert_neq(want[0], want[1], "the two targets hold different amounts");
	rows_after(&mw, header, pids, 2, got);
	cr_expect_eq(got[0], want[0], "pid A's own figure");
	cr_expect_eq(got[1], want[1], "pid B's own figure");
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	cr_expect_eq(events_of(mw.pid), 0, "no event left after exit");
	quit(&a);
	quit(&b);
}

/*
 * Events of a memwatch that is gone (killed: it removed nothing), and
 * of a pid that is no memwatch, are removed by the next memwatch; a
 * running memwatch's stay, and it stays exact.
 */
Test(shared, stale_events__removed_running_ones_kept, .timeout = MW_TIMEOUT)
{
	struct proc t, first, second;
	char header[4096], line[128];
	long long got;
	pid_t gone;
	int had;

	shared_mode();
	gone = fork();
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(line, sizeof(line), "p:memwatch_%d/e0 /bin/true:0x0\n", (int)gone);
	define_event(line);
	snprintf(line, sizeof(line), "p:memwatch_%d/e0 /bin/true:0x0\n", (int)getpid());
	define_event(line);

	proc_spawn(&t, (const char *[]){ TARGET("alloc_script"), "1", "5", NULL });
	cr_assert(proc_line(&t), "target ready");
	watch(&first, &t.pid, 1, header, sizeof(header));
	cr_expect_eq(events_of(gone), 0, "a gone memwatch's event is removed");
	cr_expect_eq(events_of(getpid()), 0, "so is one of a pid that is no memwatch");
	had = events_of(first.pid);
	cr_assert_gt(had, 0, "the first memwatch's events");

	watch(&second, &t.pid, 1, header, sizeof(header));
	proc_kill(&second, SIGTERM);
	cr_expect_eq(proc_wait(&second), 0, "the second exits 0: %s", proc_stderr(&second));
	cr_expect_eq(events_of(first.pid), had, "the first's %d events stay", had);

	proc_send(&t, "run\n");
	long long want = reply_int(proc_line(&t), "live_bytes");

	rows_after(&first, header, &t.pid, 1, &got);
	cr_expect_eq(got, want, "the first memwatch stays exact");
	proc_kill(&first, SIGKILL);
	proc_wait(&first);
	cr_expect_eq(events_of(first.pid), had, "killed, it removed nothing");
	watch(&second, &t.pid, 1, header, sizeof(header));
	cr_expect_eq(events_of(first.pid), 0, "the next memwatch removes them");
	proc_kill(&second, SIGTERM);
	cr_expect_eq(proc_wait(&second), 0, "exit 0: %s", proc_stderr(&second));
	quit(&t);
}
