// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - the JSON writer, over the rows of row.c, with json-c (Debian's
 * libjson-c-dev): it escapes and formats every key and value. A ratio is
 * given json-c with the text the CSV feed writes (json_object_new_double_s),
 * so both feeds carry the same digits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "export/fields.h"
#include "web/json.h"
#include "export/timestamp.h"

static struct json_object *value(const struct mw_row *r, int i)
{
	char text[64];

	switch ((enum mw_col_kind)r->kind[i]) {
	case MW_COL_TIME:
		row__format(r, i, text, sizeof(text));
		return json_object_new_string(text);
	case MW_COL_INT:
		return json_object_new_int64(r->v[i].i);
	case MW_COL_UINT:
		return json_object_new_uint64(r->v[i].u);
	case MW_COL_RATIO:
	case MW_COL_PERCENT:
		row__format(r, i, text, sizeof(text));
		return json_object_new_double_s(r->v[i].d, text);
	}
	return NULL;
}

/* Adds @v (taken over) under @key; false when @v is NULL (it could not
 * be made) or out of memory. */
static bool add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v && !json_object_object_add(o, key, v))
		return true;
	json_object_put(v);
	return false;
}

struct json_object *json__row(const struct mw_columns *cols, const struct mw_row *r)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; o && i < cols->n && i < r->n; i++) {
		const char *name = cols->col[i].name;
		/* json-c writes a NULL member as null */
		bool ok = row__empty(r, i) ? !json_object_object_add(o, name, NULL)
					   : add(o, name, value(r, i));

		if (!ok) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

/* The text of @o into a malloc'd *@out; @o is released. */
static int finish(struct json_object *o, char **out, size_t *len)
{
	const char *text;
	size_t n;

	if (!o)
		return -ENOMEM;
	text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &n);
	*out = text ? malloc(n + 1) : NULL;
	if (*out) {
		memcpy(*out, text, n + 1);
		*len = n;
	}
	json_object_put(o);
	return *out ? 0 : -ENOMEM;
}

/* ---------------------------------------------------------- /api/snapshot */

static struct json_object *rows_of(const struct mw_layout *l, const struct mw_columns *cols,
				   const struct mw_snapshot *const *all, int n)
{
	struct json_object *a = json_object_new_array_ext(n);
	struct mw_row *r = malloc(sizeof(*r));

	for (int i = 0; a && r && i < n; i++) {
		struct json_object *o;

		row__fill(l, all[i], r);
		o = json__row(cols, r);
		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			json_object_put(a);
			a = NULL;
		}
	}
	if (!r) {
		json_object_put(a);
		a = NULL;
	}
	free(r);
	return a;
}

static struct json_object *processes(const struct mw_snapshot *const *all, int n)
{
	struct json_object *a = json_object_new_array_ext(n);

	for (int i = 0; a && i < n; i++) {
		struct json_object *p = json_object_new_object();

		if (!p || !add(p, "pid", json_object_new_int(all[i]->pid)) ||
		    !add(p, "comm", json_object_new_string(all[i]->comm)) ||
		    json_object_array_add(a, p)) {
			json_object_put(p);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static struct json_object *struct_names(const struct mw_layout *l)
{
	struct json_object *a = json_object_new_array_ext(l->nstructs);

	for (int i = 0; a && i < l->nstructs; i++) {
		struct json_object *s = json_object_new_string(l->structs[i].name);

		if (!s || json_object_array_add(a, s)) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int json__snapshot(const struct mw_layout *l, const struct mw_json_meta *m,
		   const struct mw_snapshot *const *all, int n, char **out, size_t *len)
{
	struct mw_columns *cols = malloc(sizeof(*cols));
	struct json_object *o = json_object_new_object();
	bool ok = cols && o;
	char interval[32];

	if (cols)
		row__columns(l, cols);
	snprintf(interval, sizeof(interval), "%g", m->interval_s);
	ok = ok && add(o, "interval_seconds", json_object_new_double_s(m->interval_s, interval));
	ok = ok && add(o, "history_samples", json_object_new_uint64(m->history));
	ok = ok && add(o, "history_rows_kept", json_object_new_uint64(m->history_rows));
	ok = ok && add(o, "history_bytes", json_object_new_uint64(m->history_bytes));
	ok = ok && add(o, "heap", json_object_new_boolean(l->heap));
	ok = ok && add(o, "sites", json_object_new_boolean(l->sites));
	ok = ok && add(o, "structures", struct_names(l));
	ok = ok && add(o, "processes", processes(all, n));
	ok = ok && add(o, "targets", rows_of(l, cols, all, n));
	free(cols);
	if (!ok) {
		json_object_put(o);
		return -ENOMEM;
	}
	return finish(o, out, len);
}

/* ---------------------------------------------------------- /api/history */

/*
 * An array of n rows, written one row object at a time: the whole array
 * as one json-c tree would take some 15 times the text's memory (3600
 * rows of 350 columns: over 100 MiB) for a moment. json-c writes every
 * object; only the brackets and commas between them are written here.
 */
int json__history(const struct mw_hist *h, const uint8_t *buf, size_t n,
		  char **out, size_t *len)
{
	const struct mw_columns *cols = history__columns(h);
	struct mw_row *r = malloc(sizeof(*r));
	FILE *f;
	int err;

	*out = NULL;
	f = open_memstream(out, len);
	err = r && f ? 0 : -ENOMEM;

	if (f)
		fputc('[', f);
	for (size_t i = 0; i < n && !err; i++) {
		struct json_object *o;
		const char *text;

		history__unpack(h, buf, i, r);
		o = json__row(cols, r);
		text = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
		if (text)
			fprintf(f, "%s%s", i ? "," : "", text);
		else
			err = -ENOMEM;
		json_object_put(o);
	}
	if (f) {
		fputc(']', f);
		if (fclose(f) && !err)
			err = -ENOMEM;
	}
	free(r);
	if (err && f) {
		free(*out);
		*out = NULL;
	}
	return err;
}

/* ---------------------------------------------------------- /api/sites */

static struct json_object *site(const struct mw_site_row *r)
{
	struct json_object *o = json_object_new_object();

	if (o && add(o, "live_bytes", json_object_new_int64(r->live_bytes)) &&
	    add(o, "live_blocks", json_object_new_int64(r->live_blocks)) &&
	    add(o, "allocs", json_object_new_uint64(r->allocs)) &&
	    add(o, "leak_suspect", json_object_new_boolean(r->suspect)) &&
	    add(o, "site", json_object_new_string(r->name ? r->name : "")))
		return o;
	json_object_put(o);
	return NULL;
}

/* The first @top sites, or with @suspects the first @top suspects. */
static struct json_object *site_list(const struct mw_sites *st, int top, bool suspects)
{
	struct json_object *a = json_object_new_array();
	int listed = 0;

	for (size_t i = 0; a && st && i < st->nrows && listed < top; i++) {
		struct json_object *o;

		if (suspects && !st->rows[i].suspect)
			continue;
		o = site(&st->rows[i]);
		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		listed++;
	}
	return a;
}

static struct json_object *grown_by(const struct mw_layout *l, const struct mw_snapshot *s)
{
	const struct mw_sites *st = s->sites;
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && st && i < st->nins && i < (size_t)l->top; i++) {
		const struct mw_insert_row *r = &st->ins[i];
		struct json_object *o;

		if (s->s[r->struct_id].detached)
			continue;	/* its counts stopped */
		o = json_object_new_object();
		if (!o || !add(o, "struct", json_object_new_string(l->structs[r->struct_id].name)) ||
		    !add(o, "calls", json_object_new_uint64(r->calls)) ||
		    !add(o, "site", json_object_new_string(r->name ? r->name : "")) ||
		    json_object_array_add(a, o)) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static struct json_object *sites_of(const struct mw_layout *l, const struct mw_snapshot *s)
{
	struct json_object *o = json_object_new_object();
	char ts[48];

	/* a detached heap's sites are stale: none listed; its growers go on */
	const struct mw_sites *heap_sites = fields__heap(l, s) ? s->sites : NULL;

	timestamp__rfc3339(&s->when, ts, sizeof(ts));
	if (o && add(o, "pid", json_object_new_int(s->pid)) &&
	    add(o, "timestamp", json_object_new_string(ts)) &&
	    add(o, "sites", site_list(heap_sites, l->top, false)) &&
	    add(o, "leak_suspects", site_list(heap_sites, l->top, true)) &&
	    add(o, "grown_by", grown_by(l, s)))
		return o;
	json_object_put(o);
	return NULL;
}

int json__sites(const struct mw_layout *l, const struct mw_snapshot *const *all, int n,
		char **out, size_t *len)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array_ext(n);

	for (int i = 0; a && i < n; i++) {
		struct json_object *t = sites_of(l, all[i]);

		if (!t || json_object_array_add(a, t)) {
			json_object_put(t);
			json_object_put(a);
			a = NULL;
		}
	}
	if (!o || !a || !add(o, "targets", a)) {
		json_object_put(o);
		return -ENOMEM;
	}
	return finish(o, out, len);
}
