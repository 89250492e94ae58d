// SPDX-License-Identifier: GPL-2.0
/*
 * launch_target.c - integration target for launch and follow modes. At
 * start, before reading anything (so before memwatch could be attached
 * by pid), it fills the structure reg with N elements, then prints its
 * tally. Commands on stdin:
 *   load K   dlopen libplugin.so (beside the executable) and add K
 *            elements to its structure at once, with plugin_add
 *   fill K   add K elements to reg: "reg pid=P reg=E bytes=B", its tally
 *   fork K   fork a child that says "child pid=P", waits for a line on
 *            stdin (sent once memwatch follows it), adds K elements to
 *            reg, reports its tally since the fork ("child pid=P reg=E
 *            bytes=B"), and exits; then "forked done"
 *   forks K  vfork K children that exit at once: "forks made=K"
 *   threads K  start K threads one after another, each making a few
 *            malloc+free pairs, and join each: "threads done=K" (each
 *            ends with glibc's thread exit, which gives its malloc cache
 *            back with free)
 *   hold     fork a child that makes a few malloc+free pairs and then
 *            waits for a signal: "held child=P malloc=ADDR" (for its
 *            breakpoints to be looked at; the caller kills it)
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
#include <pthread.h>
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

/* A child that keeps the breakpoints it inherited, if memwatch leaves
 * them: it allocates a few times, then waits to be killed. */
static void hold(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (int i = 0; i < 10; i++) {
			void *volatile p = malloc(64);

			free(p);
		}
		for (;;)
			pause();
	}
	say("held child=%d malloc=%p\n", (int)pid, (void *)malloc);
}

static void *worker(void *arg)
{
	for (int i = 0; i < 20; i++) {
		void *volatile p = malloc((size_t)(16 + i * 8));

		free(p);
	}
	return arg;
}

static void threads(int k)
{
	int done = 0;

	for (int i = 0; i < k; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL) == 0 && pthread_join(t, NULL) == 0)
			done++;
	}
	say("threads done=%d\n", done);
}

/* The parent waits meanwhile: the next line on stdin is the child's. */
static void child(int k)
{
	char go[16];

	reg_elements = reg_bytes = 0;	/* the child's own, since the fork */
	say("child pid=%d\n", (int)getpid());
	if (read(0, go, sizeof(go)) <= 0)	/* no stdio: the parent's buffer */
		_exit(1);
	fill(k);
	say("child pid=%d reg=%lld bytes=%lld\n", (int)getpid(), reg_elements, reg_bytes);
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
		} else if (sscanf(line, "threads %d", &k) == 1) {
			threads(k);
		} else if (!strncmp(line, "hold", 4)) {
			hold();
		} else if (!strncmp(line, "sleep", 5)) {
			for (;;)
				pause();
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return status;
}
