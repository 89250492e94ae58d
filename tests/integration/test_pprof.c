// SPDX-License-Identifier: GPL-2.0
/*
 * test_pprof.c - heap profiles read by the tool people use: fetch
 * /debug/pprof/heap and /allocs from memwatch on sites_target (sites in
 * the executable and in a shared library, three threads) and read them
 * with `go tool pprof` (Debian's golang-go): each site's function holds
 * the target's own byte tally, the totals equal the feed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "session.h"

static const char *const sites_target[] = { TARGET("sites_target"), NULL };

/* go tool pprof -top of @file on @index, in bytes or counts: the flat
 * value of @func's line, or the total ("of N total") if @func is NULL. */
static long long top_value(const char *file, const char *index, const char *func)
{
	static char out[1 << 16];
	char cmd[512], *line;
	long long v = -1;

	snprintf(cmd, sizeof(cmd), "go tool pprof -top -sample_index=%s %s %s 2>&1",
		 index, strstr(index, "space") ? "-unit=B" : "", file);
	cr_assert_eq(run_capture(cmd, out, sizeof(out)), 0, "go tool pprof -top: %s", out);
	if (!func) {
		line = strstr(out, "% of ");
		cr_assert(line, "a total in [%s]", out);
		sscanf(line, "%% of %lld", &v);
		return v;
	}
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(line), f = strlen(func);

		if (n > f && !strcmp(line + n - f, func) && line[n - f - 1] == ' ')
			sscanf(line, " %lld", &v);
	}
	return v;
}

struct run {
	struct session s;
	int port;
	char dir[64], file[128], reply[512];
};

static void start(struct run *r, bool sites)
{
	char port[16];

	snprintf(r->dir, sizeof(r->dir), "/tmp/memwatch-pprof-XXXXXX");
	cr_assert(mkdtemp(r->dir), "temp dir");
	snprintf(r->file, sizeof(r->file), "%s/written.pb.gz", r->dir);
	r->port = free_port();
	snprintf(port, sizeof(port), "%d", r->port);
	const char *with[] = { "--top", "5", "-l", port, "--pprof", r->file, NULL };
	const char *without[] = { "-l", port, NULL };

	session_start_target(&r->s, sites_target, sites ? with : without);
	snprintf(r->reply, sizeof(r->reply), "%s", session_command(&r->s, "run\n"));
	session_settle(&r->s);
	session_settle(&r->s);	/* the profile published with that row */
}

static void stop(struct run *r)
{
	session_stop(&r->s);
	temp_dir_remove(r->dir);
}

Test(pprof, heap_profile__go_tool_pprof_reads_exact_bytes, .timeout = MW_TIMEOUT)
{
	char path[256], hdr[2048], raw[1 << 14];
	struct run r;

	start(&r, true);
	snprintf(path, sizeof(path), "%s/heap.pb.gz", r.dir);
	cr_assert_eq(http_fetch(r.port, "/debug/pprof/heap", path, hdr, sizeof(hdr)), 200, "%s", hdr);
	cr_expect(strstr(hdr, "Content-Type: application/octet-stream"), "as Go serves it: [%s]", hdr);
	cr_expect(!strstr(hdr, "Content-Encoding"), "gzipped body, no Content-Encoding: [%s]", hdr);

	snprintf(path, sizeof(path), "go tool pprof -raw %s/heap.pb.gz 2>&1", r.dir);
	cr_expect_eq(run_capture(path, raw, sizeof(raw)), 0, "-raw parses: %s", raw);
	cr_expect(strstr(raw, "inuse_space/bytes[dflt]"), "inuse_space by default: %s", raw);
	cr_expect(strstr(raw, "pid:["), "samples carry the pid: %s", raw);
	cr_expect(strstr(raw, "sites_target ") && strstr(raw, "libsites.so "),
		  "mappings of the executable and the library: %s", raw);
	cr_expect(strstr(raw, "[FN][FL][LN]"), "symbolized with lines: %s", raw);

	snprintf(path, sizeof(path), "%s/heap.pb.gz", r.dir);
	cr_expect_eq(top_value(path, "inuse_space", "make_buffers"),
		     reply_int(r.reply, "make_buffers"), "make_buffers (%s)", r.reply);
	cr_expect_eq(top_value(path, "inuse_space", "grow_cache"),
		     reply_int(r.reply, "grow_cache"), "grow_cache (%s)", r.reply);
	cr_expect_eq(top_value(path, "inuse_space", "lib_alloc"),
		     reply_int(r.reply, "lib_alloc"), "the library's site (%s)", r.reply);
	cr_expect_eq(top_value(path, "inuse_space", NULL), session_int(&r.s, "heap_live_bytes"),
		     "inuse_space total = heap_live_bytes");
	cr_expect_eq(top_value(path, "inuse_objects", NULL),
		     session_int(&r.s, "heap_live_allocations"), "inuse_objects total");
	cr_expect_eq(top_value(path, "alloc_space", NULL), session_int(&r.s, "heap_alloc_bytes"),
		     "alloc_space total = heap_alloc_bytes");
	cr_expect_eq(top_value(path, "alloc_objects", NULL), session_int(&r.s, "heap_alloc_calls"),
		     "alloc_objects total = heap_alloc_calls");

	/* allocs: the same samples, alloc_space first, as Go's */
	snprintf(path, sizeof(path), "%s/allocs.pb.gz", r.dir);
	cr_assert_eq(http_fetch(r.port, "/debug/pprof/allocs", path, hdr, sizeof(hdr)), 200, "%s", hdr);
	snprintf(path, sizeof(path), "go tool pprof -raw %s/allocs.pb.gz 2>&1", r.dir);
	cr_expect_eq(run_capture(path, raw, sizeof(raw)), 0, "-raw parses: %s", raw);
	cr_expect(strstr(raw, "alloc_space/bytes[dflt]"), "alloc_space by default: %s", raw);

	/* one target's, by pid; bad and unknown pids */
	snprintf(path, sizeof(path), "/debug/pprof/heap?pid=%d", (int)r.s.target.pid);
	cr_expect_eq(http_fetch(r.port, path, r.file, hdr, sizeof(hdr)), 200, "?pid= of the target");
	snprintf(path, sizeof(path), "%s/bad", r.dir);
	cr_expect_eq(http_fetch(r.port, "/debug/pprof/heap?pid=x1", path, hdr, sizeof(hdr)), 400);
	cr_expect_eq(http_fetch(r.port, "/debug/pprof/heap?pid=1", path, hdr, sizeof(hdr)), 404);
	{
		char twice[96];

		snprintf(twice, sizeof(twice), "/debug/pprof/heap?pid=%d&pid=1", (int)r.s.target.pid);
		cr_expect_eq(http_fetch(r.port, twice, path, hdr, sizeof(hdr)), 400, "%s: pid twice", twice);
	}

	/* the landing page links the profiles */
	snprintf(path, sizeof(path), "%s/index.html", r.dir);
	cr_expect_eq(http_fetch(r.port, "/", path, hdr, sizeof(hdr)), 200);
	snprintf(path, sizeof(path), "grep -c 'href=\"/debug/pprof/heap\"\\|href=\"/debug/pprof/allocs\"' %s/index.html", r.dir);
	cr_expect_eq(run_capture(path, raw, sizeof(raw)), 0, "links on /: %s", raw);
	cr_expect_eq(atoi(raw), 1, "one line with both links: %s", raw);

	/* --pprof PATH: the same profile, rewritten each interval */
	cr_expect_eq(top_value(r.file, "inuse_space", "make_buffers"),
		     reply_int(r.reply, "make_buffers"), "--pprof file (%s)", r.reply);
	stop(&r);
}

Test(pprof, no_site_tracking__404_names_the_option, .timeout = MW_TIMEOUT)
{
	char path[256], hdr[2048], body[512];
	struct run r;
	FILE *f;
	size_t n;

	start(&r, false);
	snprintf(path, sizeof(path), "%s/none", r.dir);
	cr_expect_eq(http_fetch(r.port, "/debug/pprof/heap", path, hdr, sizeof(hdr)), 404);
	f = fopen(path, "r");
	cr_assert(f);
	n = fread(body, 1, sizeof(body) - 1, f);
	body[n] = '\0';
	fclose(f);
	cr_expect(strstr(body, "--top N") && strchr(body, '\n') == body + n - 1,
		  "one line naming the option: [%s]", body);
	stop(&r);
}

/* ?struct=NAME: the sites holding one structure's bytes; its total is
 * the feed's NAME_bytes (struct_script: two structures, four threads) */
Test(pprof, struct_profile__totals_equal_the_structures_bytes, .timeout = MW_TIMEOUT)
{
	static const char *const script[] = { TARGET("struct_script"), "100", NULL };
	char dir[] = "/tmp/memwatch-pprof-XXXXXX", path[256], file[256], hdr[2048], port[16];
	struct session s;
	int p = free_port();

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(port, sizeof(port), "%d", p);
	const char *extra[] = { "--top", "5", "-l", port,
				"--struct", "table", "--insert", "table_insert", "--delta", "ret",
				"--remove", "table_remove", "--delta", "ret",
				"--struct", "index", "--insert", "index_add",
				"--insert", "index_add_batch", "--delta", "arg2",
				"--remove", "index_del", NULL };
	session_start_target(&s, script, extra);
	session_command(&s, "run\n");
	session_settle(&s);
	session_settle(&s);
	cr_assert_gt(session_int(&s, "table_bytes"), 0, "the table holds bytes");
	cr_assert_gt(session_int(&s, "index_bytes"), 0, "the index holds bytes");
	snprintf(file, sizeof(file), "%s/table.pb.gz", dir);
	cr_assert_eq(http_fetch(p, "/debug/pprof/heap?struct=table", file, hdr, sizeof(hdr)), 200, "%s", hdr);
	cr_expect_eq(top_value(file, "inuse_space", NULL), session_int(&s, "table_bytes"),
		     "the table's profile totals table_bytes");
	cr_expect(top_value(file, "inuse_space", "table_insert") > 0,
		  "table_insert's site holds the table's bytes");
	snprintf(file, sizeof(file), "%s/index.pb.gz", dir);
	snprintf(path, sizeof(path), "/debug/pprof/heap?pid=%d&struct=index", (int)s.target.pid);
	cr_assert_eq(http_fetch(p, path, file, hdr, sizeof(hdr)), 200, "%s", hdr);
	cr_expect_eq(top_value(file, "inuse_space", NULL), session_int(&s, "index_bytes"),
		     "the index's profile totals index_bytes");
	cr_expect_eq(http_fetch(p, "/debug/pprof/heap?struct=nosuch", file, hdr, sizeof(hdr)), 404);
	cr_expect_eq(http_fetch(p, "/debug/pprof/heap?struct=", file, hdr, sizeof(hdr)), 400);
	session_stop(&s);
	temp_dir_remove(dir);
}

/* --stacks: one sample a stack, leaf first; pprof sees the callers */
Test(pprof, stacks__samples_carry_the_callers, .timeout = MW_TIMEOUT)
{
	static const char *const fp[] = { TARGET("sites_target_fp"), NULL };
	char dir[] = "/tmp/memwatch-pprof-XXXXXX", file[256], hdr[2048], port[16], cmd[512];
	static char out[1 << 16];
	struct session s;
	int p = free_port();
	char *reply, flat[16];
	long long cum = -1;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(port, sizeof(port), "%d", p);
	const char *extra[] = { "--stacks", "-l", port, NULL };
	session_start_target(&s, fp, extra);
	reply = session_command(&s, "run\n");
	session_settle(&s);
	session_settle(&s);
	snprintf(file, sizeof(file), "%s/heap.pb.gz", dir);
	cr_assert_eq(http_fetch(p, "/debug/pprof/heap", file, hdr, sizeof(hdr)), 200, "%s", hdr);
	cr_expect_eq(top_value(file, "inuse_space", "make_buffers"),
		     reply_int(reply, "make_buffers"), "the leaf keeps its bytes (%s)", reply);
	cr_expect_eq(top_value(file, "inuse_space", NULL), session_int(&s, "heap_live_bytes"),
		     "inuse_space total = heap_live_bytes");
	/* worker (the thread function) holds, cumulatively, none flat, the
	 * bytes of all it calls: make_buffers', grow_cache's, and lib_alloc's
	 * in libsites.so (built without frame pointers: its stack is whole by
	 * the unwind tables) */
	snprintf(cmd, sizeof(cmd),
		 "go tool pprof -top -cum -sample_index=inuse_space -unit=B %s 2>&1 | grep ' worker$'",
		 file);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, "worker is in the stacks: %s", out);
	cr_expect_eq(sscanf(out, " %15s %*s %*s %lld", flat, &cum), 2, "a -top line: [%s]", out);
	cr_expect(!strcmp(flat, "0") || !strcmp(flat, "0B"), "worker holds nothing itself: [%s]", out);
	cr_expect_eq(cum, reply_int(reply, "make_buffers") + reply_int(reply, "grow_cache") +
			  reply_int(reply, "lib_alloc"),
		     "worker's callees' bytes, cumulatively: [%s] (%s)", out, reply);
	session_stop(&s);
	temp_dir_remove(dir);
}

/* The cumulative inuse bytes `go tool pprof -top -cum` gives @func in
 * @file, or -1 when it is not there. */
static long long cum_value(const char *file, const char *func)
{
	static char out[1 << 16];
	char cmd[512], *line;
	long long v = -1;

	snprintf(cmd, sizeof(cmd), "go tool pprof -top -cum -sample_index=inuse_space -unit=B %s 2>&1",
		 file);
	cr_assert_eq(run_capture(cmd, out, sizeof(out)), 0, "go tool pprof -top -cum: %s", out);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(line), f = strlen(func);

		if (n > f && !strcmp(line + n - f, func) && line[n - f - 1] == ' ')
			sscanf(line, " %*s %*s %*s %lld", &v);
	}
	return v;
}

/* A Rust node built --release without frame pointers: its heap profile
 * names its own functions, each holding, cumulatively, what its callees
 * hold (the stacks are whole by the unwind tables). submit only calls
 * add_certificate (its own note is freed): the same bytes. */
Test(pprof, rust_release__its_functions_cumulative_bytes, .timeout = MW_TIMEOUT)
{
	static const char *const rust[] = { TARGET("rust_node"), NULL };
	char dir[] = "/tmp/memwatch-pprof-XXXXXX", file[256], hdr[2048], port[16];
	struct session s;
	int p = free_port();
	long long add, submit, top;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(port, sizeof(port), "%d", p);
	const char *extra[] = { "--stacks", "-l", port, NULL };
	session_start_target(&s, rust, extra);
	session_command(&s, "run 300\n");
	session_settle(&s);
	session_settle(&s);
	snprintf(file, sizeof(file), "%s/heap.pb.gz", dir);
	cr_assert_eq(http_fetch(p, "/debug/pprof/heap", file, hdr, sizeof(hdr)), 200, "%s", hdr);
	add = cum_value(file, "rust_node::consensus::ConsensusState::add_certificate");
	submit = cum_value(file, "rust_node::submit");
	top = cum_value(file, "rust_node::main");
	cr_expect_gt(add, 0, "add_certificate is named, with the DAG's bytes");
	cr_expect_eq(submit, add, "submit holds what add_certificate holds");
	cr_expect_geq(top, add, "and main at least as much (%lld, %lld)", top, add);
	session_stop(&s);
	temp_dir_remove(dir);
}
