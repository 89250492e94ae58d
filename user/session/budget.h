/* SPDX-License-Identifier: GPL-2.0 */
/*
 * budget.h - --max-overhead: a process whose probes cost it too much
 * loses its allocator's probes, then its costliest structure's; SIGUSR1
 * puts the allocator's back.
 */
#ifndef MW_BUDGET_H
#define MW_BUDGET_H

#include "session/session.h"

/* What --max-overhead calls for, for every target just sampled. */
void budget__keep(struct mw_session *s);
/* SIGUSR1 came: every detached heap goes back in. 0, or -1. */
int budget__reattach_all(struct mw_session *s);

#endif
