// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - a terminal view over the same snapshots as the feeds. Deltas
 * are against the previous view of the same pid; on a terminal the screen
 * is cleared first, so the view stays in place like top(1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "export/timestamp.h"
#include "export/fields.h"
#include "export/table.h"

void table__bytes(int64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)(bytes < 0 ? -bytes : bytes);
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%s%" PRId64 " B", bytes < 0 ? "-" : "", bytes < 0 ? -bytes : bytes);
	else
		snprintf(buf, len, "%s%.1f %s", bytes < 0 ? "-" : "", v, units[u]);
}

static void delta_bytes(int64_t d, char *buf, size_t len)
{
	char b[24];

	if (!d) {
		snprintf(buf, len, "=");
		return;
	}
	table__bytes(d < 0 ? -d : d, b, sizeof(b));
	snprintf(buf, len, "%c%s", d < 0 ? '-' : '+', b);
}

static const struct mw_snapshot *previous(struct mw_table *t, pid_t pid)
{
	for (int i = 0; i < t->nprev; i++)
		if (t->prev_pid[i] == pid)
			return &t->prev[i];
	return NULL;
}

static void remember(struct mw_table *t, const struct mw_snapshot *s)
{
	int i;

	for (i = 0; i < t->nprev && t->prev_pid[i] != s->pid; i++)
		;
	if (i == MW_MAX_TARGETS)
		return;
	if (i == t->nprev)
		t->nprev++;
	t->prev[i] = *s;
	t->prev[i].sites = NULL;	/* not kept: it changes under us */
	t->prev_pid[i] = s->pid;
}

/* @p, if its heap figures count from the same attach as @s's (not
 * before a detach or SIGUSR1): else no deltas. */
static const struct mw_snapshot *same_heap(const struct mw_snapshot *s,
					   const struct mw_snapshot *p)
{
	return p && p->heap_attached && p->heap_since.tv_sec == s->heap_since.tv_sec &&
	       p->heap_since.tv_nsec == s->heap_since.tv_nsec ? p : NULL;
}

static void heap_lines(FILE *f, const struct mw_snapshot *s, const struct mw_snapshot *p)
{
	char live[32], dlive[32], rss[32];
	uint64_t lost = fields__lost(s);

	table__bytes(s->live_bytes, live, sizeof(live));
	delta_bytes(p ? s->live_bytes - p->live_bytes : 0, dlive, sizeof(dlive));
	table__bytes((int64_t)s->rss_bytes, rss, sizeof(rss));
	fprintf(f, "heap   live %s (%s)   blocks %" PRId64 " (%+" PRId64 ")   rss %s\n",
		live, dlive, s->live_allocations,
		p ? s->live_allocations - p->live_allocations : 0, rss);
	fprintf(f, "       allocs %" PRIu64 " (+%" PRIu64 ")   frees %" PRIu64 " (+%" PRIu64
		")   failed %" PRIu64 "   untracked frees %" PRIu64 "\n",
		s->c[MW_C_ALLOC_CALLS], p ? s->c[MW_C_ALLOC_CALLS] - p->c[MW_C_ALLOC_CALLS] : 0,
		s->c[MW_C_FREE_CALLS], p ? s->c[MW_C_FREE_CALLS] - p->c[MW_C_FREE_CALLS] : 0,
		s->c[MW_C_FAILED_CALLS], s->c[MW_C_UNTRACKED_FREES]);
	if (lost)
		fprintf(f, "LOST   %" PRIu64 " events: figures are not exact (see the lost_* counters)\n", lost);
}

/* What the probes cost the target, and whether the allocator's are in. */
static void probe_line(FILE *f, const struct mw_layout *l, const struct mw_snapshot *s)
{
	char since[48];

	fprintf(f, "probes ~%.2f%% of a CPU (estimated)", s->overhead_percent);
	if (fields__heap(l, s)) {
		timestamp__rfc3339(&s->heap_since, since, sizeof(since));
		fprintf(f, "   heap since %s\n", since);
	} else {
		fputs(l->heap ? "   heap probes DETACHED (over --max-overhead; SIGUSR1 re-attaches)\n" :
			      "\n", f);
	}
}

static void struct_lines(FILE *f, const struct mw_layout *l, const struct mw_snapshot *s,
			 const struct mw_snapshot *p)
{
	char b[32], db[32];
	bool any = false;

	for (int k = 0; k < l->nstructs; k++)
		any |= l->structs[k].probed;
	if (!any)
		return;		/* only structures read from memory: below */
	fprintf(f, "\n%-20s %12s %8s %12s %12s\n", "STRUCTURE", "ELEMENTS", "CHANGE",
		"BYTES", "CHANGE");
	for (int k = 0; k < l->nstructs; k++) {
		const struct mw_struct_sample *x = &s->s[k];

		if (!l->structs[k].probed)
			continue;

		if (x->detached) {
			fprintf(f, "%-20s %12s %8s %12s %12s  (probes detached: over --max-overhead)\n",
				l->structs[k].name, "-", "-", "-", "-");
			continue;
		}
		table__bytes(x->bytes, b, sizeof(b));
		delta_bytes(same_heap(s, p) ? x->bytes - p->s[k].bytes : 0, db, sizeof(db));
		fprintf(f, "%-20s %12" PRId64 " %+8" PRId64 " %12s %12s\n", l->structs[k].name,
			x->elements, p ? x->elements - p->s[k].elements : 0,
			fields__heap(l, s) ? b : "-", fields__heap(l, s) ? db : "-");
	}
}

/* The structures read from memory (--read): what the walk found. */
static void read_lines(FILE *f, const struct mw_layout *l, const struct mw_snapshot *s)
{
	char b[32];
	bool any = false;

	for (int k = 0; k < l->nstructs; k++)
		any |= l->structs[k].read != NULL;
	if (!any)
		return;
	fprintf(f, "\n%-20s %12s %12s %6s %7s  %s\n", "READ FROM MEMORY", "LENGTH", "RETAINED",
		"ROOTS", "ERRORS", "EXPR");
	for (int k = 0; k < l->nstructs; k++) {
		const struct mw_struct_sample *x = &s->s[k];
		char len[32] = "-";

		if (!l->structs[k].read)
			continue;
		if (x->read_complete && x->length_known)
			snprintf(len, sizeof(len), "%" PRId64, x->length);
		table__bytes((int64_t)x->retained_bytes, b, sizeof(b));
		fprintf(f, "%-20s %12s %12s %6u %7" PRIu64 "  %s\n", l->structs[k].name, len,
			x->read_complete ? b : "-", x->roots, x->read_errors, l->structs[k].read);
	}
}

static void site_lines(FILE *f, const struct mw_layout *l, const struct mw_snapshot *s)
{
	const struct mw_sites *st = s->sites;
	char b[32];

	if (!st)
		return;
	if (fields__heap(l, s))
		fprintf(f, "\n%12s %10s %10s  %-6s %s\n", "LIVE", "BLOCKS", "ALLOCS", "",
			"SITE (top by live bytes)");
	for (size_t i = 0; fields__heap(l, s) && i < st->nrows && i < (size_t)l->top; i++) {
		const struct mw_site_row *r = &st->rows[i];

		table__bytes(r->live_bytes, b, sizeof(b));
		fprintf(f, "%12s %10" PRId64 " %10" PRIu64 "  %-6s %s\n", b, r->live_blocks,
			r->allocs, r->suspect ? "LEAK?" : "", r->name);
	}
	if (!st->nins)
		return;
	fprintf(f, "\n%-20s %10s  %s\n", "STRUCTURE GROWN BY", "CALLS", "CALL SITE");
	for (size_t i = 0; i < st->nins && i < (size_t)l->top; i++)
		if (!s->s[st->ins[i].struct_id].detached)	/* its counts stopped */
			fprintf(f, "%-20s %10" PRIu64 "  %s\n",
				l->structs[st->ins[i].struct_id].name, st->ins[i].calls,
				st->ins[i].name);
}

int table__write(FILE *f, struct mw_table *t, const struct mw_layout *l,
		 const struct mw_snapshot *const *snaps, int n)
{
	char ts[48];

	if (t->tty)
		fputs("\033[H\033[2J", f);
	for (int i = 0; i < n; i++) {
		const struct mw_snapshot *s = snaps[i], *p = previous(t, s->pid);

		timestamp__rfc3339(&s->when, ts, sizeof(ts));
		fprintf(f, "%smemwatch  pid %d  %s%s\n", i ? "\n" : "", (int)s->pid, ts,
			fields__heap(l, s) && s->sites && s->sites->suspects ? "  [leak suspects]" : "");
		if (fields__heap(l, s))
			heap_lines(f, s, same_heap(s, p));
		probe_line(f, l, s);
		struct_lines(f, l, s, p);
		read_lines(f, l, s);
		site_lines(f, l, s);
		remember(t, s);
	}
	if (!t->tty)
		fputs("\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
