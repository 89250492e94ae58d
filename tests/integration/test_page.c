// SPDX-License-Identifier: GPL-2.0
/*
 * test_page.c - the live page and its JSON, against struct_script (a hash
 * table and an index list with their own tally): Debian's chromium loads
 * the page headless, and after its scripts ran the DOM holds the heap's
 * chart, each structure's, and the element counts the target reports; a
 * screenshot is a PNG of the window's size. Python's json module reads
 * /api/snapshot and /api/history (json_matches_csv.py), which must equal
 * the CSV rows of the same intervals; bad queries get 400 and 404.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "session.h"

#define CHROMIUM	"/usr/bin/chromium"
#define CHROMIUM_FLAGS	"--headless --no-sandbox --disable-gpu --hide-scrollbars " \
			"--virtual-time-budget=5000"

/* chromium with CHROMIUM_FLAGS and @args, bounded by the test's
 * patience (a browser that never settles fails the test, saying so,
 * instead of hanging it): its exit status, as system()'s. */
static int chromium(const char *args)
{
	char cmd[1024];
	int status;

	snprintf(cmd, sizeof(cmd), "timeout %d " CHROMIUM " " CHROMIUM_FLAGS " %s",
		 patience_ms() / 1000 + 1, args);
	status = system(cmd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 124)
		cr_log_error("chromium did not finish within the test's limit: %s", args);
	return status;
}
#define CHECKER		"python3 tests/integration/json_matches_csv.py"

static const char *const script[] = { TARGET("struct_script"), "100", NULL };
static char page[1 << 22];	/* a DOM with dygraphs' canvases and labels */

struct run {
	struct session s;
	int port;
	char dir[64], feed[128];
};

/* memwatch -l PORT -o FEED -i @interval --history @history on
 * struct_script with its two structures; waits for the feed's first row
 * (the header alone is written once every probe is in). */
static void start(struct run *r, const char *interval, const char *history)
{
	char port[16], header[4096], last[4096];

	snprintf(r->dir, sizeof(r->dir), "/tmp/memwatch-page-XXXXXX");
	cr_assert(mkdtemp(r->dir), "temp dir");
	snprintf(r->feed, sizeof(r->feed), "%s/feed.csv", r->dir);
	r->port = free_port();
	snprintf(port, sizeof(port), "%d", r->port);
	const char *extra[] = { "-l", port, "-o", r->feed, "-i", interval, "--history", history,
				"--struct", "table", "--insert", "table_insert", "--delta", "ret",
				"--remove", "table_remove", "--delta", "ret",
				"--struct", "index", "--insert", "index_add", "--insert",
				"index_add_batch", "--delta", "arg2", "--remove", "index_del", NULL };
	session_spawn(&r->s, script, extra, false);
	cr_assert_geq(file_wait_rows(r->feed, 1, header, sizeof(header), last, sizeof(last)), 1,
		      "memwatch writes the feed; stderr: %s", proc_stderr(&r->s.mw));
}

static void stop(struct run *r)
{
	session_stop(&r->s);
	temp_dir_remove(r->dir);
}

/* Runs the target's script; waits until the feed shows its table count
 * (the target is idle from then on). Returns the target's reply. */
static const char *run_script(struct run *r)
{
	static char reply[512];
	char header[4096], last[4096];
	long long want;

	snprintf(reply, sizeof(reply), "%s", session_command(&r->s, "run\n"));
	want = reply_int(reply, "table_elements");
	cr_assert(wait_until(file_rows(r->feed, header, sizeof(header), last, sizeof(last)) > 0 &&
			     csv_int(header, last, "table_elements") == want,
			     "the feed to show table_elements=%lld", want),
		  "the feed never showed table_elements=%lld; stderr: %s", want,
		  proc_stderr(&r->s.mw));
	return reply;
}

/* The text of the element with id @id in the DOM, or "" if absent. */
static const char *element_text(const char *dom, const char *id)
{
	static char text[128];
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "id=\"%s\"", id);
	text[0] = '\0';
	p = strstr(dom, key);
	if (p && (p = strchr(p, '>')))
		sscanf(p + 1, "%127[^<]", text);
	return text;
}

/* Whether the chart div @id holds a canvas that dygraphs drew, before
 * the next chart starts. */
static bool chart_drawn(const char *dom, const char *id)
{
	char key[128];
	const char *p, *canvas, *next;

	snprintf(key, sizeof(key), "id=\"%s\"", id);
	p = strstr(dom, key);
	if (!p)
		return false;
	canvas = strstr(p, "<canvas");
	next = strstr(p + 1, "id=\"chart-");
	return canvas && (!next || canvas < next);
}

static void expect_chromium(void)
{
	cr_assert_eq(access(CHROMIUM, X_OK), 0,
		     CHROMIUM " is missing: `make deps` installs it (Debian's chromium)");
}

Test(page, in_chromium__charts_and_the_targets_counts, .timeout = MW_TIMEOUT)
{
	char cmd[512], header[4096], last[4096], url[64];
	long long table, index;
	const char *reply;
	struct run r;
	int rows;

	expect_chromium();
	start(&r, "0.2", "3600");
	reply = run_script(&r);
	table = reply_int(reply, "table_elements");
	index = reply_int(reply, "index_elements");
	rows = file_rows(r.feed, header, sizeof(header), last, sizeof(last));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", r.port);
	snprintf(cmd, sizeof(cmd), "timeout %d " CHROMIUM " " CHROMIUM_FLAGS " --dump-dom %s 2>/dev/null",
		 patience_ms() / 1000 + 1, url);
	cr_assert_eq(run_capture(cmd, page, sizeof(page)), 0,
		     "chromium --dump-dom %s, within the test's limit", url);

	cr_expect(chart_drawn(page, "chart-heap"), "the heap's chart is drawn (a canvas in #chart-heap)");
	cr_expect(chart_drawn(page, "chart-struct-table"), "table's chart is drawn");
	cr_expect(chart_drawn(page, "chart-struct-index"), "index's chart is drawn");
	cr_expect_eq(atoll(element_text(page, "now-table_elements")), table,
		     "the page shows table's %lld elements, as the target counts them (page: '%s')",
		     table, element_text(page, "now-table_elements"));
	cr_expect_eq(atoll(element_text(page, "now-index_elements")), index,
		     "and index's %lld (page: '%s')", index, element_text(page, "now-index_elements"));
	cr_expect_str_neq(element_text(page, "now-table_elements"), "",
			  "the count is in the DOM as a number");
	cr_expect_geq(atoi(element_text(page, "status")), rows,
		      "the page drew the whole history on load: %d rows were written before it opened (status: %s)",
		      rows, element_text(page, "status"));
	cr_expect(strstr(page, "id=\"lost\" class=\"warning\" hidden"),
		  "no lost_* counter is non-zero: the warning stays hidden");
	stop(&r);
}

/* A PNG's IHDR: width and height, big-endian, after the 8-byte signature
 * and the chunk's length and type. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char head[24];
	FILE *f = fopen(path, "rb");

	cr_assert(f, "chromium wrote %s", path);
	cr_assert_eq(fread(head, 1, sizeof(head), f), sizeof(head), "%s has a PNG header", path);
	fclose(f);
	cr_assert(!memcmp(head, sig, sizeof(sig)), "%s starts with the PNG signature", path);
	cr_assert(!memcmp(head + 12, "IHDR", 4), "its first chunk is IHDR");
	*w = (unsigned)head[16] << 24 | (unsigned)head[17] << 16 | (unsigned)head[18] << 8 | head[19];
	*h = (unsigned)head[20] << 24 | (unsigned)head[21] << 16 | (unsigned)head[22] << 8 | head[23];
}

Test(page, screenshot__a_png_of_the_window_size, .timeout = MW_TIMEOUT)
{
	char cmd[512], png[160];
	unsigned w, h;
	struct stat st;
	struct run r;

	expect_chromium();
	/* a row a second: at 0.15 of a CPU, headless chromium's screenshot
	 * of a page polling every 0.2 s did not finish in 400 s (each
	 * poll's drawing outlasts the poll), and at 1 s took 48 s */
	start(&r, "1", "3600");
	run_script(&r);
	snprintf(png, sizeof(png), "%s/page.png", r.dir);
	snprintf(cmd, sizeof(cmd), "--window-size=1100,900 --screenshot=%s http://127.0.0.1:%d/ "
		 ">/dev/null 2>&1", png, r.port);
	cr_assert_eq(chromium(cmd), 0, "chromium --screenshot");
	cr_assert_eq(stat(png, &st), 0, "the screenshot exists");
	cr_expect_gt(st.st_size, 10000, "and holds a picture (%lld bytes)", (long long)st.st_size);
	png_size(png, &w, &h);
	cr_expect_eq(w, 1100, "as wide as the window (%u)", w);
	cr_expect_eq(h, 900, "as high as the window (%u)", h);
	stop(&r);
}

Test(page, api_snapshot__equals_the_csv_row_of_its_interval, .timeout = MW_TIMEOUT)
{
	char json[160], copy[160], cmd[512], out[4096];
	const char *reply;
	struct run r;

	start(&r, "0.2", "3600");
	reply = run_script(&r);
	snprintf(json, sizeof(json), "%s/snapshot.json", r.dir);
	snprintf(copy, sizeof(copy), "%s/feed-copy.csv", r.dir);
	cr_assert_eq(http_fetch(r.port, "/api/snapshot", json, NULL, 0), 200, "GET /api/snapshot");
	/* its row was written before it was published: the feed has it */
	snprintf(cmd, sizeof(cmd), "cp %s %s", r.feed, copy);
	cr_assert_eq(system(cmd), 0, "copy the feed");
	snprintf(cmd, sizeof(cmd), CHECKER " snapshot %s %s", json, copy);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, "the snapshot is the CSV row: %s", out);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[\"targets\"][0];"
		 " print(t[\"table_elements\"], t[\"index_elements\"])' %s", json);
	cr_assert_eq(run_capture(cmd, out, sizeof(out)), 0, "python reads the figures: %s", out);
	snprintf(cmd, sizeof(cmd), "%lld %lld\n", reply_int(reply, "table_elements"),
		 reply_int(reply, "index_elements"));
	cr_expect_str_eq(out, cmd, "and they are the target's own counts (%s)", reply);
	stop(&r);
}

/* The last "timestamp" value of the JSON in @path, into @ts; and how
 * many there are (a history's rows). */
static int json_last_timestamp(const char *path, char *ts, size_t len)
{
	static char text[1 << 20];
	FILE *f = fopen(path, "r");
	const char *key = "\"timestamp\":\"", *at;
	size_t n;
	int count = 0;

	cr_assert(f, "read %s", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	ts[0] = '\0';
	for (at = strstr(text, key); at; at = strstr(at + 1, key)) {
		const char *v = at + strlen(key);

		snprintf(ts, len, "%.*s", (int)strcspn(v, "\""), v);
		count++;
	}
	return count;
}

/* Copies the feed's header and rows up to the one written at @ts into
 * @copy: the number of rows, or -1 when the feed has none at @ts yet. */
static int feed_through(const char *feed, const char *ts, const char *copy)
{
	FILE *in = fopen(feed, "r"), *out;
	char line[8192];
	int rows = -1, n = 0;

	if (!in)
		return -1;
	out = fopen(copy, "w");
	cr_assert(out, "write %s", copy);
	while (rows < 0 && fgets(line, sizeof(line), in)) {
		if (!strchr(line, '\n'))
			break;			/* a row being written */
		fputs(line, out);
		if (n++ && !strncmp(line, ts, strlen(ts)) && line[strlen(ts)] == ',')
			rows = n - 1;
	}
	fclose(in);
	fclose(out);
	return rows;
}

/* Fetches the history into @json, then copies the feed up to the
 * history's newest row into @copy: the rows sampled by then (each row
 * is kept in the history when sampled, a moment before the feed has it:
 * so the copy waits for it). The number of rows the copy has. */
static int history_with_feed(struct run *r, const char *json, const char *copy)
{
	char path[64], ts[64];
	int rows = -1;

	snprintf(path, sizeof(path), "/api/history?pid=%s", r->s.pid);
	cr_assert_eq(http_fetch(r->port, path, json, NULL, 0), 200, "GET %s", path);
	cr_assert_gt(json_last_timestamp(json, ts, sizeof(ts)), 0, "rows in the history");
	cr_assert(wait_until((rows = feed_through(r->feed, ts, copy)) >= 0,
			     "the feed's row at %s", ts),
		  "the feed has the history's newest row; stderr: %s", proc_stderr(&r->s.mw));
	return rows;
}

Test(page, api_history__rows_so_far_then_the_last_n, .timeout = MW_TIMEOUT)
{
	char json[160], copy[160], cmd[512], out[4096];
	int rows;
	struct run r;

	/* room for far more rows than the test takes to look: every row */
	start(&r, "0.25", "1000");
	snprintf(json, sizeof(json), "%s/history.json", r.dir);
	snprintf(copy, sizeof(copy), "%s/feed-copy.csv", r.dir);
	session_command(&r.s, "run\n");		/* the figures move */
	rows = history_with_feed(&r, json, copy);
	cr_assert_lt(rows, 1000, "checked with %d rows", rows);
	snprintf(cmd, sizeof(cmd), CHECKER " history %s %s %d", json, copy, rows);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0,
		     "the history is every row so far (%d), oldest first: %s", rows, out);
	stop(&r);

	/* room for 8: past 12 rows, the last 8 */
	start(&r, "0.25", "8");
	snprintf(json, sizeof(json), "%s/history.json", r.dir);
	snprintf(copy, sizeof(copy), "%s/feed-copy.csv", r.dir);
	session_command(&r.s, "run\n");
	while ((rows = history_with_feed(&r, json, copy)) < 12 &&
	       patience_wait("12 rows in the feed (%d)", rows))
		;
	snprintf(cmd, sizeof(cmd), CHECKER " history %s %s 8", json, copy);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0,
		     "after %d rows, --history 8 keeps the last 8: %s", rows, out);
	stop(&r);
}

Test(page, api_bad_queries__400_and_404_one_line, .timeout = MW_TIMEOUT)
{
	static const char *const malformed[] = {
		"/api/history", "/api/history?pid=", "/api/history?pid=abc",
		"/api/history?pid=0", "/api/history?pid=-3", "/api/history?pid=12x",
		"/api/history?pid=99999999999", "/api/history?pid=1&pid=2",
		/* a pid given twice is malformed, even the watched one first */
		"/api/history?pid=%d&pid=1", "/api/history?pid=%d&pid=%d", "/api/history?pid=%d&pid=",
		"/api/history?PID=%d&pid=1",	/* keys match in any case, as the lookup's */
	};
	static char response[1 << 16];
	char path[128];
	struct run r;
	const char *body;

	start(&r, "0.2", "10");
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int pid = (int)r.s.target.pid;

		snprintf(path, sizeof(path), malformed[i], pid, pid);
		cr_expect_eq(http_request(r.port, "GET", path, NULL, response, sizeof(response)),
			     400, "%s answers 400", path);
		body = http_body(response);
		cr_expect(strlen(body) > 1 && strchr(body, '\n') == body + strlen(body) - 1,
			  "%s: one line of text: %s", path, body);
	}
	snprintf(path, sizeof(path), "/api/history?pid=%d", (int)r.s.target.pid);
	cr_expect_eq(http_request(r.port, "GET", path, NULL, response, sizeof(response)), 200,
		     "%s once answers", path);
	/* pid 1 exists, but memwatch does not watch it */
	cr_expect_eq(http_request(r.port, "GET", "/api/history?pid=1", NULL, response, sizeof(response)),
		     404, "a pid not watched answers 404");
	cr_expect(strstr(response, "Content-Type: text/plain"), "in plain text");
	cr_expect_str_eq(http_body(response), "memwatch: pid 1 is not watched\n", "one line");
	cr_expect_eq(http_request(r.port, "GET", "/api/sites", NULL, response, sizeof(response)), 404,
		     "no sites without site tracking");
	cr_expect_eq(http_request(r.port, "GET", "/api/nothing", NULL, response, sizeof(response)), 404,
		     "an unknown API path");
	stop(&r);
}

/* "history_rows_kept" of /api/snapshot, or -1. */
static long long rows_kept(int port)
{
	static char response[1 << 18];
	const char *p;

	if (http_request(port, "GET", "/api/snapshot", NULL, response, sizeof(response)) != 200 ||
	    !(p = strstr(response, "\"history_rows_kept\":")))
		return -1;
	return atoll(p + strlen("\"history_rows_kept\":"));
}

/* A --pid target that exits leaves the API, and its rows leave the
 * history (its slot is dropped), while another's stay. */
Test(page, exited_target__its_history_is_dropped, .timeout = MW_TIMEOUT)
{
	struct proc a, b, mw;
	char pa[16], pb[16], port[16], path[64];
	static char response[1 << 16];
	int p = free_port();

	proc_spawn(&a, script);
	proc_spawn(&b, script);
	cr_assert(proc_line(&a) && proc_line(&b), "targets ready");
	snprintf(pa, sizeof(pa), "%d", (int)a.pid);
	snprintf(pb, sizeof(pb), "%d", (int)b.pid);
	snprintf(port, sizeof(port), "%d", p);
	const char *argv[] = { MEMWATCH, "-p", pa, "-p", pb, "-i", "0.05", "-l", port,
			       "--history", "20", "-o", "/dev/null", NULL };
	proc_spawn(&mw, argv);
	wait_until(rows_kept(p) == 40, "both targets' 20 rows in the history");
	cr_assert_eq(rows_kept(p), 40, "both targets' 20 rows are kept; stderr: %s", proc_stderr(&mw));
	proc_send(&a, "quit\n");
	proc_wait(&a);
	snprintf(path, sizeof(path), "/api/history?pid=%s", pa);
	wait_until(http_request(p, "GET", path, NULL, response, sizeof(response)) == 404,
		   "%s to answer 404", path);
	cr_expect_eq(http_request(p, "GET", path, NULL, response, sizeof(response)), 404,
		     "the exited pid leaves the API");
	cr_expect_eq(rows_kept(p), 20, "and its rows the history: the other's 20 stay");
	snprintf(path, sizeof(path), "/api/history?pid=%s", pb);
	cr_expect_eq(http_request(p, "GET", path, NULL, response, sizeof(response)), 200,
		     "the other is still served");
	proc_kill(&mw, SIGTERM);
	proc_wait(&mw);
	proc_send(&b, "quit\n");
	proc_wait(&b);
}
