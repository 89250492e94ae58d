/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach.h - attach every probe of a probe table to one target pid (never
 * system-wide), and detach them all.
 */
#ifndef MW_ATTACH_H
#define MW_ATTACH_H

#include <sys/types.h>
#include "probes.h"

struct memwatch_bpf;
struct bpf_link;

struct mw_links {
	struct bpf_link **v;
	size_t n, cap;
};

/* Attaches @tab for @pid. 0, or -1 after one message. */
int attach__table(struct memwatch_bpf *skel, pid_t pid,
		  const struct mw_probe_table *tab, struct mw_links *links);
void attach__destroy(struct mw_links *links);

#endif
