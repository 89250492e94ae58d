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
#include "follow.h"
#include "log.h"

/* The cgroup2 mount point under which @path lies (the longest), from
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS - TYPE". */
static int cgroup2_mount(const char *path, char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	size_t best = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char point[PATH_MAX], *dash = strstr(line, " - ");
		size_t n;

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		n = strlen(point);
		if (n > best && !strncmp(path, point, n) && (path[n] == '/' || !path[n] || n == 1)) {
			best = n;
			snprintf(mnt, len, "%s", point);
		}
	}
	fclose(f);
	return best ? 0 : -ENOENT;
}

int follow__init(struct mw_follow *f, const struct mw_options *opts)
{
	memset(f, 0, sizeof(*f));
	f->opts = opts;
	for (int i = 0; i < opts->ncgroups; i++) {
		char mnt[PATH_MAX];
		const char *rel;

		if (cgroup2_mount(opts->cgroups[i], mnt, sizeof(mnt))) {
			mw_err("--cgroup '%s': no cgroup2 mount holds it", opts->cgroups[i]);
			follow__free(f);
			return -1;
		}
		rel = opts->cgroups[i] + (strcmp(mnt, "/") ? strlen(mnt) : 0);
		f->cgroups[f->ncgroups] = strdup(*rel ? rel : "/");
		if (!f->cgroups[f->ncgroups++]) {
			mw_err("out of memory");
			follow__free(f);
			return -1;
		}
	}
	return 0;
}

void follow__free(struct mw_follow *f)
{
	for (int i = 0; i < f->ncgroups; i++)
		free(f->cgroups[i]);
	f->ncgroups = 0;
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

/* In a --cgroup or below: the v2 line of /proc/PID/cgroup, "0::/a/b". */
static bool cgroup_matches(const struct mw_follow *f, pid_t pid)
{
	char path[64], line[PATH_MAX + 8];
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp)) {
		const char *cg = line + 3;

		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (int i = 0; i < f->ncgroups && !found; i++) {
			size_t n = strlen(f->cgroups[i]);

			found = !strcmp(f->cgroups[i], "/") ||
				(!strncmp(cg, f->cgroups[i], n) && (cg[n] == '/' || !cg[n]));
		}
	}
	fclose(fp);
	return found;
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
	       (f->ncgroups && cgroup_matches(f, pid));
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
