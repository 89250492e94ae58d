// SPDX-License-Identifier: GPL-2.0
/*
 * row.c - the one walk over a snapshot that says which columns a row has
 * and what each holds. Names and values come from the same walk, so they
 * cannot drift apart; the tables of fields.c name the heap's and glibc's
 * figures, the layout adds sites and structures.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "export/fields.h"
#include "export/row.h"
#include "export/timestamp.h"

/* The CSV names of fields.c's figures. */
#define T(fig)	(mw_target_fields[fig].csv)
#define S(fig)	(mw_struct_fields[fig].csv)

struct walk {
	const struct mw_layout *l;
	const struct mw_snapshot *s;
	struct mw_columns *cols;	/* NULL: values only */
	struct mw_row *row;		/* NULL: names only */
	int n;
};

/* The next column: @name followed by @suffix, its kind and value. */
static void put(struct walk *w, const char *name, const char *suffix,
		enum mw_col_kind kind, union mw_value v, bool empty)
{
	int i = w->n;

	if (i >= MW_ROW_MAX_COLS)
		return;		/* cannot happen: the unit tests check the most */
	w->n++;
	if (w->cols) {
		snprintf(w->cols->col[i].name, MW_ROW_NAME_MAX, "%s%s", name, suffix);
		w->cols->col[i].kind = kind;
	}
	if (w->row) {
		w->row->v[i] = empty ? (union mw_value){ 0 } : v;
		w->row->kind[i] = (uint8_t)kind;
		if (empty)
			w->row->empty[i / 8] |= (uint8_t)(1u << (i % 8));
	}
}

static void put_int(struct walk *w, const char *name, const char *suffix, int64_t v,
		    bool empty)
{
	put(w, name, suffix, MW_COL_INT, (union mw_value){ .i = v }, empty);
}

static void put_uint(struct walk *w, const char *name, const char *suffix, uint64_t v,
		     bool empty)
{
	put(w, name, suffix, MW_COL_UINT, (union mw_value){ .u = v }, empty);
}

/* The heap's counters and the figures beside them; empty under --no-heap
 * and while the target's allocator probes are detached (--max-overhead):
 * no figure is better than a false or a stale one. */
static void heap_columns(struct walk *w)
{
	const struct mw_snapshot *s = w->s;
	bool heap = fields__heap(w->l, s);

	for (size_t i = 0; i < mw_ncounter_fields; i++) {
		const struct mw_counter_field *c = &mw_counter_fields[i];
		bool empty = c->heap && !heap;

		if (c->counter < 0)	/* a live figure: may be negative */
			put_int(w, c->csv, "", fields__counter(c, s), empty);
		else
			put_uint(w, c->csv, "", s->c[c->counter], empty);
	}
	put_uint(w, T(MW_TF_MISSED), "", s->lost_missed, false);
	put_uint(w, T(MW_TF_RSS), "", s->rss_bytes, false);
	put(w, T(MW_TF_OVERHEAD), "", MW_COL_PERCENT,
	    (union mw_value){ .d = s->overhead_percent }, false);
	put_uint(w, T(MW_TF_HEAP_ATTACHED), "", heap, false);
	put(w, T(MW_TF_HEAP_SINCE), "", MW_COL_TIME,
	    (union mw_value){ .i = (int64_t)s->heap_since.tv_sec * 1000000000 +
				   s->heap_since.tv_nsec }, !heap);
	if (w->l->sites) {
		put_uint(w, T(MW_TF_SITES), "", s->sites ? s->sites->nrows : 0, !heap);
		put_uint(w, T(MW_TF_SUSPECTS), "", s->sites ? s->sites->suspects : 0, !heap);
		put_uint(w, T(MW_TF_TRUNCATED), "", s->sites ? s->sites->truncated : 0, !heap);
	}
}

/* Always there: a target whose glibc cannot be read has them empty. */
static void glibc_columns(struct walk *w)
{
	const struct mw_snapshot *s = w->s;

	for (size_t i = 0; i < mw_nglibc_fields; i++) {
		const struct mw_glibc_field *g = &mw_glibc_fields[i];

		if (g->kind == MW_G_RATIO)
			put(w, g->csv, "", MW_COL_RATIO,
			    (union mw_value){ .d = s->glibc.fragmentation }, !s->has_glibc);
		else
			put_uint(w, g->csv, "", fields__glibc(g, &s->glibc), !s->has_glibc);
	}
}

static void struct_columns(struct walk *w)
{
	for (int i = 0; i < w->l->nstructs; i++) {
		const struct mw_struct_sample *ss = &w->s->s[i];
		const char *n = w->l->structs[i].name;

		/* a structure whose probes were detached has no figures */
		put_int(w, n, S(MW_STF_ELEMENTS), ss->elements, ss->detached);
		put_int(w, n, S(MW_STF_BYTES), ss->bytes, ss->detached || !fields__heap(w->l, w->s));
		if (w->l->structs[i].size)
			put_int(w, n, S(MW_STF_ESTIMATED), ss->estimated_bytes, ss->detached);
		put_uint(w, n, S(MW_STF_INSERTS), ss->insert_calls, ss->detached);
		put_uint(w, n, S(MW_STF_REMOVES), ss->remove_calls, ss->detached);
		put_uint(w, n, S(MW_STF_UNWOUND), ss->unwound_calls, ss->detached);
		if (!w->l->structs[i].read)
			continue;
		/* no figure from a walk that did not finish, nor a part of one */
		put_int(w, n, S(MW_STF_LENGTH), ss->length, !ss->read_complete || !ss->length_known);
		put_uint(w, n, S(MW_STF_RETAINED), ss->retained_bytes, !ss->read_complete);
		put_uint(w, n, S(MW_STF_READ_ERRORS), ss->read_errors, false);
		put_uint(w, n, S(MW_STF_READ_COMPLETE), ss->read_complete, false);
		put_uint(w, n, S(MW_STF_ROOTS), ss->roots, false);
	}
}

static void walk(struct walk *w)
{
	const struct mw_snapshot *s = w->s;

	put(w, "timestamp", "", MW_COL_TIME,
	    (union mw_value){ .i = (int64_t)s->when.tv_sec * 1000000000 + s->when.tv_nsec }, false);
	put_int(w, "pid", "", s->pid, false);
	heap_columns(w);
	glibc_columns(w);
	struct_columns(w);
}

void row__columns(const struct mw_layout *l, struct mw_columns *cols)
{
	static const struct mw_snapshot none;	/* names only: values unused */
	struct walk w = { .l = l, .s = &none, .cols = cols };

	walk(&w);
	cols->n = w.n;
}

void row__fill(const struct mw_layout *l, const struct mw_snapshot *s, struct mw_row *r)
{
	struct walk w = { .l = l, .s = s, .row = r };

	memset(r->empty, 0, sizeof(r->empty));
	walk(&w);
	r->n = w.n;
}

struct timespec row__time(const struct mw_row *r, int i)
{
	return (struct timespec){ .tv_sec = r->v[i].i / 1000000000,
				  .tv_nsec = r->v[i].i % 1000000000 };
}

void row__format(const struct mw_row *r, int i, char *buf, size_t len)
{
	struct timespec ts;

	if (row__empty(r, i)) {
		if (len)
			buf[0] = '\0';
		return;
	}
	switch ((enum mw_col_kind)r->kind[i]) {
	case MW_COL_TIME:
		ts = row__time(r, i);
		timestamp__rfc3339(&ts, buf, len);
		break;
	case MW_COL_INT:
		snprintf(buf, len, "%" PRId64, r->v[i].i);
		break;
	case MW_COL_UINT:
		snprintf(buf, len, "%" PRIu64, r->v[i].u);
		break;
	case MW_COL_RATIO:
		snprintf(buf, len, "%.6f", r->v[i].d);
		break;
	case MW_COL_PERCENT:
		snprintf(buf, len, "%.3f", r->v[i].d);
		break;
	}
}
