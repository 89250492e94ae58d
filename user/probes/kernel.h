/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - what the running kernel offers memwatch, found once at start
 * by trying it (a test program, a test link), never by its version:
 * what it must have (BTF, uprobes, the BPF helpers the programs call)
 * and how probes attach there (attach.c).
 */
#ifndef MW_KERNEL_H
#define MW_KERNEL_H

#include <stdbool.h>

struct mw_kernel {
	bool multi;	/* multi-uprobe links (Linux 6.6): one link an object */
	bool session;	/* uprobe sessions (Linux 6.12): one program for
			 * entry and return, which the entry may decline */
	bool shared;	/* without multi: perf events of tracefs uprobe
			 * events every process shares (tracefs.h) */
	char release[65];	/* uname -r, for messages */
};

/* Fills @k; -1 after one line naming what the kernel lacks and the
 * Linux release that has it. */
int kernel__probe(struct mw_kernel *k);
/* How probes attach on @k, for a message: "multi-uprobe links and uprobe
 * sessions", ... */
const char *kernel__mechanism(const struct mw_kernel *k);

#endif
