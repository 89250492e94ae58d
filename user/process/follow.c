// SPDX-License-Identifier: GPL-2.0
/* follow.c - match processes against --exe, --comm and --cgroup. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "process/follow.h"
#include "log.h"

int follow__init(struct mw_follow *f, const struct mw_options *opts)
{
	memset(f, 0, sizeof(*f));
	f->opts = opts;
	return 0;
}

void follow__free(struct mw_follow *f)
{
	f->opts = NULL;
}

/* /proc/PID/@name's first line, without its newline. */
static bool read_line(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool exe_matches(const struct mw_follow *f, pid_t pid)
{
	char link[64], exe[PATH_MAX + 16];
	ssize_t n;
	size_t len;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	/* a process started before an upgrade runs the old, replaced file */
	len = strlen(exe);
	if (len > 10 && !strcmp(exe + len - 10, " (deleted)"))
		exe[len - 10] = '\0';
	for (int i = 0; i < f->opts->nexes; i++)
		if (!strcmp(exe, f->opts->exes[i]))
			return true;
	return false;
}

static bool comm_matches(const struct mw_follow *f, pid_t pid)
{
	char comm[64];

	if (!read_line(pid, "comm", comm, sizeof(comm)))
		return false;
	for (int i = 0; i < f->opts->ncomms; i++)
		if (!strcmp(comm, f->opts->comms[i]))
			return true;
	return false;
}

#define MW_CGROUP_DEPTH	32

/* Whether @pid is in the cgroup @dir or below it: listed in a
 * cgroup.procs of the tree. The kernel lists pids as memwatch's pid
 * namespace sees them, wherever memwatch's cgroup namespace is rooted
 * (a pod's /proc/PID/cgroup reads "0::/../.." relative paths, which no
 * string compare can match). */
static bool in_tree(const char *dir, pid_t pid, int depth)
{
	char path[PATH_MAX], line[32];
	struct dirent *e;
	bool found = false;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = atoi(line) == (int)pid;
	if (f)
		fclose(f);
	if (found || depth >= MW_CGROUP_DEPTH || !(d = opendir(dir)))
		return found;
	while (!found && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			found = in_tree(path, pid, depth + 1);
	}
	closedir(d);
	return found;
}

static bool cgroup_matches(const struct mw_follow *f, pid_t pid)
{
	for (int i = 0; i < f->opts->ncgroups; i++)
		if (in_tree(f->opts->cgroups[i], pid, 0))
			return true;
	return false;
}

bool follow__matches(const struct mw_follow *f, pid_t pid)
{
	char link[64], exe[8];

	/* kernel threads and zombies have no executable: never targets */
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (pid == getpid() || readlink(link, exe, sizeof(exe)) < 0)
		return false;
	return (f->opts->nexes && exe_matches(f, pid)) ||
	       (f->opts->ncomms && comm_matches(f, pid)) ||
	       (f->opts->ncgroups && cgroup_matches(f, pid));
}

int follow__scan(const struct mw_follow *f, int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int r = 0;

	if (!d) {
		mw_err("cannot list /proc: %s", strerror(errno));
		return -1;
	}
	while (!r && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (!isdigit((unsigned char)e->d_name[0]) || *end || pid <= 0)
			continue;
		if (follow__matches(f, (pid_t)pid))
			r = fn(ctx, (pid_t)pid);
	}
	closedir(d);
	return r;
}
