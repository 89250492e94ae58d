/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobelink.h - the kernel's two ways of linking a BPF program to
 * uprobes of one process, as system calls: a multi-uprobe link (Linux
 * 6.6; sessions 6.12), every offset of an object in one link, and a
 * perf-event uprobe (Linux 5.15 with its cookie), one offset a link.
 * Debian's libbpf 1.1 has no call for the first, and its call for the
 * second resolves the path and keeps a perf event's file open beside
 * each link: memwatch keeps one descriptor a probe.
 */
#ifndef MW_UPROBELINK_H
#define MW_UPROBELINK_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#define MW_TRACE_UPROBE_MULTI	48	/* enum bpf_attach_type */
#define MW_TRACE_UPROBE_SESSION	57

/* A multi-uprobe link of @prog_fd (a session's if @session, return
 * probes if @ret) on @cnt offsets of @path with their @cookies (NULL:
 * none), for @pid: its descriptor, or -errno. */
int uprobelink__multi(int prog_fd, bool session, bool ret, const char *path,
		      const __u64 *offsets, const __u64 *cookies, __u32 cnt, pid_t pid);
/* A perf-event uprobe (a return probe if @ret) at @path+@offset for
 * @pid, with @prog_fd linked to it with @cookie: the link's descriptor,
 * which holds the event; with @prog_fd < 0 the event's own, no program
 * (the breakpoint alone). -errno on failure. */
int uprobelink__perf(int prog_fd, bool ret, const char *path, __u64 offset, __u64 cookie,
		     pid_t pid);

#endif
