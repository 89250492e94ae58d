// SPDX-License-Identifier: GPL-2.0
/*
 * api.c - the JSON API's answers. /api/snapshot and /api/sites are made
 * once an interval, on the main loop, and served as they are; a history
 * is written when asked for, from a copy taken under the history's lock,
 * so the main loop never waits for a client's JSON. Errors are one plain
 * line: 400 for a malformed ?pid=, 404 for a pid not watched.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "web/api.h"

#define MW_CT_JSON	"application/json"
#define MW_CT_TEXT	"text/plain; charset=utf-8"

struct mw_doc {
	char *text;		/* NULL: none yet */
	size_t len;
};

struct mw_api {
	pthread_mutex_t lock;		/* the documents and pids */
	const struct mw_layout *l;
	struct mw_json_meta meta;
	struct mw_hist *hist;
	struct mw_doc snapshot, sites;
	pid_t *pids;			/* the targets of the latest snapshot */
	int npids;
};

struct mw_api *api__new(const struct mw_layout *l, const struct mw_json_meta *m,
			struct mw_hist *hist)
{
	struct mw_api *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	a->l = l;
	a->meta = *m;
	a->hist = hist;
	return a;
}

void api__free(struct mw_api *a)
{
	if (!a)
		return;
	free(a->snapshot.text);
	free(a->sites.text);
	free(a->pids);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

int api__parse_pid(const char *arg, pid_t *pid)
{
	unsigned long long v = 0;

	if (!arg || !*arg || strlen(arg) > 10)
		return -1;
	for (const char *p = arg; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v < 1 || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* ---------------------------------------------------------- publishing */

int api__publish(struct mw_api *a, const struct mw_snapshot *const *all, int n)
{
	struct mw_doc snap = { 0 }, sites = { 0 };
	pid_t *pids = malloc((n ? (size_t)n : 1) * sizeof(*pids));
	struct mw_json_meta m = a->meta;
	int err = pids ? 0 : -ENOMEM;

	for (int i = 0; i < n && pids; i++)
		pids[i] = all[i]->pid;
	m.history_rows = history__rows(a->hist);
	m.history_bytes = history__bytes(a->hist);
	if (!err)
		err = json__snapshot(a->l, &m, all, n, &snap.text, &snap.len);
	if (!err && a->l->sites)
		err = json__sites(a->l, all, n, &sites.text, &sites.len);
	if (err) {
		free(pids);
		free(snap.text);
		return err;
	}
	pthread_mutex_lock(&a->lock);
	free(a->snapshot.text);
	free(a->sites.text);
	free(a->pids);
	a->snapshot = snap;
	a->sites = sites;
	a->pids = pids;
	a->npids = n;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* ---------------------------------------------------------- answers */

static int reply(struct mw_api_reply *out, unsigned status, const char *type,
		 const char *body, size_t len)
{
	out->status = status;
	out->type = type;
	out->len = len;
	out->body = malloc(len ? len : 1);
	if (!out->body)
		return -ENOMEM;
	memcpy(out->body, body, len);
	return 0;
}

static int text(struct mw_api_reply *out, unsigned status, const char *line)
{
	return reply(out, status, MW_CT_TEXT, line, strlen(line));
}

/* The latest @doc, or 503 until the first interval is published. */
static int document(struct mw_api *a, const struct mw_doc *doc, struct mw_api_reply *out)
{
	int err;

	pthread_mutex_lock(&a->lock);
	if (doc->text)
		err = reply(out, 200, MW_CT_JSON, doc->text, doc->len);
	else
		err = text(out, 503, "memwatch: no sample yet\n");
	pthread_mutex_unlock(&a->lock);
	return err;
}

static bool watched(struct mw_api *a, pid_t pid)
{
	bool found = false;

	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < a->npids && !found; i++)
		found = a->pids[i] == pid;
	pthread_mutex_unlock(&a->lock);
	return found;
}

static int history(struct mw_api *a, const char *pid_arg, struct mw_api_reply *out)
{
	char line[96];
	uint8_t *buf;
	size_t n;
	pid_t pid;
	int err;

	if (!pid_arg)
		return text(out, 400, "memwatch: /api/history needs ?pid=N, a watched process\n");
	if (api__parse_pid(pid_arg, &pid))
		return text(out, 400, "memwatch: ?pid= takes a process id\n");
	if (!watched(a, pid)) {
		snprintf(line, sizeof(line), "memwatch: pid %d is not watched\n", (int)pid);
		return text(out, 404, line);
	}
	err = history__copy(a->hist, pid, &buf, &n);
	if (err == -ENOENT)		/* watched, no row written yet */
		return reply(out, 200, MW_CT_JSON, "[]", 2);
	if (err)
		return err;
	*out = (struct mw_api_reply){ .status = 200, .type = MW_CT_JSON };
	err = json__history(a->hist, buf, n, &out->body, &out->len);
	free(buf);
	return err;
}

int api__answer(struct mw_api *a, const char *path, const char *pid_arg,
		struct mw_api_reply *out)
{
	*out = (struct mw_api_reply){ 0 };
	if (!strcmp(path, "/api/snapshot"))
		return document(a, &a->snapshot, out);
	if (!strcmp(path, "/api/history"))
		return history(a, pid_arg, out);
	if (!strcmp(path, "/api/sites")) {
		if (!a->l->sites)
			return text(out, 404, "memwatch: allocation sites are not tracked: start memwatch with --top N, --stacks, --folded PATH or --pprof PATH\n");
		return document(a, &a->sites, out);
	}
	return text(out, 404, "memwatch: no such path: try /api/snapshot, /api/history?pid=N or /api/sites\n");
}
