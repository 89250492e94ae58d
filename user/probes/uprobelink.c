// SPDX-License-Identifier: GPL-2.0
/*
 * uprobelink.c - multi-uprobe and perf-event uprobe links, as system
 * calls (uprobelink.h). The perf event of a perf-event uprobe is the
 * kernel's uprobe PMU (its type and return-probe bit in sysfs); its
 * filter is the process's address space, so every thread of @pid is
 * probed, and no other process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include "probes/uprobelink.h"

#define MW_F_UPROBE_MULTI_RETURN	1u

/* union bpf_attr, as BPF_LINK_CREATE reads it for a multi-uprobe link */
struct uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
	__u32 pad;
};

int uprobelink__multi(int prog_fd, bool session, bool ret, const char *path,
		      const __u64 *offsets, const __u64 *cookies, __u32 cnt, pid_t pid)
{
	struct uprobe_multi_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)prog_fd;
	attr.attach_type = session ? MW_TRACE_UPROBE_SESSION : MW_TRACE_UPROBE_MULTI;
	attr.path = (__u64)(unsigned long)path;
	attr.offsets = (__u64)(unsigned long)offsets;
	attr.cookies = (__u64)(unsigned long)cookies;
	attr.cnt = cnt;
	attr.multi_flags = ret ? MW_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = (__u32)pid;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/* A number sysfs holds in @path after @prefix ("config:" for a format
 * bit); -1 if none. */
static int sysfs_number(const char *path, const char *prefix)
{
	char buf[64];
	size_t n = strlen(prefix);
	FILE *f = fopen(path, "re");
	int v = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, n))
		v = atoi(buf + n);
	fclose(f);
	return v;
}

#define MW_UPROBE_PMU	"/sys/bus/event_source/devices/uprobe/"

int uprobelink__perf(int prog_fd, bool ret, const char *path, __u64 offset, __u64 cookie,
		     pid_t pid)
{
	static int type = -2, retbit = -2;
	struct perf_event_attr attr;
	int pfd, fd, err;

	if (type == -2) {
		type = sysfs_number(MW_UPROBE_PMU "type", "");
		retbit = sysfs_number(MW_UPROBE_PMU "format/retprobe", "config:");
	}
	if (type < 0 || (ret && (retbit < 0 || retbit > 63)))
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (__u32)type;
	attr.config = ret ? 1ull << retbit : 0;
	attr.config1 = (__u64)(unsigned long)path;	/* uprobe_path */
	attr.config2 = offset;				/* probe_offset */
	pfd = (int)syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (prog_fd < 0)
		return pfd;
	{
		LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = cookie);

		fd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &opts);
	}
	err = fd < 0 ? -errno : 0;
	if (!err && ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		err = -errno;
	close(pfd);	/* the link holds the event */
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}
