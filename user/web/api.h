/* SPDX-License-Identifier: GPL-2.0 */
/*
 * api.h - the JSON API under /api/ (--listen) and what it answers from:
 * the main loop publishes each interval's documents, the HTTP thread
 * answers GET /api/snapshot, /api/history?pid=N and /api/sites from the
 * latest, and copies a target's history out when asked for it.
 */
#ifndef MW_API_H
#define MW_API_H

#include <stddef.h>
#include <sys/types.h>
#include "sample/history.h"
#include "web/json.h"
#include "sample/snapshot.h"

struct mw_api;

/* One answer: @body is malloc'd (the caller frees it), @type static. */
struct mw_api_reply {
	unsigned status;
	const char *type;
	char *body;
	size_t len;
};

/* The API over @hist (kept by the caller, outlives the API), for rows of
 * @l. NULL when out of memory. */
struct mw_api *api__new(const struct mw_layout *l, const struct mw_json_meta *m,
			struct mw_hist *hist);
void api__free(struct mw_api *a);
/* Replaces the documents served by those of @all, the latest snapshot of
 * each of @n targets (the watched ones, for ?pid=). 0 or -ENOMEM. */
int api__publish(struct mw_api *a, const struct mw_snapshot *const *all, int n);
/* The answer to GET @path (from "/api/") with @pid_arg, the ?pid= value
 * (NULL: absent). 0, or -ENOMEM with nothing in @out. */
int api__answer(struct mw_api *a, const char *path, const char *pid_arg,
		struct mw_api_reply *out);
/* A ?pid= value: a process id, decimal, 1 to 2^31-1, nothing else.
 * 0, or -1 with @pid untouched. */
int api__parse_pid(const char *arg, pid_t *pid);

#endif
