/* SPDX-License-Identifier: GPL-2.0 */
/*
 * launch.h - launch mode: memwatch starts the program itself, so that its
 * probes are in before the program's first instruction. The child is
 * forked early, while memwatch still holds its privileges, becomes
 * --user, gives up every capability memwatch could pass on, and waits
 * until memwatch lets it execute the command. From then on it is a
 * normal process whose parent is memwatch: its stops at execve and at
 * the loader's hook (loader.h) are seen by memwatch alone.
 */
#ifndef MW_LAUNCH_H
#define MW_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>
#include "exitcodes.h"

struct mw_launch {
	pid_t pid;		/* 0: none */
	int go_fd;		/* memwatch's end: a byte lets it run the command */
	int err_fd;		/* the child's errno if it could not; EOF after exec */
	bool reaped;
	int status;		/* its wait status, once reaped */
};


/* Forks the child for @argv (searched in PATH), as @user when given.
 * 0; -2 after one line when @user is no user; -1 after one line. */
int launch__spawn(struct mw_launch *l, char *const argv[], const char *user);
/* Lets the child run the command. 0 once it has executed it; else the
 * child has exited, and the exit code (126, 127, 125) is returned after
 * one line saying why. */
int launch__exec(struct mw_launch *l, const char *command);
/* Kills a child that has not executed the command yet, and reaps it. */
void launch__abort(struct mw_launch *l);
/* Reaps the child if it has exited (waits for it if @block): true then. */
bool launch__reap(struct mw_launch *l, bool block);
/* The exit code its wait status calls for: its own, or 128 + signal. */
int launch__exit_code(int status);

#endif
