/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interval.h - each interval of a session: every watched process sampled
 * into its snapshot, the rows written, what it warrants said once; and
 * the processes that exited, given a final row and dropped.
 */
#ifndef MW_INTERVAL_H
#define MW_INTERVAL_H

#include "session/session.h"

/* One row for every target still running, after the events waiting;
 * then what the budget calls for. 0, or -1 after a message. */
int interval__write(struct mw_session *s);
/* A final row for each target that exited since the last poll, which is
 * then dropped. 1 once no target is left (never in follow mode) or the
 * launched program exited, 0, or -1 after a message. */
int interval__reap(struct mw_session *s);
/* The exporter answers from the first moment, with the figures at attach. */
int interval__http_first(struct mw_session *s);

#endif
