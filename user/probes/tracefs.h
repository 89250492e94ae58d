/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs.h - uprobes as tracefs events that every watched process
 * shares, for kernels without multi-uprobe links (before Linux 6.6).
 *
 * A perf-event uprobe of the kernel's uprobe PMU is an event of its own:
 * closing it waits for a kernel synchronisation under one global lock
 * (event_mutex), so N processes with K probes each took N x K of them to
 * exit (16 processes: 32 s here). A tracefs uprobe event is made once per
 * code location and program, and each process joins it with a perf event
 * of its own that carries no program: the event's filter is the set of
 * those processes' address spaces, and only the last close of the event
 * synchronises. The program runs once a hit, linked to one more perf
 * event, the anchor, on a kernel thread (kthreadd), whose address space
 * is no process's; its cookie has no slot (MW_COOKIE_SHARED), and the
 * programs find the process's by its tgid.
 *
 * The events are in the group memwatch_PID of memwatch's pid; those of
 * a memwatch that is gone are removed at start (tracefs__open).
 */
#ifndef MW_TRACEFS_H
#define MW_TRACEFS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/* Whether shared events can be made here (tracefs's uprobe_events is
 * writable and a kernel thread is there to anchor them); removes the
 * events of memwatch processes that are gone. 0, or -errno. */
int tracefs__open(void);
/* A perf event putting @pid under the shared uprobe event at
 * @path+@offset (a return probe if @ret) on which @prog_fd runs with
 * @cookie, the event and its anchor made at first use: its descriptor,
 * or -errno (-EINVAL for a path tracefs cannot name). */
int tracefs__join(int prog_fd, bool ret, const char *path, __u64 offset, __u64 cookie,
		  pid_t pid);
/* A perf event putting @pid under a shared entry event at
 * @path+@offset, whatever its program: closed, it takes the event's
 * breakpoint out of a process none of its perf events names (a forked
 * child). Its descriptor, or -errno (-ENOENT: no such event). */
int tracefs__scrub(const char *path, __u64 offset, pid_t pid);
/* Closes every anchor and removes the events, once no process's perf
 * event of them is open. */
void tracefs__close(void);

#endif
