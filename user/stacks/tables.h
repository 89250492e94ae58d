/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tables.h - the unwind tables in the BPF maps (--stacks): each object's
 * rows once, in unwind_rows, shared by every process that maps it (by its
 * path and inode), and each process's executable mappings with where
 * their rows are, in unwind_procs. The BPF program walks stacks with
 * them (bpf/unwind.bpf.h).
 */
#ifndef MW_TABLES_H
#define MW_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "process/objects.h"
#include "process/procmaps.h"
#include "memwatch.h"

struct mw_unwind_object {
	char *path;		/* as the target maps it */
	uint64_t inode;
	uint32_t first, count;	/* its rows in unwind_rows */
	bool none;		/* no table (no .eh_frame): its frames end walks */
};

struct mw_unwind_tables {
	int rows_fd, procs_fd;
	uint32_t used, limit;	/* rows written, and room */
	uint32_t version;	/* of the last process entry written */
	struct mw_unwind_object *v;
	size_t n, cap;
	bool said_full;
};

void tables__init(struct mw_unwind_tables *t, int rows_fd, int procs_fd, uint32_t limit);
void tables__free(struct mw_unwind_tables *t);
/* Writes the tables of the objects in @objs that @maps maps executable,
 * and adds their mappings to process @pid's entry at @slot (@fresh: the
 * entry starts empty, a new image; else the process loaded libraries).
 * 0, or -1 after one message. */
int tables__target(struct mw_unwind_tables *t, pid_t pid, uint32_t slot, bool fresh,
		   const struct mw_maps *maps, const struct mw_objects *objs);

#endif
