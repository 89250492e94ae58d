/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - one observed run: the alloc_script target started and
 * warmed up, memwatch attached to it, and the feed header read.
 */
#ifndef MW_SESSION_H
#define MW_SESSION_H

#include "harness.h"

struct session {
	struct proc target, mw;
	char header[4096];
	char row[4096];		/* the latest row, after session_settle */
	uint64_t malloc_addr;	/* malloc in the target, for breakpoints */
	char ready[256];	/* the target's first line */
	char program[128];	/* the target's argv[0], for messages */
	char pid[16];
};

/* Starts alloc_script THREADS ROUNDS, then memwatch -p PID -i 0.1 with
 * @extra arguments (NULL-terminated, may be NULL); waits for the header. */
void session_start(struct session *s, const char *threads, const char *rounds,
		   const char *const extra[]);
/* The same for any target that prints "ready ... malloc=ADDR" first. */
void session_start_target(struct session *s, const char *const targv[],
			  const char *const extra[]);
/* The same; waits for the CSV header on stdout only if @header. */
void session_spawn(struct session *s, const char *const targv[],
		   const char *const extra[], bool header);
/* Sends @cmd to the target and returns its reply line (copied). */
char *session_command(struct session *s, const char *cmd);
/* Waits until rows sampled after now arrive; leaves the last in s->row. */
void session_settle(struct session *s);
long long session_int(struct session *s, const char *column);
/* Settles, then expects the heap figures to equal the target's tally in
 * @reply ("live_bytes=B live_allocations=N failed=F untracked=U"), and no
 * event lost: unpaired, table full, missed probes all 0. */
void session_expect_tally(struct session *s, const char *reply);
/* Runs @targv with nobody watching: sends "run", copies its reply into
 * @reply, sends "quit"; it must exit 0 and say nothing on stderr. What a
 * traced run must reply too. */
void session_untraced(const char *const targv[], char *reply, size_t len);
/* Stops both processes (SIGTERM to memwatch, quit to the target). */
void session_stop(struct session *s);

#endif
