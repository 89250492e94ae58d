/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchlist.h - the session's records of watched processes, one per BPF
 * slot: opened, registered with the BPF side, looked up, dropped.
 */
#ifndef MW_WATCHLIST_H
#define MW_WATCHLIST_H

#include <sys/types.h>
#include "memwatch.h"
#include "session/session.h"

/* The record of @pid if it is watched. */
struct mw_watched *watchlist__find(struct mw_session *s, pid_t pid);
/* The record in @slot if it still watches @pid, running. */
struct mw_watched *watchlist__at(struct mw_session *s, __u32 slot, __u32 pid);
/* Opens @pid into a free slot, registered with the BPF side once it is
 * loaded. 0, 1 when no slot is free, or -1 after a message. */
int watchlist__open(struct mw_session *s, pid_t pid, struct mw_watched **out);
/* The --pid targets, then the launched program (held until attached). */
int watchlist__open_all(struct mw_session *s);
/* Tells the BPF side @w's pid is in its slot. 0, or -1 after a message. */
int watchlist__register(struct mw_session *s, struct mw_watched *w);
/* What the BPF side knows of @w's loader, its hold and its generation. */
int watchlist__write_loader(struct mw_session *s, const struct mw_watched *w);
/* Stops watching @w: its probes, its slot's entries in every map (a
 * week-long run reuses slots and leaks nothing), its record. */
void watchlist__drop(struct mw_session *s, struct mw_watched *w);

#endif
