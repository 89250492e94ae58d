/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - what the BPF side reports of watched processes (exec, fork,
 * the loader's hook) and, in follow mode, of the others (exec, a move to
 * another cgroup): each acted on as it comes.
 */
#ifndef MW_EVENTS_H
#define MW_EVENTS_H

#include <stddef.h>
#include <sys/types.h>
#include "session/session.h"

/* One event (the ring buffer's callback; @ctx is the session). */
int events__on_event(void *ctx, void *data, size_t len);
/* Acts on every event waiting. 0, or -1 after a message. */
int events__take(struct mw_session *s);
/* A process follow mode found matching (follow__scan's callback). */
int events__follow_found(void *ctx, pid_t pid);

#endif
