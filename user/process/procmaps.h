/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procmaps.h - target discovery: what a process maps, from /proc/PID/maps.
 * Parsing (a FILE *) is separate from reading the file, so the parser is
 * tested on fixture text.
 */
#ifndef MW_PROCMAPS_H
#define MW_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct mw_mapping {
	uint64_t start, end, offset, inode;
	char perms[5];
	char *path;		/* "" for anonymous mappings */
	int deleted;		/* the file was unlinked or replaced */
};

struct mw_maps {
	struct mw_mapping *v;
	size_t n;
};

/* Parses maps text; malformed lines are skipped. 0 or -errno. */
int procmaps__parse(FILE *f, struct mw_maps *out);
/* Reads /proc/PID/maps. 0 or -errno. */
int procmaps__load(pid_t pid, struct mw_maps *out);
void procmaps__free(struct mw_maps *m);

/* The first file-backed mapping whose file's base name is glibc's
 * libc.so.6 (or an older libc-2.NN.so); NULL if there is none. */
const struct mw_mapping *procmaps__find_libc(const struct mw_maps *m);
/* True if @path (or its base name) names glibc's libc: libc.so.6, or
 * libc-2.NN.so before glibc 2.34. The one test of what is libc. */
bool procmaps__is_libc(const char *path);

/* The first mapping of the file at @path; NULL if it is not mapped. */
const struct mw_mapping *procmaps__find_path(const struct mw_maps *m,
					     const char *path);

#endif
