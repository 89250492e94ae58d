// SPDX-License-Identifier: GPL-2.0
/*
 * stuck_alloc.c - integration target: a thread that dies inside an
 * allocator call. mimalloc calls the deferred-free routine a program
 * registers from inside mi_malloc's generic path, which every huge
 * allocation takes; on "stick" the worker thread's mi_malloc of 64 MiB
 * stops there for good (it says "stuck tid=T" first), so that killing
 * the process leaves the call open with its thread gone. "quit" exits.
 *
 * Usage: stuck_alloc (replies: "ready pid=P", "stuck tid=T")
 */
#define _GNU_SOURCE
#include <mimalloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "say.h"

static int go[2];
static volatile pid_t worker_tid;
static volatile int sticking;

static void deferred(bool force, unsigned long long heartbeat, void *arg)
{
	if (!sticking || gettid() != worker_tid)
		return;
	say("stuck tid=%d\n", (int)gettid());
	for (;;)
		pause();
}

static void *worker(void *arg)
{
	char c;

	worker_tid = gettid();
	free(mi_malloc(64));	/* its heap set up before memwatch attaches */
	if (read(go[0], &c, 1) != 1)
		return NULL;
	sticking = 1;
	return mi_malloc(64 << 20);	/* never returns */
}

int main(void)
{
	char line[64];
	pthread_t th;
	ssize_t n;

	if (pipe(go) || pthread_create(&th, NULL, worker, NULL))
		return 1;
	mi_register_deferred_free(deferred, NULL);
	say("ready pid=%d\n", (int)getpid());
	while ((n = read(STDIN_FILENO, line, sizeof(line) - 1)) > 0) {
		line[n] = 0;
		if (!strncmp(line, "stick", 5) && write(go[1], "x", 1) != 1)
			return 1;
		if (!strncmp(line, "quit", 4))
			return 0;
	}
	return 0;
}
