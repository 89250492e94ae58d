/* SPDX-License-Identifier: GPL-2.0 */
/* privs.h - the privileges memwatch needs, checked before anything else. */
#ifndef MW_PRIVS_H
#define MW_PRIVS_H

#include <stdbool.h>

/* 0 if the process may load BPF, attach uprobes and read other processes;
 * else -1 after one line naming what is missing. */
int privs__check(void);
/* The same for a kernel whose uprobes are perf events (no multi-uprobe
 * links): opening one needs CAP_SYS_ADMIN, even with CAP_PERFMON
 * (measured on Linux 6.1 and 6.18). */
int privs__check_perf_events(void);

/* After attaching: keeps only the capabilities memwatch may still need
 * (BPF, PERFMON and SYS_PTRACE to re-attach after an execve, DAC_READ_SEARCH
 * and DAC_OVERRIDE for target files and the output directory,
 * NET_BIND_SERVICE if @listening, SYS_ADMIN if @perf_events: uprobes
 * are perf events), drops every other one from the effective,
 * permitted, inheritable and bounding sets, and sets no_new_privs. Call
 * before starting any thread: capabilities are per thread. 0, or -1
 * after one message. */
int privs__drop(bool listening, bool perf_events);

#endif
