// SPDX-License-Identifier: GPL-2.0
/* session.c - start and drive one target observed by memwatch. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

void session_start(struct session *s, const char *threads, const char *rounds,
		   const char *const extra[])
{
	const char *targv[] = { TARGET("alloc_script"), threads, rounds, NULL };

	session_start_target(s, targv, extra);
}

void session_start_target(struct session *s, const char *const targv[],
			  const char *const extra[])
{
	session_spawn(s, targv, extra, true);
}

void session_spawn(struct session *s, const char *const targv[],
		   const char *const extra[], bool header)
{
	const char *argv[64] = { MEMWATCH, "-p", s->pid, "-i", "0.1" };
	int n = 5;
	char *line;

	memset(s, 0, sizeof(*s));
	s->mw.pid = 0;
	proc_spawn(&s->target, targv);
	line = proc_line(&s->target);
	cr_assert(line && !strncmp(line, "ready", 5), "target ready, got [%s]", line ? line : "");
	snprintf(s->pid, sizeof(s->pid), "%d", (int)s->target.pid);
	s->malloc_addr = (uint64_t)reply_int(line, "malloc");
	snprintf(s->ready, sizeof(s->ready), "%s", line);
	snprintf(s->program, sizeof(s->program), "%s", targv[0]);
	for (; extra && *extra && n < 62; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	proc_spawn(&s->mw, argv);
	if (!header)
		return;
	line = proc_line(&s->mw);
	cr_assert(line, "memwatch writes a header; stderr: %s", proc_stderr(&s->mw));
	snprintf(s->header, sizeof(s->header), "%s", line);
}

char *session_command(struct session *s, const char *cmd)
{
	static char reply[512];
	char *line;

	proc_send(&s->target, cmd);
	line = proc_line(&s->target);
	cr_assert(line, "target replies to %s", cmd);
	cr_assert(strncmp(line, "error", 5), "target: %s", line);
	snprintf(reply, sizeof(reply), "%s", line);
	return reply;
}

void session_settle(struct session *s)
{
	/* rows already in the pipe may predate the command: drop them. The
	 * next row may have been sampled before too, but memwatch samples
	 * and writes one row after another, so the second was sampled after
	 * now: take that one, however long it takes to come */
	proc_skip(&s->mw, NULL, 0);
	cr_assert(proc_lines(&s->mw, 2, s->row, sizeof(s->row)),
		  "memwatch writes two more rows; stderr: %s", proc_stderr(&s->mw));
}

long long session_int(struct session *s, const char *column)
{
	return csv_int(s->header, s->row, column);
}

void session_expect_tally(struct session *s, const char *reply)
{
	static const char *const pairs[][2] = {
		{ "heap_live_bytes", "live_bytes" },
		{ "heap_live_allocations", "live_allocations" },
		{ "heap_failed_calls", "failed" },		/* NULL, overflow, EINVAL */
		{ "heap_untracked_frees", "untracked" },	/* blocks from before attach */
	};
	static const char *const lost[] = {
		"lost_unpaired", "lost_table_full", "lost_missed_probes",
	};

	session_settle(s);
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		cr_expect_eq(session_int(s, pairs[i][0]), reply_int(reply, pairs[i][1]),
			     "%s equals %s's %s (%s); memwatch: %lld",
			     pairs[i][0], s->program, pairs[i][1], reply,
			     session_int(s, pairs[i][0]));
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		cr_expect_eq(session_int(s, lost[i]), 0, "%s = 0 (%s: %s)",
			     lost[i], s->program, reply);
}

void session_untraced(const char *const targv[], char *reply, size_t len)
{
	struct proc p;
	char *line;

	proc_spawn(&p, targv);
	line = proc_line(&p);
	cr_assert(line && !strncmp(line, "ready", 5), "%s starts untraced", targv[0]);
	proc_send(&p, "run\n");
	line = proc_line(&p);
	cr_assert(line, "%s runs untraced", targv[0]);
	snprintf(reply, len, "%s", line);
	proc_send(&p, "quit\n");
	cr_assert_eq(proc_wait(&p), 0, "%s exits 0 untraced", targv[0]);
	cr_assert_str_empty(proc_stderr(&p), "%s says nothing on stderr untraced", targv[0]);
}

void session_stop(struct session *s)
{
	proc_kill(&s->mw, SIGTERM);
	proc_wait(&s->mw);
	if (!s->target.reaped) {
		/* it may be gone already: a failed write is fine here */
		if (write(s->target.in, "quit\n", 5) < 0)
			proc_kill(&s->target, SIGKILL);
		proc_wait(&s->target);
	}
}
