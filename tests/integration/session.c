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
	line = proc_line(&s->target, 5000);
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
	line = proc_line(&s->mw, 20000);
	cr_assert(line, "memwatch writes a header; stderr: %s", proc_stderr(&s->mw));
	snprintf(s->header, sizeof(s->header), "%s", line);
}

char *session_command(struct session *s, const char *cmd)
{
	static char reply[512];
	char *line;

	proc_send(&s->target, cmd);
	line = proc_line(&s->target, 60000);
	cr_assert(line, "target replies to %s", cmd);
	cr_assert(strncmp(line, "error", 5), "target: %s", line);
	snprintf(reply, sizeof(reply), "%s", line);
	return reply;
}

void session_settle(struct session *s)
{
	/* rows already in the pipe may predate the command: drop them, then
	 * take the last of those sampled over the next few intervals */
	proc_drain(&s->mw, 0, NULL, 0);
	cr_assert(proc_drain(&s->mw, 500, s->row, sizeof(s->row)) >= 2,
		  "memwatch keeps writing rows; stderr: %s", proc_stderr(&s->mw));
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
	line = proc_line(&p, 10000);
	cr_assert(line && !strncmp(line, "ready", 5), "%s starts untraced", targv[0]);
	proc_send(&p, "run\n");
	line = proc_line(&p, 60000);
	cr_assert(line, "%s runs untraced", targv[0]);
	snprintf(reply, len, "%s", line);
	proc_send(&p, "quit\n");
	cr_assert_eq(proc_wait(&p, 20000), 0, "%s exits 0 untraced", targv[0]);
	cr_assert_str_empty(proc_stderr(&p), "%s says nothing on stderr untraced", targv[0]);
}

void session_stop(struct session *s)
{
	proc_kill(&s->mw, SIGTERM);
	proc_wait(&s->mw, 5000);
	if (!s->target.reaped) {
		/* it may be gone already: a failed write is fine here */
		if (write(s->target.in, "quit\n", 5) < 0)
			proc_kill(&s->target, SIGKILL);
		if (proc_wait(&s->target, 5000) < 0)
			proc_kill(&s->target, SIGKILL);
	}
}
