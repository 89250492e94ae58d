/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow.h - follow mode's rules: which processes --exe, --comm and
 * --cgroup select. A process matches when its executable resolves to one
 * of the --exe paths (the path, not a saved inode: an upgrade replaces
 * the file), its name is one of the --comm names, or it is in one of the
 * --cgroup v2 directories or below. Read from /proc at the moment asked:
 * at start for every process, then at each execve and fork.
 */
#ifndef MW_FOLLOW_H
#define MW_FOLLOW_H

#include <stdbool.h>
#include <sys/types.h>
#include "options.h"

struct mw_follow {
	const struct mw_options *opts;
};

/* 0 (nothing to prepare yet: the rules are read as asked). */
int follow__init(struct mw_follow *f, const struct mw_options *opts);
void follow__free(struct mw_follow *f);
/* Whether @pid matches now (false if it is gone). */
bool follow__matches(const struct mw_follow *f, pid_t pid);
/* Calls @fn(@ctx, pid) for each running process that matches, but
 * memwatch; stops at the first nonzero return, which it returns. */
int follow__scan(const struct mw_follow *f, int (*fn)(void *ctx, pid_t pid), void *ctx);

#endif
