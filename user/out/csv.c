// SPDX-License-Identifier: GPL-2.0
/*
 * csv.c - the CSV writer. Fields are numbers and a timestamp, and
 * structure names are [A-Za-z_][A-Za-z0-9_]*, so no field ever needs
 * RFC 4180 quoting. Heap columns are empty, not 0, under --no-heap and
 * while a target's allocator probes are detached (--max-overhead), and a
 * detached structure's are all empty: no figure is better than a false
 * or a stale one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include "csv.h"
#include "timestamp.h"
#include "fields.h"

static void glibc_fields(FILE *f, const struct mw_snapshot *s)
{
	for (size_t i = 0; i < mw_nglibc_fields; i++) {
		const struct mw_glibc_field *g = &mw_glibc_fields[i];

		if (!s->has_glibc)
			fputc(',', f);
		else if (g->kind == MW_G_RATIO)
			fprintf(f, ",%.6f", s->glibc.fragmentation);
		else
			fprintf(f, ",%" PRIu64, fields__glibc(g, &s->glibc));
	}
}

static int finish(FILE *f)
{
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int csv__write_header(FILE *f, const struct mw_layout *l)
{
	fputs("timestamp,pid", f);
	for (size_t i = 0; i < mw_ncounter_fields; i++)
		fprintf(f, ",%s", mw_counter_fields[i].csv);
	fputs(",lost_missed_probes,rss_bytes,overhead_percent,heap_attached,heap_since", f);
	if (l->sites)
		fputs(",sites,leak_suspect_sites", f);
	/* always: a target whose glibc cannot be read has them empty */
	for (size_t i = 0; i < mw_nglibc_fields; i++)
		fprintf(f, ",%s", mw_glibc_fields[i].csv);
	for (int i = 0; i < l->nstructs; i++) {
		const char *n = l->structs[i].name;

		fprintf(f, ",%s_elements,%s_bytes", n, n);
		if (l->structs[i].size)
			fprintf(f, ",%s_estimated_bytes", n);
		fprintf(f, ",%s_insert_calls,%s_remove_calls", n, n);
	}
	fputc('\n', f);
	return finish(f);
}

/* A structure's columns: all empty once its probes were detached, its
 * bytes empty while the heap's are. */
static void struct_fields(FILE *f, const struct mw_layout *l, const struct mw_snapshot *s,
			  int i)
{
	const struct mw_struct_sample *ss = &s->s[i];

	if (ss->detached) {
		fputs(l->structs[i].size ? ",,,,," : ",,,,", f);
		return;
	}
	fprintf(f, ",%" PRId64 ",", ss->elements);
	if (fields__heap(l, s))
		fprintf(f, "%" PRId64, ss->bytes);
	if (l->structs[i].size)
		fprintf(f, ",%" PRId64, ss->estimated_bytes);
	fprintf(f, ",%" PRIu64 ",%" PRIu64, ss->insert_calls, ss->remove_calls);
}

int csv__write_row(FILE *f, const struct mw_layout *l,
		   const struct mw_snapshot *s)
{
	char ts[48];

	timestamp__rfc3339(&s->when, ts, sizeof(ts));
	fprintf(f, "%s,%d", ts, (int)s->pid);
	for (size_t i = 0; i < mw_ncounter_fields; i++) {
		const struct mw_counter_field *c = &mw_counter_fields[i];

		if (c->heap && !fields__heap(l, s))
			fputc(',', f);
		else if (c->counter < 0)	/* a live figure: may be negative */
			fprintf(f, ",%" PRId64, fields__counter(c, s));
		else
			fprintf(f, ",%" PRIu64, s->c[c->counter]);
	}
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.3f,%d,", s->lost_missed, s->rss_bytes,
		s->overhead_percent, fields__heap(l, s));
	if (fields__heap(l, s)) {
		timestamp__rfc3339(&s->heap_since, ts, sizeof(ts));
		fputs(ts, f);
	}
	if (l->sites && !fields__heap(l, s))
		fputs(",,", f);
	else if (l->sites)
		fprintf(f, ",%zu,%zu", s->sites ? s->sites->nrows : 0,
			s->sites ? s->sites->suspects : 0);
	glibc_fields(f, s);
	for (int i = 0; i < l->nstructs; i++)
		struct_fields(f, l, s, i);
	fputc('\n', f);
	return finish(f);
}
