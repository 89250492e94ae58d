// SPDX-License-Identifier: GPL-2.0
/*
 * launch_target.c - integration target for launch and follow modes. At
 * start, before reading anything (so before memwatch could be attached
 * by pid), it fills the structure reg with N elements, then prints its
 * tally. Commands on stdin:
 *   load K   dlopen libplugin.so (beside the executable) and add K
 *            elements to its structure at once, with plugin_add
 *   fill K   add K elements to reg: "reg pid=P reg=E bytes=B", its tally
 *   fork K   fork a child that waits 300 ms (a process found at fork is
 *            probed a few ms later), adds K elements to reg, reports its
 *            tally since the fork ("child pid=P reg=E bytes=B"), and exits
 *   forks K  vfork K children that exit at once: "forks made=K"
 *   pairs N  time N malloc+free pairs here, then in a forked child
 *            (after 300 ms; the best of 5 rounds of 20,000 pairs):
 *            "pairs parent_ns=A child_ns=B" per pair
 *   sleep    stay quiet until a signal ends it
 *   quit     exit with the status given as the second argument
 * Built as launch_target_linked too, with libplugin.so a startup library
 * (DT_NEEDED): "plugin K" after the status adds K elements to its
 * structure at start as well, through the loader's default scope.
 * Usage: launch_target N [STATUS [plugin K]]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "say.h"

struct rnode { struct rnode *next; int key; };
static struct rnode *reg_head;
static long long reg_elements, reg_bytes;

__attribute__((noinline)) void reg_add(int key)
{
	struct rnode *n = malloc(sizeof(*n) + (size_t)(key % 7) * 8);

	if (!n)
		abort();
	n->key = key;
	n->next = reg_head;
	reg_head = n;
	reg_elements++;
	reg_bytes += (long long)(sizeof(*n) + (size_t)(key % 7) * 8);
}

static void fill(int n)
{
	for (int i = 0; i < n; i++)
		reg_add(i);
}

/* dlopen the plugin next to this executable, then add @k elements */
static void load(int k)
{
	char exe[PATH_MAX], path[PATH_MAX + 32], *slash;
	size_t (*add)(size_t);
	long long bytes = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *h;

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/libplugin.so", exe);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		say("error dlopen: %s\n", dlerror());
		return;
	}
	add = (size_t (*)(size_t))dlsym(h, "plugin_add");
	for (int i = 0; i < k && add; i++)
		bytes += (long long)add((size_t)(16 + i % 5));
	say("plugin elements=%d bytes=%lld\n", k, bytes);
}

/* ns per malloc+free pair over @n pairs */
static double pair_ns(int n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		void *volatile p = malloc(64);

		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

static void pairs(int n)
{
	double parent = pair_ns(n), child_ns = -1;
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return;
	pid = fork();
	if (pid == 0) {
		pair_ns(10);		/* a few trapped calls at most */
		usleep(300000);
		/* best of 5 rounds of 20,000: one round of 2,000 untraced pairs
		 * lasts 12 us, and one interrupt doubled it */
		for (int round = 0; round < 5; round++) {
			double ns = pair_ns(20000);

			if (child_ns < 0 || ns < child_ns)
				child_ns = ns;
		}
		if (write(fd[1], &child_ns, sizeof(child_ns)) != sizeof(child_ns))
			_exit(1);
		_exit(0);
	}
	if (read(fd[0], &child_ns, sizeof(child_ns)) != sizeof(child_ns))
		child_ns = -1;
	waitpid(pid, NULL, 0);
	close(fd[0]);
	close(fd[1]);
	say("pairs parent_ns=%.0f child_ns=%.0f\n", parent, child_ns);
}

static void child(int k)
{
	reg_elements = reg_bytes = 0;	/* the child's own, since the fork */
	usleep(300000);
	fill(k);
	say("child pid=%d reg=%lld bytes=%lld\n", (int)getpid(), reg_elements, reg_bytes);
	usleep(300000);			/* memwatch samples it before it exits */
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, status = argc > 2 ? atoi(argv[2]) : 0;
	char line[128];

	fill(n);
	say("filled pid=%d reg=%lld bytes=%lld\n", (int)getpid(), reg_elements, reg_bytes);
	if (argc > 4 && !strcmp(argv[3], "plugin")) {
		size_t (*add)(size_t) = (size_t (*)(size_t))dlsym(RTLD_DEFAULT, "plugin_add");
		long long bytes = 0;
		int k = atoi(argv[4]);

		for (int i = 0; i < k && add; i++)
			bytes += (long long)add((size_t)(16 + i % 5));
		say("plugin elements=%d bytes=%lld\n", add ? k : 0, bytes);
	}
	while (fgets(line, sizeof(line), stdin)) {
		int k = 0;

		if (sscanf(line, "fill %d", &k) == 1) {
			fill(k);
			say("reg pid=%d reg=%lld bytes=%lld\n", (int)getpid(), reg_elements, reg_bytes);
		} else if (sscanf(line, "load %d", &k) == 1) {
			load(k);
		} else if (sscanf(line, "fork %d", &k) == 1) {
			pid_t pid = fork();

			if (pid == 0)
				child(k);
			waitpid(pid, NULL, 0);
			say("forked done\n");
		} else if (sscanf(line, "forks %d", &k) == 1) {
			int made = 0;

			for (int i = 0; i < k; i++) {
				pid_t pid = vfork();	/* a new process, ten times cheaper */

				if (pid == 0)
					_exit(0);
				made += pid > 0 && waitpid(pid, NULL, 0) == pid;
			}
			say("forks made=%d\n", made);
		} else if (sscanf(line, "pairs %d", &k) == 1) {
			pairs(k);
		} else if (!strncmp(line, "sleep", 5)) {
			for (;;)
				pause();
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return status;
}
