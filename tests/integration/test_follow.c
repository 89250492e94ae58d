// SPDX-License-Identifier: GPL-2.0
/*
 * test_follow.c - follow mode (--exe, --comm, --cgroup): every matching
 * process, those running at start and those that start later, through a
 * restart, in a cgroup v2 or not, forked children, 256 at once; and an
 * unwatched child of a --pid target running at untraced speed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "session.h"
#include "memwatch.h"

static char feed[64];

static const char *feed_path(void)
{
	snprintf(feed, sizeof(feed), "/tmp/memwatch-follow-%d.csv", (int)getpid());
	return feed;
}

/* The feed's last row for @pid into @row; false if it has none. */
static bool row_of(pid_t pid, char *header, size_t hlen, char *row, size_t rlen)
{
	FILE *f = fopen(feed, "r");
	char line[8192];
	bool found = false;
	int n = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (!len || line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (n++ == 0) {
			snprintf(header, hlen, "%s", line);
			continue;
		}
		if (csv_int(header, line, "pid") == pid) {
			snprintf(row, rlen, "%s", line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* How many rows the feed has for @pid. */
static int rows_for(pid_t pid)
{
	FILE *f = fopen(feed, "r");
	char header[8192], line[8192];
	int n = 0, rows = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (!len || line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (n++ == 0)
			snprintf(header, sizeof(header), "%s", line);
		else
			rows += csv_int(header, line, "pid") == pid;
	}
	fclose(f);
	return rows;
}

/* Waits until the feed has a row for @pid sampled after now, into @row:
 * the second written from now (the first may have been sampled before,
 * but memwatch samples and writes one interval after another). */
static bool wait_row(pid_t pid, char *header, size_t hlen, char *row, size_t rlen)
{
	int n = rows_for(pid);

	if (!wait_until(rows_for(pid) >= n + 2, "two more rows for pid %d in %s", (int)pid, feed))
		return false;
	return row_of(pid, header, hlen, row, rlen);
}

static void start_memwatch(struct proc *mw, const char *const opts[])
{
	const char *argv[32] = { MEMWATCH, "-i", "0.1", "-o", feed_path(), "--struct", "reg",
				 "--insert", "reg_add" };
	int k = 9;

	unlink(feed);
	for (int i = 0; opts[i]; i++)
		argv[k++] = opts[i];
	argv[k] = NULL;
	proc_spawn(mw, argv);
}

/* Starts launch_target 0, waits until memwatch follows it (rows for its
 * pid), fills @n elements, and checks the feed against its tally. */
static pid_t follow_and_fill_at(struct proc *t, const char *exe, int n)
{
	const char *targv[] = { exe, "0", NULL };
	char header[8192], row[8192], cmd[32], *line;
	long long reg, bytes;
	pid_t pid;

	proc_spawn(t, targv);
	line = proc_line(t);
	cr_assert(line && !strncmp(line, "filled", 6), "target runs");
	pid = (pid_t)reply_int(line, "pid");
	cr_assert(wait_row(pid, header, sizeof(header), row, sizeof(row)),
		  "memwatch follows pid %d", (int)pid);
	snprintf(cmd, sizeof(cmd), "fill %d\n", n);
	proc_send(t, cmd);
	line = proc_line(t);
	cr_assert(line && !strncmp(line, "reg", 3), "filled: [%s]", line ? line : "");
	reg = reply_int(line, "reg");
	bytes = reply_int(line, "bytes");
	cr_assert(wait_row(pid, header, sizeof(header), row, sizeof(row)), "rows go on");
	cr_expect_eq(csv_int(header, row, "reg_elements"), reg, "pid %d: elements, exact", (int)pid);
	cr_expect_eq(csv_int(header, row, "reg_bytes"), bytes, "pid %d: bytes, exact", (int)pid);
	return pid;
}

static pid_t follow_and_fill(struct proc *t, int n)
{
	return follow_and_fill_at(t, TARGET("launch_target"), n);
}

/* A copy of launch_target at @path, written beside it and renamed over
 * it: a new inode, as a package upgrade makes. */
static void install_copy(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp %s %s.new && mv -f %s.new %s", TARGET("launch_target"),
		 path, path, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(follow, exe_restart_and_upgrade__each_run_exact_memwatch_survives, .timeout = MW_TIMEOUT)
{
	char dir[64], exe[96], header[8192], row[8192];
	const char *opts[] = { "--exe", exe, NULL };
	struct stat before, after;
	struct proc mw, t;
	pid_t first;

	snprintf(dir, sizeof(dir), "/tmp/memwatch-upgrade-%d", (int)getpid());
	snprintf(exe, sizeof(exe), "%s/node", dir);
	mkdir(dir, 0755);
	install_copy(exe);
	stat(exe, &before);
	start_memwatch(&mw, opts);
	first = follow_and_fill_at(&t, exe, 40);
	cr_assert_eq(pidfds_held(mw.pid), 1, "memwatch watches one process");
	proc_send(&t, "quit\n");
	cr_expect_eq(proc_wait(&t), 0, "first run ends");
	cr_assert(wait_until(pidfds_held(mw.pid) == 0, "memwatch to let pid %d go", (int)first),
		  "memwatch takes the exit");
	cr_expect(!proc_exited(&mw), "memwatch keeps running with no process to watch: %s",
		  proc_stderr(&mw));
	install_copy(exe);	/* the upgrade */
	stat(exe, &after);
	cr_assert_neq(before.st_ino, after.st_ino, "a new inode");
	follow_and_fill_at(&t, exe, 65);
	cr_expect(row_of(first, header, sizeof(header), row, sizeof(row)),
		  "the first run's rows stay in the file");
	proc_send(&t, "quit\n");
	proc_wait(&t);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0 on SIGTERM: %s", proc_stderr(&mw));
	unlink(exe);
	rmdir(dir);
	unlink(feed);
}

Test(follow, forked_child__followed_exactly, .timeout = MW_TIMEOUT)
{
	const char *opts[] = { "--comm", "launch_target", NULL };
	char header[8192], row[8192], *line;
	struct proc mw, t;
	long long reg, bytes;
	pid_t child;

	start_memwatch(&mw, opts);
	follow_and_fill(&t, 10);
	proc_send(&t, "fork 30\n");
	line = proc_line(&t);
	cr_assert(line && !strncmp(line, "child", 5), "the child starts: [%s]", line ? line : "");
	child = (pid_t)reply_int(line, "pid");
	/* followed once it has rows: then it fills */
	cr_assert(wait_row(child, header, sizeof(header), row, sizeof(row)),
		  "memwatch follows the child: %s", proc_stderr(&mw));
	cr_assert(holds_pidfd(mw.pid, child), "memwatch holds the child's pidfd while it runs");
	proc_send(&t, "go\n");
	line = proc_line(&t);
	cr_assert(line && !strncmp(line, "child", 5), "the child reports: [%s]", line ? line : "");
	reg = reply_int(line, "reg");
	bytes = reply_int(line, "bytes");
	cr_assert(proc_line(&t), "the child exited");
	/* its last row is written before memwatch lets it go */
	/* by the child's pid: another launch_target on the machine would be
	 * followed too */
	if (!wait_until(!holds_pidfd(mw.pid, child), "memwatch to let the child go")) {
		char pids[1024];

		pidfd_pids(mw.pid, pids, sizeof(pids));
		cr_assert_fail("memwatch still holds the child %d; its pidfds name %s; stderr: %s",
			       (int)child, pids, proc_stderr(&mw));
	}
	cr_assert(row_of(child, header, sizeof(header), row, sizeof(row)), "rows for the child");
	cr_expect_eq(csv_int(header, row, "reg_elements"), reg, "the child's elements since its fork");
	cr_expect_eq(csv_int(header, row, "reg_bytes"), bytes, "and bytes");
	proc_send(&t, "quit\n");
	proc_wait(&t);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	unlink(feed);
}

/* A cgroup v2 directory of our own, on the machine's cgroup2 mount or on
 * one mounted here. */
static void make_cgroup(char *dir, size_t len, char *mnt, size_t mlen)
{
	char out[4096] = "";

	run_capture("awk '$9 == \"cgroup2\" {print $5; exit}' /proc/self/mountinfo", out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	if (!out[0]) {
		snprintf(out, sizeof(out), "/tmp/memwatch-cg2-%d", (int)getpid());
		mkdir(out, 0755);
		cr_assert_eq(mount("none", out, "cgroup2", 0, NULL), 0, "mount cgroup2: %s",
			     strerror(errno));
		snprintf(mnt, mlen, "%s", out);
	} else {
		mnt[0] = '\0';
	}
	snprintf(dir, len, "%s/memwatch-test-%d", out, (int)getpid());
	cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

Test(follow, cgroup__inside_and_below_followed_outside_not, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	char dir[4200], mnt[4096], procs[4300], pidtext[16], header[8192], row[8192], *line;
	struct proc mw, in, out;
	long long reg;
	FILE *f;

	make_cgroup(dir, sizeof(dir), mnt, sizeof(mnt));
	proc_spawn(&in, targv);
	proc_spawn(&out, targv);
	cr_assert(proc_line(&in) && proc_line(&out), "targets run");
	/* below the followed directory, as a pod's containers are */
	snprintf(procs, sizeof(procs), "%s/sub", dir);
	cr_assert(mkdir(procs, 0755) == 0 || errno == EEXIST, "mkdir %s", procs);
	snprintf(procs, sizeof(procs), "%s/sub/cgroup.procs", dir);
	f = fopen(procs, "w");
	cr_assert(f, "open %s", procs);
	fprintf(f, "%d\n", (int)in.pid);
	cr_assert_eq(fclose(f), 0, "moved into the cgroup");
	const char *opts[] = { "--cgroup", dir, NULL };
	start_memwatch(&mw, opts);
	cr_assert(wait_row(in.pid, header, sizeof(header), row, sizeof(row)),
		  "the process in the cgroup is followed: %s", proc_stderr(&mw));
	proc_send(&in, "fill 25\n");
	proc_send(&out, "fill 25\n");
	line = proc_line(&in);
	cr_assert(line, "filled");
	reg = reply_int(line, "reg");
	cr_assert(proc_line(&out), "filled outside");
	cr_assert(wait_row(in.pid, header, sizeof(header), row, sizeof(row)), "rows");
	cr_expect_eq(csv_int(header, row, "reg_elements"), reg, "exact inside the cgroup");
	cr_expect_not(row_of(out.pid, header, sizeof(header), row, sizeof(row)),
		      "no row for the process outside it");
	snprintf(pidtext, sizeof(pidtext), "%d", (int)out.pid);
	proc_send(&in, "quit\n");
	proc_send(&out, "quit\n");
	proc_wait(&in);
	proc_wait(&out);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0");
	snprintf(procs, sizeof(procs), "%s/sub", dir);
	rmdir(procs);
	rmdir(dir);
	if (mnt[0]) {
		umount(mnt);
		rmdir(mnt);
	}
	unlink(feed);
}

/* Writes @pid into @dir's cgroup.procs: the process moves there. */
static void move_to(const char *dir, pid_t pid)
{
	char procs[4300];
	FILE *f;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	cr_assert(f, "open %s", procs);
	fprintf(f, "%d\n", (int)pid);
	cr_assert_eq(fclose(f), 0, "moved into %s", dir);
}

/* A running process moved into the cgroup (no exec, no fork) is followed
 * from that moment, exactly; moved out, it is dropped. */
Test(follow, cgroup__moved_in_followed_moved_out_dropped, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	char dir[4200], mnt[4096], parent[4200], header[8192], row[8192], *line;
	struct proc mw, t, other;
	long long before, reg, bytes;
	int rows;

	make_cgroup(dir, sizeof(dir), mnt, sizeof(mnt));
	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "the target runs, outside");
	const char *opts[] = { "--cgroup", dir, NULL };
	start_memwatch(&mw, opts);
	cr_assert_eq(file_wait_rows(feed, 0, header, sizeof(header), row, sizeof(row)), 0,
		     "memwatch is ready: %s", proc_stderr(&mw));
	proc_send(&t, "fill 5\n");
	line = proc_line(&t);
	cr_assert(line, "filled outside");
	before = reply_int(line, "bytes");
	cr_assert_not(row_of(t.pid, header, sizeof(header), row, sizeof(row)), "not followed yet");
	move_to(dir, t.pid);
	cr_assert(wait_row(t.pid, header, sizeof(header), row, sizeof(row)),
		  "followed once moved in: %s", proc_stderr(&mw));
	proc_send(&t, "fill 7\n");
	line = proc_line(&t);
	cr_assert(line, "filled inside");
	reg = reply_int(line, "reg");
	bytes = reply_int(line, "bytes");
	cr_assert(wait_row(t.pid, header, sizeof(header), row, sizeof(row)), "rows");
	cr_expect_eq(reg, 12, "the target's own tally: 5 + 7");
	cr_expect_eq(csv_int(header, row, "reg_elements"), 7, "exact from the move: 7");
	cr_expect_eq(csv_int(header, row, "reg_bytes"), bytes - before, "their bytes");
	move_to(parent, t.pid);
	cr_expect(wait_until(strstr(proc_stderr(&mw), "moved out of the cgroups"),
			     "memwatch to say pid %d moved out", (int)t.pid),
		  "said: %s", proc_stderr(&mw));
	cr_expect(wait_until(pidfds_held(mw.pid) == 0, "memwatch to let pid %d go", (int)t.pid),
		  "dropped");
	/* another process moved in has rows from then on; the one moved out
	 * none */
	rows = rows_for(t.pid);
	proc_spawn(&other, targv);
	cr_assert(proc_line(&other), "another target runs");
	move_to(dir, other.pid);
	cr_assert(wait_row(other.pid, header, sizeof(header), row, sizeof(row)),
		  "the other one is followed: %s", proc_stderr(&mw));
	cr_expect_eq(rows_for(t.pid), rows, "no more rows for the one moved out");
	proc_send(&other, "quit\n");
	proc_wait(&other);
	proc_send(&t, "quit\n");
	proc_wait(&t);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	rmdir(dir);
	if (mnt[0]) {
		umount(mnt);
		rmdir(mnt);
	}
	unlink(feed);
}

/* Events memwatch cannot take in time are counted, not lost silently:
 * memwatch stopped, its target forks more children than the ring buffer
 * holds (256 KiB, 24 bytes an event), and its row says so. */
Test(follow, ring_buffer_full__lost_events_counted_and_said, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	char pid[16], header[8192], row[8192], *line;
	struct proc mw, t;
	long long lost;

	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target runs");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *opts[] = { "-p", pid, NULL };
	start_memwatch(&mw, opts);
	cr_assert(wait_row(t.pid, header, sizeof(header), row, sizeof(row)),
		  "rows: %s", proc_stderr(&mw));
	cr_expect_eq(csv_int(header, row, "lost_events"), 0, "nothing lost yet");
	proc_kill(&mw, SIGSTOP);
	proc_send(&t, "forks 15000\n");
	line = proc_line(&t);
	proc_kill(&mw, SIGCONT);
	cr_assert(line, "forked");
	cr_assert_eq(reply_int(line, "made"), 15000, "15000 children");
	cr_assert(wait_row(t.pid, header, sizeof(header), row, sizeof(row)), "rows again");
	lost = csv_int(header, row, "lost_events");
	/* 8 bytes of header an event: 10922 fit, the rest is counted */
	cr_expect_eq(lost, 15000 - MW_EVENTS_BYTES / (8 + (long long)sizeof(struct mw_event)),
		     "every fork event the ring buffer could not hold is counted: %lld", lost);
	cr_expect(wait_until(strstr(proc_stderr(&mw), "events were lost"),
			     "memwatch to say events were lost") &&
		  strstr(proc_stderr(&mw), "library-load events were lost"), "and said: %s",
		  proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t);
	proc_kill(&mw, SIGTERM);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	unlink(feed);
}

/* A child a --pid target forks, which memwatch does not watch, loses the
 * breakpoints it inherited (they would make it trap on every call for
 * nobody): every byte of its code is its files' again, of every probe
 * (the allocator's entries and returns, the structure's insert, the
 * loader's hook, the thread exit), while its parent keeps them all. */
Test(follow, unwatched_child_of_pid_target__no_breakpoint_left, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	char pid[16], where[512], *line;
	struct proc mw, t;
	long parent, child_left;
	pid_t child;

	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target runs");
	cr_assert_eq(text_changes(t.pid, where, sizeof(where)), 0,
		     "untraced, its code is its files': %s", where);
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.1", "--struct", "reg",
			       "--insert", "reg_add", NULL };
	proc_spawn(&mw, argv);
	cr_assert(proc_line(&mw), "header: %s", proc_stderr(&mw));
	parent = text_changes(t.pid, where, sizeof(where));
	cr_assert_gt(parent, 0, "the watched parent has memwatch's breakpoints");
	proc_send(&t, "hold\n");
	line = proc_line(&t);
	cr_assert(line, "a child was forked");
	child = (pid_t)reply_int(line, "child");
	/* the fork's event came before the parent's reply; the breakpoints
	 * leave the child as the kernel releases them, later without
	 * multi-uprobe links (a release each) */
	cr_expect(wait_until((child_left = text_changes(child, where, sizeof(where))) == 0,
			     "the child's code to be its files' again: %ld bytes differ (%s)",
			     child_left, where));
	cr_expect_eq(text_changes(t.pid, where, sizeof(where)), parent,
		     "and the parent keeps its %ld", parent);
	kill(child, SIGKILL);
	proc_send(&t, "quit\n");
	proc_wait(&t);
	proc_kill(&mw, SIGTERM);
	proc_wait(&mw);
}

/* The same for a C++ release build (-O2, CET prologues) with every kind
 * of probe memwatch has: operator new's uprobe sessions, the personality
 * routine's, return instructions (--delta ret), --stacks; each has fired
 * in the parent before it forks. */
Test(follow, unwatched_child_of_cxx_target__no_breakpoint_left, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("unwind_cxx"), "5", NULL };
	const char *extra[] = { "--stacks", "--struct", "reg", "--insert", "reg_insert",
				"--delta", "ret", "--struct", "outer", "--insert", "outer_add",
				NULL };
	char where[512], *reply;
	struct session s;
	long parent, left;
	pid_t child;

	session_start_target(&s, targv, extra);
	reply = session_command(&s, "run\n");
	cr_assert(!strncmp(reply, "ran", 3), "the probes fired: %s", reply);
	parent = text_changes(s.target.pid, where, sizeof(where));
	cr_assert_gt(parent, 0, "the watched parent has memwatch's breakpoints");
	child = (pid_t)reply_int(session_command(&s, "hold\n"), "child");
	cr_expect(wait_until((left = text_changes(child, where, sizeof(where))) == 0,
			     "the child's code to be its files' again: %ld bytes differ (%s)", left,
			     where));
	cr_expect_eq(text_changes(s.target.pid, where, sizeof(where)), parent,
		     "and the parent keeps its %ld", parent);
	kill(child, SIGKILL);
	session_stop(&s);
}

Test(follow, bad_input__exit_2_one_line, .timeout = MW_TIMEOUT)
{
	static const char *const cases[][3] = {
		{ "--cgroup", "/sys/fs/cgroup/no-such-cgroup-x", "--cgroup '/sys/fs/cgroup/no-such-cgroup-x': No such file" },
		{ "--cgroup", "/tmp", "--cgroup '/tmp': not a cgroup v2 directory" },
		{ "--exe", "/etc/passwd", "--exe '/etc/passwd': not an executable file" },
		{ "--exe", "/no/such/prog", "--exe '/no/such/prog': not an executable file" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { MEMWATCH, cases[i][0], cases[i][1], NULL };
		struct proc p;

		proc_spawn(&p, argv);
		cr_expect_eq(proc_wait(&p), 2, "%s %s: exit 2", cases[i][0], cases[i][1]);
		cr_expect(strstr(proc_stderr(&p), cases[i][2]), "says [%s]: %s", cases[i][2],
			  proc_stderr(&p));
	}
}

/* How many of the @n targets at @t have rows in the feed (processes of
 * an earlier test still exiting may have rows too: not counted). */
static int targets_in_feed(const struct proc *t, int n)
{
	static char out[1 << 16];
	char cmd[256], *p = out, *end;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "awk -F, 'NR > 1 {print $2}' %s 2>/dev/null | sort -u", feed);
	out[0] = 0;
	run_capture(cmd, out, sizeof(out));
	for (long pid; (pid = strtol(p, &end, 10)), end != p; p = end)
		for (int i = 0; i < n; i++)
			if (t[i].pid == pid) {
				found++;
				break;
			}
	return found;
}

/* Ends the @n targets at @t (freed) and memwatch, which exits 0. */
static void end_all(struct proc *t, int n, struct proc *mw)
{
	for (int i = 0; i < n; i++)
		proc_send(&t[i], "quit\n");
	for (int i = 0; i < n; i++)
		proc_wait(&t[i]);
	proc_kill(mw, SIGTERM);
	cr_expect_eq(proc_wait(mw), 0, "exit 0: %s", proc_stderr(mw));
	free(t);
	unlink(feed);
}

#define TOGETHER 30

/* Processes that start together queue for their attach: once each has a
 * row (it is attached), what it does is counted exactly, whichever of
 * them memwatch attached last. (How soon they are attached is speed:
 * make bench's business.) */
Test(follow, started_together__each_attached_soon_exact, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	const char *opts[] = { "--exe", TARGET("launch_target"), NULL };
	struct proc *t = calloc(TOGETHER, sizeof(*t));
	char header[8192], row[8192], *line;
	struct proc mw;

	cr_assert(t, "memory");
	start_memwatch(&mw, opts);
	cr_assert_eq(file_wait_rows(feed, 0, header, sizeof(header), row, sizeof(row)), 0,
		     "the header: memwatch is ready: %s", proc_stderr(&mw));
	for (int i = 0; i < TOGETHER; i++)
		proc_spawn(&t[i], targv);
	for (int i = 0; i < TOGETHER; i++)
		cr_assert(proc_line(&t[i]), "target %d runs", i);
	for (int i = 0; i < TOGETHER; i++)
		cr_assert(wait_row(t[i].pid, header, sizeof(header), row, sizeof(row)),
			  "process %d is attached (it has rows): %s", i, proc_stderr(&mw));
	for (int i = 0; i < TOGETHER; i++)
		proc_send(&t[i], "fill 12\n");
	for (int i = 0; i < TOGETHER; i++) {
		long long reg, bytes;

		line = proc_line(&t[i]);
		cr_assert(line, "filled");
		reg = reply_int(line, "reg");
		bytes = reply_int(line, "bytes");
		cr_assert(wait_row(t[i].pid, header, sizeof(header), row, sizeof(row)),
			  "process %d has rows: %s", i, proc_stderr(&mw));
		cr_expect_eq(csv_int(header, row, "reg_elements"), reg,
			     "process %d of %d started together: its elements", i, TOGETHER);
		cr_expect_eq(csv_int(header, row, "reg_bytes"), bytes, "process %d: bytes", i);
	}
	end_all(t, TOGETHER, &mw);
}

#define SCALE 256

Test(follow, scale__256_processes_at_once_exact, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("launch_target"), "0", NULL };
	const char *opts[] = { "--comm", "launch_target", "--max-targets", "300", NULL };
	struct proc *t = calloc(SCALE, sizeof(*t));
	char header[8192], row[8192], *line;
	struct proc mw;
	int n = 0;

	cr_assert(t, "memory");
	for (int i = 0; i < SCALE; i++) {
		proc_spawn(&t[i], targv);
		cr_assert(proc_line(&t[i]), "target %d runs", i);
	}
	start_memwatch(&mw, opts);
	while ((n = targets_in_feed(t, SCALE)) < SCALE &&
	       patience_wait("rows for all %d processes (%d so far)", SCALE, n))
		usleep(200000);		/* the feed is large: read it less often */
	if (n != SCALE) {	/* said, and all ended: nothing left to disturb the next test */
		cr_expect_eq(n, SCALE, "rows for all %d processes (%d): %s", SCALE, n, proc_stderr(&mw));
		end_all(t, SCALE, &mw);
		return;
	}
	for (int i = 0; i < SCALE; i += SCALE / 4 - 1) {
		char cmd[32];
		long long reg, bytes;

		snprintf(cmd, sizeof(cmd), "fill %d\n", 10 + i);
		proc_send(&t[i], cmd);
		line = proc_line(&t[i]);
		cr_assert(line, "filled");
		reg = reply_int(line, "reg");
		bytes = reply_int(line, "bytes");
		cr_assert(wait_row(t[i].pid, header, sizeof(header), row, sizeof(row)), "rows");
		cr_expect_eq(csv_int(header, row, "reg_elements"), reg, "process %d: elements", i);
		cr_expect_eq(csv_int(header, row, "reg_bytes"), bytes, "process %d: bytes", i);
		cr_expect_eq(csv_int(header, row, "lost_unpaired"), 0, "process %d: nothing lost", i);
	}
	end_all(t, SCALE, &mw);
}
