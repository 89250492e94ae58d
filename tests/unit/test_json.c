// SPDX-License-Identifier: GPL-2.0
/*
 * test_json.c - the JSON API's documents against the CSV feed: a snapshot
 * with a distinct value in every field is written both ways, the JSON
 * parsed back with json-c, and every CSV column must be a member with the
 * same text (an empty field: null), and no member more. Then the history
 * array, the sites document, the API's answers (400, 404, 503) and the
 * page's files.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "web/api.h"
#include "export/csv.h"
#include "sample/history.h"
#include "web/json.h"
#include "web/page.h"

#define MAX_COLS 128

static const struct mw_struct_spec structs[] = {
	{ .name = "cache", .size = 64 },
	{ .name = "index", .size = 0 },
};

static struct mw_site_row site_rows[] = {
	{ .addr = 0x401234, .live_bytes = 245760, .live_blocks = 60, .allocs = 60,
	  .name = "make_buffers+0xe (app) app.c:44" },
	{ .addr = 0x401300, .live_bytes = 36960, .live_blocks = 370, .allocs = 371,
	  .suspect = true, .name = "grow<\"cache\">+0xe (app) app.c:38" },
};

static struct mw_insert_row insert_rows[] = {
	{ .addr = 0x401500, .struct_id = 1, .calls = 90, .name = "path_b+0x5 (app) app.c:67" },
};

static struct mw_sites sites = {
	.rows = site_rows, .nrows = 2, .ins = insert_rows, .nins = 1, .suspects = 1,
};

static struct mw_layout layout_of(bool heap)
{
	return (struct mw_layout){ .structs = structs, .nstructs = 2, .heap = heap,
				   .sites = heap, .top = 10 };
}

/* Every counter distinct, so that a value under the wrong name shows. */
static void snapshot(struct mw_snapshot *s, pid_t pid, int step, bool glibc)
{
	memset(s, 0, sizeof(*s));
	s->when = (struct timespec){ 1764700000 + step, 123456789 };
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "app-%d", pid);
	for (int k = 0; k < MW_C__COUNT; k++)
		s->c[k] = (uint64_t)(1000 + 10 * k + step);
	s->lost_missed = 7;
	s->live_bytes = -123456 + step;		/* negative: counts from attach */
	s->live_allocations = 789 + step;
	s->rss_bytes = 18446744073709551000ull;	/* past int64: a uint64 */
	s->probes_single_stepped = 3;
	s->overhead_percent = 1.5 + step;
	s->heap_attached = true;
	s->heap_since = (struct timespec){ 1764699000, 500000000 };
	s->nstructs = 2;
	s->s[0] = (struct mw_struct_sample){ .elements = 500 + step, .bytes = 77777, .estimated_bytes = 32000,
			.insert_calls = 600, .remove_calls = 100, .alloc_bytes = 90000 };
	s->s[1] = (struct mw_struct_sample){ .elements = -3, .bytes = 4064, .estimated_bytes = 0,
			.insert_calls = 222, .remove_calls = 128, .alloc_bytes = 4064 };
	s->sites = &sites;
	s->has_glibc = glibc;
	s->glibc = (struct mw_glibc_sample){
		.arena = 2854912, .ordblks = 744, .smblks = 729, .hblks = 2, .hblkhd = 270336,
		.fsmblks = 62208, .uordblks = 1042304, .fordblks = 1812608, .keepcost = 18224,
		.arenas = 1, .mmap_threshold = 131072, .trim_threshold = 131072,
		.fragmentation = 0.634909, .consistent = true,
	};
}

/* ------------------------------------------------------------ helpers */

struct csv {
	char *text;
	char *f[MAX_COLS];
	int n;
};

static void split(char *text, struct csv *out)
{
	char *p = text;

	text[strcspn(text, "\n")] = '\0';
	out->text = text;
	for (out->n = 0; out->n < MAX_COLS;) {
		out->f[out->n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
}

static void csv_of(const struct mw_layout *l, const struct mw_snapshot *s,
		   struct csv *header, struct csv *row)
{
	char *h = NULL, *r = NULL;
	size_t hl = 0, rl = 0;
	FILE *f = open_memstream(&h, &hl);

	cr_assert_eq(csv__write_header(f, l), 0, "the CSV header");
	fclose(f);
	f = open_memstream(&r, &rl);
	cr_assert_eq(csv__write_row(f, l, s), 0, "the CSV row");
	fclose(f);
	split(h, header);
	split(r, row);
}

/* @o has exactly the CSV's columns, each with the CSV's text. */
static void expect_same_as_csv(struct json_object *o, const struct csv *header,
			       const struct csv *row, const char *what)
{
	cr_assert(json_object_is_type(o, json_type_object), "%s is an object", what);
	cr_expect_eq(json_object_object_length(o), header->n,
		     "%s has one member per CSV column (%d), no more", what, header->n);
	for (int i = 0; i < header->n; i++) {
		struct json_object *v;
		const char *name = header->f[i], *text;

		cr_assert(json_object_object_get_ex(o, name, &v), "%s has member %s", what, name);
		if (!*row->f[i]) {
			cr_expect_null(v, "%s: empty CSV field %s is null", what, name);
			continue;
		}
		cr_assert_not_null(v, "%s: %s is not null (CSV: %s)", what, name, row->f[i]);
		if (json_object_is_type(v, json_type_string)) {
			cr_expect(!strcmp(name, "timestamp") || !strcmp(name, "heap_since"),
				  "%s: only the timestamps are strings, not %s", what, name);
			text = json_object_get_string(v);
		} else {
			cr_expect(json_object_is_type(v, json_type_int) ||
				  json_object_is_type(v, json_type_double),
				  "%s: %s is a number", what, name);
			text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
		}
		cr_expect_str_eq(text, row->f[i], "%s: %s is %s, as in the CSV", what, name, row->f[i]);
	}
}

/* Element @i of array @a is @s's CSV row, column for column. */
static void expect_csv_at(struct json_object *a, int i, const struct mw_layout *l,
			  const struct mw_snapshot *s, const char *kind)
{
	struct csv header, row;
	char what[48];

	snprintf(what, sizeof(what), "%s %d", kind, i);
	csv_of(l, s, &header, &row);
	expect_same_as_csv(json_object_array_get_idx(a, i), &header, &row, what);
	free(header.text);
	free(row.text);
}

static struct json_object *parse(const char *text, size_t len)
{
	struct json_object *o = json_tokener_parse(text);

	cr_assert_not_null(o, "valid JSON: %.*s", (int)(len > 300 ? 300 : len), text);
	cr_assert_eq(strlen(text), len, "the length given is the text's");
	return o;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "member %s", key);
	return v;
}

/* ------------------------------------------------------------ snapshot */

static void snapshot_case(bool heap, bool glibc)
{
	struct mw_layout l = layout_of(heap);
	struct mw_json_meta m = { .interval_s = 0.25, .history = 3600 };
	struct mw_snapshot s[2];
	const struct mw_snapshot *all[2] = { &s[0], &s[1] };
	struct json_object *doc, *targets;
	char *text;
	size_t len;

	snapshot(&s[0], 4242, 0, glibc);
	snapshot(&s[1], 4243, 1, !glibc);
	cr_assert_eq(json__snapshot(&l, &m, all, 2, &text, &len), 0, "json__snapshot");
	doc = parse(text, len);
	targets = member(doc, "targets");
	cr_assert_eq(json_object_array_length(targets), 2, "one object per target");
	for (int t = 0; t < 2; t++)
		expect_csv_at(targets, t, &l, &s[t], "target");
	json_object_put(doc);
	free(text);
}

Test(json, snapshot__every_csv_column_same_text)
{
	snapshot_case(true, true);
}

Test(json, snapshot__empty_fields_null_no_heap_no_glibc)
{
	snapshot_case(false, false);
}

Test(json, snapshot__what_the_page_needs_besides_rows)
{
	struct mw_layout l = layout_of(true);
	struct mw_json_meta m = { .interval_s = 0.25, .history = 77, .history_rows = 5,
				  .history_bytes = 6000 };
	struct mw_snapshot s;
	const struct mw_snapshot *all[1] = { &s };
	struct json_object *doc, *procs;
	char *text;
	size_t len;

	snapshot(&s, 4242, 0, true);
	cr_assert_eq(json__snapshot(&l, &m, all, 1, &text, &len), 0);
	doc = parse(text, len);
	cr_expect_str_eq(json_object_to_json_string(member(doc, "interval_seconds")), "0.25",
			 "the interval");
	cr_expect_eq(json_object_get_int(member(doc, "history_samples")), 77, "--history");
	cr_expect_eq(json_object_get_int(member(doc, "history_rows_kept")), 5, "rows kept");
	cr_expect_eq(json_object_get_int(member(doc, "history_bytes")), 6000, "their memory");
	cr_expect_str_eq(json_object_to_json_string_ext(member(doc, "structures"), JSON_C_TO_STRING_PLAIN),
			 "[\"cache\",\"index\"]", "the structures' names, in order");
	procs = member(doc, "processes");
	cr_expect_str_eq(json_object_get_string(member(json_object_array_get_idx(procs, 0), "comm")),
			 "app-4242", "each process's name");
	cr_expect(json_object_get_boolean(member(doc, "sites")), "sites tracked");
	json_object_put(doc);
	free(text);
}

/* ------------------------------------------------------------ history */

Test(json, history__rows_oldest_first_same_as_csv)
{
	struct mw_layout l = layout_of(true);
	struct mw_hist *h = history__new(&l, 100, 1 << 20, 1);
	struct json_object *doc;
	struct mw_snapshot s[3];
	uint8_t *buf;
	char *text;
	size_t n, len;

	cr_assert_not_null(h);
	for (int i = 0; i < 3; i++) {
		struct mw_row r;

		snapshot(&s[i], 4242, i, i != 1);
		row__fill(&l, &s[i], &r);
		cr_assert_eq(history__add(h, 0, 4242, &r), 0);
	}
	cr_assert_eq(history__copy(h, 4242, &buf, &n), 0);
	cr_assert_eq(json__history(h, buf, n, &text, &len), 0, "json__history");
	doc = parse(text, len);
	cr_assert(json_object_is_type(doc, json_type_array), "an array");
	cr_assert_eq(json_object_array_length(doc), 3, "one object per row");
	for (int i = 0; i < 3; i++)
		expect_csv_at(doc, i, &l, &s[i], "history row");
	json_object_put(doc);
	free(text);
	free(buf);
	cr_assert_eq(json__history(h, NULL, 0, &text, &len), 0, "an empty history");
	cr_expect_str_eq(text, "[]", "is an empty array");
	free(text);
	history__free(h);
}

/* ------------------------------------------------------------ sites */

Test(json, sites__top_sites_suspects_and_growers)
{
	struct mw_layout l = layout_of(true);
	struct mw_snapshot s;
	const struct mw_snapshot *all[1] = { &s };
	struct json_object *doc, *t, *list;
	char *text;
	size_t len;

	snapshot(&s, 4242, 0, true);
	cr_assert_eq(json__sites(&l, all, 1, &text, &len), 0);
	doc = parse(text, len);
	t = json_object_array_get_idx(member(doc, "targets"), 0);
	cr_expect_eq(json_object_get_int(member(t, "pid")), 4242, "the pid");
	list = member(t, "sites");
	cr_assert_eq(json_object_array_length(list), 2, "every site, up to --top");
	cr_expect_eq(json_object_get_int64(member(json_object_array_get_idx(list, 0), "live_bytes")),
		     245760, "live bytes of the first");
	cr_expect_str_eq(json_object_get_string(member(json_object_array_get_idx(list, 1), "site")),
			 "grow<\"cache\">+0xe (app) app.c:38", "names come back whole (escaped)");
	list = member(t, "leak_suspects");
	cr_assert_eq(json_object_array_length(list), 1, "the one suspect");
	cr_expect(json_object_get_boolean(member(json_object_array_get_idx(list, 0), "leak_suspect")),
		  "flagged");
	list = member(t, "grown_by");
	cr_expect_str_eq(json_object_get_string(member(json_object_array_get_idx(list, 0), "struct")),
			 "index", "the structure grown, by name");
	json_object_put(doc);
	free(text);

	l.top = 1;
	cr_assert_eq(json__sites(&l, all, 1, &text, &len), 0);
	doc = parse(text, len);
	t = json_object_array_get_idx(member(doc, "targets"), 0);
	cr_expect_eq(json_object_array_length(member(t, "sites")), 1, "--top 1 lists one site");
	json_object_put(doc);
	free(text);
}

/* --max-overhead detached the heap: its sites are stale, none listed;
 * the structures' growers go on. */
Test(json, sites__heap_detached__no_sites_growers_kept)
{
	struct mw_layout l = layout_of(true);
	struct mw_snapshot s;
	const struct mw_snapshot *all[1] = { &s };
	struct json_object *doc, *t;
	char *text;
	size_t len;

	snapshot(&s, 4242, 0, true);
	s.heap_attached = false;
	cr_assert_eq(json__sites(&l, all, 1, &text, &len), 0);
	doc = parse(text, len);
	t = json_object_array_get_idx(member(doc, "targets"), 0);
	cr_expect_eq(json_object_array_length(member(t, "sites")), 0, "no stale site");
	cr_expect_eq(json_object_array_length(member(t, "leak_suspects")), 0, "no stale suspect");
	cr_expect_gt(json_object_array_length(member(t, "grown_by")), 0, "the growers stay");
	json_object_put(doc);
	free(text);
}

/* ------------------------------------------------------------ answers */

static char *answer(struct mw_api *a, const char *path, const char *pid, unsigned status)
{
	struct mw_api_reply r;
	char *body;

	cr_assert_eq(api__answer(a, path, pid, &r), 0, "%s?pid=%s answered", path, pid ? pid : "");
	cr_expect_eq(r.status, status, "%s?pid=%s: %u, got %u: %.*s", path, pid ? pid : "(none)",
		     status, r.status, (int)r.len, r.body);
	body = strndup(r.body, r.len);
	free(r.body);
	if (status >= 400) {
		cr_expect_str_eq(r.type, "text/plain; charset=utf-8", "an error is plain text");
		cr_expect(strlen(body) > 1 && strchr(body, '\n') == body + strlen(body) - 1,
			  "one line: [%s]", body);
	} else {
		cr_expect_str_eq(r.type, "application/json", "JSON");
	}
	return body;
}

Test(json, api__status_of_each_request)
{
	struct mw_layout l = layout_of(true);
	struct mw_json_meta m = { .interval_s = 1, .history = 10 };
	struct mw_hist *h = history__new(&l, 10, 1 << 20, 2);
	struct mw_api *a = api__new(&l, &m, h);
	struct mw_snapshot s[2];
	const struct mw_snapshot *all[2] = { &s[0], &s[1] };
	static const char *const bad[] = { "", "abc", "0", "-1", "+5", " 5", "5 ", "1e3",
					   "2147483648", "99999999999", "12x" };
	struct mw_row r;

	cr_assert(h && a);
	free(answer(a, "/api/snapshot", NULL, 503));	/* before the first interval */
	snapshot(&s[0], 4242, 0, true);
	snapshot(&s[1], 4243, 0, true);
	cr_assert_eq(api__publish(a, all, 2), 0, "api__publish");
	row__fill(&l, &s[0], &r);
	cr_assert_eq(history__add(h, 0, 4242, &r), 0);

	free(answer(a, "/api/snapshot", NULL, 200));
	free(answer(a, "/api/sites", NULL, 200));
	free(answer(a, "/api/history", NULL, 400));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		free(answer(a, "/api/history", bad[i], 400));
	free(answer(a, "/api/history", "2147483647", 404));
	char *body = answer(a, "/api/history", "77", 404);
	cr_expect_str_eq(body, "memwatch: pid 77 is not watched\n", "names the pid");
	free(body);
	body = answer(a, "/api/history", "4243", 200);
	cr_expect_str_eq(body, "[]", "a watched process without rows yet: an empty array");
	free(body);
	body = answer(a, "/api/history", "4242", 200);
	cr_expect_eq(body[0], '[', "an array");
	cr_expect(strstr(body, "\"pid\":4242"), "of pid 4242's rows");
	free(body);
	free(answer(a, "/api/nothing", NULL, 404));
	api__free(a);
	history__free(h);

	l.sites = false;
	h = history__new(&l, 10, 1 << 20, 1);
	a = api__new(&l, &m, h);
	cr_assert_eq(api__publish(a, all, 1), 0);
	body = answer(a, "/api/sites", NULL, 404);
	cr_expect(strstr(body, "--top N"), "names the options that track sites: %s", body);
	free(body);
	api__free(a);
	history__free(h);
}

Test(json, parse_pid__whole_decimal_in_range)
{
	pid_t pid = 0;

	cr_expect_eq(api__parse_pid("1", &pid), 0);
	cr_expect_eq(pid, 1);
	cr_expect_eq(api__parse_pid("2147483647", &pid), 0, "the largest pid_t");
	cr_expect_eq(pid, 2147483647);
	pid = 5;
	cr_expect_eq(api__parse_pid(NULL, &pid), -1, "absent");
	cr_expect_eq(api__parse_pid("0x10", &pid), -1, "hex");
	cr_expect_eq(api__parse_pid("00000000001", &pid), -1, "more than 10 digits");
	cr_expect_eq(pid, 5, "left untouched on failure");
}

/* ------------------------------------------------------------ page */

Test(json, page__files_built_in)
{
	struct mw_page_file f;
	char *text;

	cr_assert_eq(page__find("/", &f), 0, "the page at /");
	text = strndup((const char *)f.body, f.len);
	cr_expect_str_eq(f.type, "text/html; charset=utf-8");
	cr_expect(strstr(text, "href=\"/metrics\""), "links to /metrics");
	cr_expect(strstr(text, "href=\"/debug/pprof/heap\""), "and to the profiles");
	cr_expect(strstr(text, "src=\"/static/dygraph.min.js\""), "loads dygraphs from memwatch");
	cr_expect_null(strstr(text, "http://"), "nothing from the network");
	cr_expect_null(strstr(text, "https://"), "nothing from the network");
	free(text);
	cr_assert_eq(page__find("/static/dygraph.min.js", &f), 0, "dygraphs");
	cr_expect_gt(f.len, 100000, "the whole library (%zu bytes)", f.len);
	cr_expect(!strncmp((const char *)f.body, "/*! @license", 12), "Debian's minified file");
	text = strndup((const char *)f.body, f.len);
	cr_expect_null(strstr(text, "sourceMappingURL"), "no source map to fetch");
	free(text);
	cr_expect_eq(page__find("/static/page.js", &f), 0, "the page's script");
	cr_expect_eq(page__find("/static/page.css", &f), 0, "its style");
	cr_expect_eq(page__find("/static/dygraph.min.css", &f), 0, "dygraphs' style");
	cr_expect_eq(page__find("/static/", &f), -1, "nothing else");
	cr_expect_eq(page__find("/index.html", &f), -1, "nothing else");
}
