// SPDX-License-Identifier: GPL-2.0
/* target.c - open and watch one target process. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "log.h"
#include "process/procmaps.h"
#include "process/target.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define PF_KTHREAD 0x00200000

/* Field 9 (flags) of /proc/PID/stat; -errno if unreadable. */
static int read_flags(pid_t pid, unsigned long *flags)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", flags) != 1)
		return -EIO;
	return 0;
}

int target__open(struct mw_target *t, pid_t pid, uint32_t slot)
{
	unsigned long flags;
	int err;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->slot = slot;
	t->pidfd = -1;
	snprintf(t->root, sizeof(t->root), "/proc/%d/root", (int)pid);
	if (pid == getpid()) {
		mw_err("pid %d is memwatch itself; give the pid of the process to observe", (int)pid);
		return -1;
	}
	err = read_flags(pid, &flags);
	if (err == -ENOENT) {
		mw_err("no process with pid %d; check the pid (ps -p %d)", (int)pid, (int)pid);
		return -1;
	}
	if (err) {
		mw_err("cannot read /proc/%d/stat: %s", (int)pid, strerror(-err));
		return -1;
	}
	if (flags & PF_KTHREAD) {
		mw_err("pid %d is a kernel thread, which has no user-space heap", (int)pid);
		return -1;
	}
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0) {
		mw_err("cannot open pid %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	target__read_comm(t);
	return 0;
}

/* The kernel's comm of @t into @out (@len bytes). */
static void read_kernel_comm(const struct mw_target *t, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, out, len - 1);
	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

void target__read_comm(struct mw_target *t)
{
	char path[64], exe[PATH_MAX], comm[16];
	const char *base;
	ssize_t n;

	/* the kernel's comm is cut at 15 characters ("rustnode-glibc-"):
	 * the executable's whole file name when comm is its start; comm
	 * itself when it is not (a script, whose interpreter is the
	 * executable; a busybox applet; a program that renamed itself) */
	read_kernel_comm(t, comm, sizeof(comm));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
			exe[n - 10] = '\0';
		base = strrchr(exe, '/');
		base = base ? base + 1 : exe;
		if (*base && comm[0] && !strncmp(base, comm, strlen(comm))) {
			size_t len = strnlen(base, sizeof(t->comm) - 1);

			memcpy(t->comm, base, len);	/* a file name fits: 255 */
			t->comm[len] = '\0';
			return;
		}
	}
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

bool target__gone(pid_t pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

void target__close(struct mw_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

void target__object_path(const struct mw_target *t, const struct mw_mapping *m,
			 char *buf, size_t len)
{
	if (m->deleted)
		snprintf(buf, len, "/proc/%d/map_files/%llx-%llx", (int)t->pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
	else
		snprintf(buf, len, "%s%s", t->root, m->path);
}

uint64_t target__rss_bytes(const struct mw_target *t)
{
	unsigned long long size, resident;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)t->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	return n == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

bool target__stopped(const struct mw_target *t)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* the name may hold spaces and ')' */
	return paren && paren[1] == ' ' && paren[2] == 'T';
}

bool target__has_exited(struct mw_target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	if (!t->exited && poll(&p, 1, 0) > 0)
		t->exited = true;
	return t->exited;
}
