// SPDX-License-Identifier: GPL-2.0
/*
 * privs.c - memwatch needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) to
 * load programs and attach uprobes, and CAP_SYS_PTRACE to read another
 * process's maps and files. Checked up front so the user gets one line
 * saying what is missing instead of a failure deep in libbpf.
 */
#include <linux/capability.h>
#include <stdbool.h>
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "log.h"
#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int privs__check(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	char missing[96] = "";
	bool admin;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data)) {
		mw_err("cannot read this process's capabilities; run as root");
		return -1;
	}
	admin = has_cap(data, CAP_SYS_ADMIN);
	if (!admin && !has_cap(data, CAP_BPF))
		strcat(missing, " CAP_BPF");
	if (!admin && !has_cap(data, CAP_PERFMON))
		strcat(missing, " CAP_PERFMON");
	if (!has_cap(data, CAP_SYS_PTRACE))
		strcat(missing, " CAP_SYS_PTRACE");
	if (!*missing)
		return 0;
	mw_err("not permitted: missing%s; run as root (sudo memwatch ...) or grant CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE",
	       missing);
	return -1;
}

int privs__check_perf_events(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (!syscall(SYS_capget, &hdr, data) && has_cap(data, CAP_SYS_ADMIN))
		return 0;
	mw_err("not permitted: missing CAP_SYS_ADMIN, which perf-event uprobes need on a kernel without multi-uprobe links (before Linux 6.6); run as root (sudo memwatch ...)");
	return -1;
}

int privs__drop(bool listening, bool perf_events)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	static const int keep[] = {
		CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH,
		CAP_DAC_OVERRIDE,
	};
	__u32 want[2] = { 0, 0 };
	int last_cap = 40;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		goto fail;
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		want[keep[i] / 32] |= 1u << (keep[i] % 32);
	if (listening)
		want[CAP_NET_BIND_SERVICE / 32] |= 1u << (CAP_NET_BIND_SERVICE % 32);
	/* a kernel without CAP_BPF/CAP_PERFMON needs CAP_SYS_ADMIN instead,
	 * and so do perf-event uprobes */
	if (!has_cap(data, CAP_BPF) || perf_events)
		want[CAP_SYS_ADMIN / 32] |= 1u << (CAP_SYS_ADMIN % 32);
	/* the bounding set first: dropping from it needs CAP_SETPCAP */
	for (int cap = 0; cap <= last_cap; cap++) {
		if (want[cap / 32] & (1u << (cap % 32)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL && errno != EPERM)
			goto fail;
	}
	for (int w = 0; w < 2; w++) {
		data[w].effective &= want[w];
		data[w].permitted &= want[w];
		data[w].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	return 0;
fail:
	mw_err("cannot give up unneeded privileges: %s", strerror(errno));
	return -1;
}
