// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs.c - shared tracefs uprobe events (tracefs.h). An event is
 * "p:memwatch_PID/eN PATH:0xOFFSET" (r: for a return) in uprobe_events,
 * one per object (by device and inode, not by path: processes in other
 * mount namespaces name one file differently), offset, program and
 * cookie. uprobe_events is only ever appended to: opened with O_TRUNC it
 * would remove every uprobe event on the machine.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include "log.h"
#include "probes/tracefs.h"

#define PF_KTHREAD	0x00200000	/* the kernel's task flag */

/* One shared event. */
struct shared {
	dev_t dev;
	ino_t ino;
	__u64 offset, cookie;
	int prog_fd;
	bool ret;
	int id;		/* the tracepoint's id */
	int anchor;	/* @prog_fd's link on the anchor's perf event */
};

static struct {
	pthread_mutex_t lock;
	const char *dir;	/* tracefs, or NULL: tracefs__open failed */
	pid_t kthread;		/* the anchors' task */
	struct shared *v;
	size_t n, cap;
} ev = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Appends @line to uprobe_events: 0, or -errno. */
static int define(const char *line)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/uprobe_events", ev.dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* Whether @pid is a kernel thread named @comm ("kthreadd"). */
static bool is_kthread(pid_t pid, const char *comm)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	bool named;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return false;
	named = !strncmp(strchr(buf, '(') + 1, comm, strlen(comm)) &&
		strchr(buf, '(') + 1 + strlen(comm) == p;
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return named && (flags & PF_KTHREAD);
}

/* Whether pid @pid is a running memwatch. */
static bool is_memwatch(long pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strcmp(comm, "memwatch\n");
}

/* Removes the events of memwatch processes that are gone, and any of
 * this pid's left by an earlier process that had it. */
static void remove_stale(void)
{
	char path[128], line[4096], del[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", ev.dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *group = strchr(line, ':'), *end;
		long pid;

		if (!group || strncmp(group + 1, "memwatch_", 9))
			continue;
		pid = strtol(group + 10, &end, 10);
		if (*end != '/' || (pid != getpid() && is_memwatch(pid)))
			continue;
		end = strchr(end, ' ');
		if (!end)
			continue;
		*end = 0;
		snprintf(del, sizeof(del), "-:%s\n", group + 1);
		if (define(del))
			mw_debug("cannot remove the stale uprobe event %s", group + 1);
	}
	fclose(f);
}

int tracefs__open(void)
{
	static const char *dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !ev.dir; i++) {
		snprintf(path, sizeof(path), "%s/uprobe_events", dirs[i]);
		if (!access(path, W_OK))
			ev.dir = dirs[i];
	}
	/* where it is not mounted (systemd mounts it at boot), mount it
	 * where systemd would, and leave it there */
	if (!ev.dir && !mount("tracefs", dirs[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			      NULL)) {
		mw_debug("mounted tracefs on %s", dirs[0]);
		ev.dir = dirs[0];
	}
	if (!ev.dir)
		return -ENOENT;
	/* kthreadd is pid 2 outside a pid namespace; inside one no kernel
	 * thread is seen */
	if (!is_kthread(2, "kthreadd")) {
		ev.dir = NULL;
		return -ESRCH;
	}
	ev.kthread = 2;
	remove_stale();
	return 0;
}

/* A perf event of tracepoint @id for @pid: its descriptor, or -errno. */
static int tracepoint_event(int id, pid_t pid)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (__u64)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	fd = (int)syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The id of event eN of this process's group: it, or -errno. */
static int event_id(size_t n)
{
	char path[160];
	int id = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/memwatch_%d/e%zu/id", ev.dir, (int)getpid(), n);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &id) != 1)
		id = -EINVAL;
	fclose(f);
	return id;
}

/* Makes shared event @e (its key filled) as event eN, @n its index: 0,
 * or -errno with nothing left of it. */
static int make(struct shared *e, size_t n, const char *path)
{
	char line[4200];
	int pfd, err;

	if ((size_t)snprintf(line, sizeof(line), "%c:memwatch_%d/e%zu %s:0x%llx\n",
			     e->ret ? 'r' : 'p', (int)getpid(), n, path,
			     (unsigned long long)e->offset) >= sizeof(line))
		return -ENAMETOOLONG;
	err = define(line);
	if (err)
		return err;
	e->id = event_id(n);
	err = e->id < 0 ? e->id : 0;
	if (!err) {
		pfd = tracepoint_event(e->id, ev.kthread);
		err = pfd < 0 ? pfd : 0;
	}
	if (!err) {
		LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = e->cookie);

		e->anchor = bpf_link_create(e->prog_fd, pfd, BPF_PERF_EVENT, &opts);
		err = e->anchor < 0 ? -errno : 0;
		close(pfd);	/* the link holds the event */
	}
	if (err) {
		snprintf(line, sizeof(line), "-:memwatch_%d/e%zu\n", (int)getpid(), n);
		define(line);
	}
	return err;
}

/* The shared event of this key, made if new: it, or NULL with -errno in
 * @err. Under ev.lock. */
static struct shared *find(const struct shared *key, const char *path, int *err)
{
	struct shared *e, *nv;

	for (size_t i = 0; i < ev.n; i++) {
		e = &ev.v[i];
		if (e->ino == key->ino && e->dev == key->dev && e->offset == key->offset &&
		    e->ret == key->ret && e->prog_fd == key->prog_fd && e->cookie == key->cookie)
			return e;
	}
	if (ev.n == ev.cap) {
		nv = realloc(ev.v, (ev.cap ? ev.cap * 2 : 64) * sizeof(*nv));
		if (!nv) {
			*err = -ENOMEM;
			return NULL;
		}
		ev.v = nv;
		ev.cap = ev.cap ? ev.cap * 2 : 64;
	}
	e = &ev.v[ev.n];
	*e = *key;
	*err = make(e, ev.n, path);
	if (*err)
		return NULL;
	ev.n++;
	return e;
}

int tracefs__join(int prog_fd, bool ret, const char *path, __u64 offset, __u64 cookie,
		  pid_t pid)
{
	struct shared key = { .offset = offset, .cookie = cookie, .prog_fd = prog_fd, .ret = ret };
	struct shared *e;
	struct stat st;
	int err, id;

	if (!ev.dir)
		return -ENOENT;
	for (const char *c = path; *c; c++)
		if (isspace((unsigned char)*c))
			return -EINVAL;	/* uprobe_events splits its lines there */
	if (stat(path, &st))
		return -errno;
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	pthread_mutex_lock(&ev.lock);
	e = find(&key, path, &err);
	id = e ? e->id : err;
	pthread_mutex_unlock(&ev.lock);
	return id < 0 ? id : tracepoint_event(id, pid);
}

int tracefs__scrub(const char *path, __u64 offset, pid_t pid)
{
	struct stat st;
	int id = -ENOENT;

	if (!ev.dir)
		return -ENOENT;
	if (stat(path, &st))
		return -errno;
	pthread_mutex_lock(&ev.lock);
	for (size_t i = 0; i < ev.n && id < 0; i++)
		if (ev.v[i].ino == st.st_ino && ev.v[i].dev == st.st_dev &&
		    ev.v[i].offset == offset && !ev.v[i].ret)
			id = ev.v[i].id;
	pthread_mutex_unlock(&ev.lock);
	return id < 0 ? id : tracepoint_event(id, pid);
}

void tracefs__close(void)
{
	char line[64];

	pthread_mutex_lock(&ev.lock);
	/* each anchor's close is its event's last: one synchronisation */
	for (size_t i = 0; i < ev.n; i++)
		close(ev.v[i].anchor);
	for (size_t i = 0; i < ev.n; i++) {
		snprintf(line, sizeof(line), "-:memwatch_%d/e%zu\n", (int)getpid(), i);
		int err = define(line);

		if (err)
			mw_debug("cannot remove the uprobe event memwatch_%d/e%zu: %s",
				 (int)getpid(), i, strerror(-err));
	}
	free(ev.v);
	ev.v = NULL;
	ev.n = ev.cap = 0;
	pthread_mutex_unlock(&ev.lock);
}
