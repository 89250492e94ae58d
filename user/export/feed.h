/* SPDX-License-Identifier: GPL-2.0 */
/*
 * feed.h - the periodic feed on stdout or --output: CSV rows appended, or
 * one OpenMetrics exposition per interval (to a file: replaced atomically,
 * for node_exporter's textfile collector).
 */
#ifndef MW_FEED_H
#define MW_FEED_H

#include <stdbool.h>
#include <stdio.h>
#include "options.h"
#include "sample/snapshot.h"
#include "export/table.h"

struct mw_feed {
	enum mw_format format;
	const char *path;		/* NULL: stdout */
	bool off;			/* no feed: HTTP alone (launch mode, no -o) */
	FILE *out;			/* the stream, except OpenMetrics to a file */
	const struct mw_layout *layout;
	struct mw_table table;		/* -f table: what it showed last */
};

/* Opens the output (never following a symlink planted at PATH). 0, or -1
 * after one message. */
int feed__open(struct mw_feed *f, enum mw_format fmt, const char *path,
	       const struct mw_layout *layout);
/* No feed at all: every call after does nothing (the figures go out over
 * HTTP alone, and stdout belongs to a launched program). */
void feed__open_none(struct mw_feed *f, const struct mw_layout *layout);
/* Once every probe is attached: the CSV header. 0 or -1 after a message. */
int feed__start(struct mw_feed *f);
/* One interval: CSV rows for the @fresh snapshots, or an exposition of
 * @all (the latest snapshot of every target). 0 or -1 after a message. */
int feed__write(struct mw_feed *f, const struct mw_snapshot *const *fresh,
		int nfresh, const struct mw_snapshot *const *all, int nall);
void feed__close(struct mw_feed *f);

#endif
