/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - one observed process: checked to be a live user process,
 * held by a pidfd (so a recycled pid is never mistaken for it), and read
 * through /proc/PID/root so that a target in a container works.
 */
#ifndef MW_TARGET_H
#define MW_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mw_target {
	pid_t pid;
	int pidfd;		/* readable once the process has exited */
	uint32_t slot;		/* index into the BPF per-target maps */
	bool exited;
	char root[32];		/* "/proc/PID/root" */
	char comm[256];		/* its name: its executable's file name (not the
				 * kernel's 15-character comm), at open and execve */
};

/* Opens @pid. 0, or -1 after one message (no such process, kernel thread,
 * memwatch itself, not permitted). */
int target__open(struct mw_target *t, pid_t pid, uint32_t slot);
void target__close(struct mw_target *t);
struct mw_mapping;
/* The path that opens @m's file as the target sees it: through
 * /proc/PID/root, or /proc/PID/map_files when the file was replaced on
 * disk since it was mapped (a library upgraded under a running process). */
void target__object_path(const struct mw_target *t, const struct mw_mapping *m,
			 char *buf, size_t len);
/* Resident set size from /proc/PID/statm; 0 if unreadable. */
uint64_t target__rss_bytes(const struct mw_target *t);
/* Reads the process's name again (after execve). */
void target__read_comm(struct mw_target *t);
/* True if no process @pid exists (any more). */
bool target__gone(pid_t pid);
/* True once the process has exited (polls the pidfd). */
bool target__has_exited(struct mw_target *t);
/* True while the process is stopped (state T in /proc/PID/stat: a
 * SIGSTOP, memwatch's own hold among them). */
bool target__stopped(const struct mw_target *t);

#endif
