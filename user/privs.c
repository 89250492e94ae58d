// SPDX-License-Identifier: GPL-2.0
/*
 * privs.c - memwatch needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) to
 * load programs and attach uprobes, and CAP_SYS_PTRACE to read another
 * process's maps and files. Checked up front so the user gets one line
 * saying what is missing instead of a failure deep in libbpf.
 */
#include <linux/capability.h>
#include <stdbool.h>
#include <string.h>
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
