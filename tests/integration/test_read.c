// SPDX-License-Identifier: GPL-2.0
/*
 * test_read.c - structures read from outside (--read): integers found by
 * their DWARF types in the target's memory, through a global struct, a
 * pointer to a heap block that moves, an array index, and a static. The
 * target changes them from four threads; at each quiescent point the
 * figures equal its own, and a walk that cannot finish (a NULL pointer)
 * is counted and marked incomplete, never a wrong figure. Then Rust's
 * and libstdc++'s containers, in the wrappers statics sit in: their
 * length and the bytes they retain equal the target's own tally, taken
 * by a counting allocator that knows no layout.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "session.h"

static const char *const read_c[] = { TARGET("read_c"), NULL };
static const char *const read_c_nodebug[] = { TARGET("read_c.nodebug"), NULL };
static const char *const read_c_split[] = { TARGET("read_c.split"), NULL };
static const char *const read_rust[] = { TARGET("read_rust"), NULL };
static const char *const read_cxx[] = { TARGET("read_cxx"), NULL };

/* A structure --read names. */
struct container {
	const char *name;	/* --struct and the target's reply key */
	const char *expr;
};

static void field(struct session *s, const char *column, char *out, size_t len)
{
	int c = csv_col(s->header, column);

	cr_assert(c >= 0 && csv_field(s->row, c, out, len), "column %s is there: %s", column,
		  s->header);
}

/* Structure @name read whole this interval, with @want. */
static void expect_read(struct session *s, const char *name, long long want, const char *reply)
{
	char col[96];

	snprintf(col, sizeof(col), "%s_length", name);
	cr_expect_eq(session_int(s, col), want, "%s equals the target's (%s)", col, reply);
	snprintf(col, sizeof(col), "%s_read_complete", name);
	cr_expect_eq(session_int(s, col), 1, "%s: the walk completed", name);
	snprintf(col, sizeof(col), "%s_retained_bytes", name);
	cr_expect_eq(session_int(s, col), 0, "%s: an integer owns no memory", name);
	snprintf(col, sizeof(col), "%s_roots", name);
	cr_expect_eq(session_int(s, col), 1, "%s: one root, a global", name);
	snprintf(col, sizeof(col), "%s_read_errors", name);
	cr_expect_eq(session_int(s, col), 0, "%s: no failed walk", name);
}

Test(read, c_integers__exact_at_each_quiescent_point, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap",
				"--struct", "count2", "--read", "srv.tab->shard[2].count",
				"--struct", "gen", "--read", "srv.generation",
				"--struct", "level", "--read", "level", NULL };
	struct session s;
	char *reply, v[64];
	const char *err;

	session_start_target(&s, read_c, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "--read 'srv.tab->shard[2].count' reads srv as an integer (long int)"),
		  "says what it reads, and its type: %s", err);
	for (int round = 0; round < 3; round++) {
		reply = session_command(&s, "run 20000\n");
		session_settle(&s);
		expect_read(&s, "count2", reply_int(reply, "count2"), reply);
		expect_read(&s, "gen", reply_int(reply, "generation"), reply);
		expect_read(&s, "level", reply_int(reply, "level"), reply);
		if (round == 1) {	/* the table moves: the pointer is read anew */
			reply = session_command(&s, "swap\n");
			session_settle(&s);
			expect_read(&s, "count2", reply_int(reply, "count2"), reply);
		}
	}
	cr_expect_lt(session_int(&s, "level_length"), 0, "a signed int read as one");
	session_command(&s, "drop\n");
	session_settle(&s);
	field(&s, "count2_length", v, sizeof(v));
	cr_expect_str_empty(v, "a walk through NULL gives no figure, not a stale one");
	cr_expect_eq(session_int(&s, "count2_read_complete"), 0, "and is marked incomplete");
	cr_expect_gt(session_int(&s, "count2_read_errors"), 0, "and counted");
	cr_expect_eq(session_int(&s, "gen_read_complete"), 1, "the other structures go on");
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* Each container's figures against the target's tally in @reply. */
static void expect_containers(struct session *s, const struct container *c, size_t n,
			      const char *reply)
{
	char col[96], key[96];

	for (size_t i = 0; i < n; i++) {
		snprintf(col, sizeof(col), "%s_length", c[i].name);
		snprintf(key, sizeof(key), "%s_len", c[i].name);
		cr_expect_eq(session_int(s, col), reply_int(reply, key), "%s equals the target's %s (%s)",
			     col, key, reply);
		/* walks that met a writer while the threads ran count as
		 * errors; at the quiescent point the walk completes */
		snprintf(col, sizeof(col), "%s_read_complete", c[i].name);
		cr_expect_eq(session_int(s, col), 1, "%s: the walk completed", c[i].name);
		snprintf(col, sizeof(col), "%s_retained_bytes", c[i].name);
		snprintf(key, sizeof(key), "%s_bytes", c[i].name);
		cr_expect_eq(session_int(s, col), reply_int(reply, key),
			     "%s equals the bytes the target's allocator left live for it (%s)", col,
			     reply);
	}
}

/* Starts @targv with memwatch reading each of @c, then three rounds of
 * four threads changing them: exact at each quiescent point. */
static void containers_exact(struct session *s, const char *const targv[],
			     const struct container *c, size_t n)
{
	const char *extra[64] = { "--no-heap" };
	int k = 1;

	for (size_t i = 0; i < n && k < 60; i++) {
		extra[k++] = "--struct";
		extra[k++] = c[i].name;
		extra[k++] = "--read";
		extra[k++] = c[i].expr;
	}
	extra[k] = NULL;
	session_start_target(s, targv, extra);
	for (int round = 0; round < 3; round++) {
		char *reply = session_command(s, "run 5000\n");

		session_settle(s);
		expect_containers(s, c, n, reply);
	}
}

Test(read, rust_containers__length_and_own_buffers_exact, .timeout = MW_TIMEOUT)
{
	static const struct container c[] = {
		{ "map", "MAP" },		/* LazyLock<Mutex<HashMap<u64, u64>>> */
		{ "reg", "read_rust::REG" },	/* Mutex<Option<HashMap<u64, Vec<u8>>>> */
		{ "tree", "TREE" },		/* OnceLock<Mutex<BTreeMap<String, Vec<String>>>> */
		{ "list", "LIST" },		/* RwLock<Vec<u32>> */
		{ "queue", "QUEUE" },		/* Mutex<VecDeque<u16>> */
		{ "boxed", "BOXED" },		/* Mutex<Option<Box<Vec<u64>>>> */
		{ "shared", "SHARED" },		/* Mutex<Option<Arc<Vec<u64>>>> */
		{ "name", "NAME" },		/* Mutex<String> */
		{ "set", "SET" },		/* LazyLock<RwLock<HashSet<u32>>> */
		{ "unset", "UNSET" },		/* OnceLock<Vec<u64>>, set by "init" */
		{ "shares", "SHARES" },		/* Mutex<Vec<Arc<Vec<u64>>>>, two to an Arc */
	};
	struct session s;
	const char *err;
	char *reply;

	containers_exact(&s, read_rust, c, sizeof(c) / sizeof(c[0]));
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "--read 'MAP' reads read_rust::MAP as a HashMap"),
		  "says what it reads: %s", err);
	reply = session_command(&s, "init\n");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "unset_length"), reply_int(reply, "unset_len"),
		     "a OnceLock once set reads as its value");
	cr_expect_eq(session_int(&s, "unset_retained_bytes"), 3 * sizeof(uint64_t), "its buffer");
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

Test(read, cxx_containers__length_and_own_buffers_exact, .timeout = MW_TIMEOUT)
{
	static const struct container c[] = {
		{ "umap", "g_umap" },	/* unordered_map<string, vector<int>> */
		{ "uset", "g_uset" },	/* unordered_set<long> */
		{ "omap", "g_omap" },	/* map<int, string>, long and short */
		{ "oset", "g_oset" },	/* set<int> */
		{ "list", "g_list" },	/* list<double> */
		{ "deque", "g_deque" },	/* deque<int> */
		{ "vec", "g_vec" },	/* vector<long> */
		{ "str", "g_str" },	/* string, short and long */
		{ "uptr", "g_up" },	/* unique_ptr<vector<int>>, at times null */
		{ "shares", "g_shares" },	/* vector<shared_ptr<vector<int>>>, two to one */
	};
	struct session s;

	containers_exact(&s, read_cxx, c, sizeof(c) / sizeof(c[0]));
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* Roots that are parameters: each instance a call passes as self is read
 * every interval and summed; one dropped leaves the sum at once. */
Test(read, rust_roots__each_self_a_call_passes__summed_and_dropped, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap",
				"--struct", "peers", "--insert", "read_rust::Peer::record",
				"--remove", "read_rust::Peer::forget", "--read", "self.seen",
				"--struct", "dag", "--insert", "read_rust::Dag::insert",
				"--read", "self.rounds", NULL };
	struct session s;
	char *reply, v[64];
	const char *err;

	session_start_target(&s, read_rust, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "in each read_rust::Peer a call passes as self"),
		  "says whose instances it reads: %s", err);
	session_settle(&s);
	field(&s, "peers_length", v, sizeof(v));
	cr_expect_str_empty(v, "no figure before a call has shown an instance");
	cr_expect_eq(session_int(&s, "peers_roots"), 0);
	cr_expect_eq(session_int(&s, "peers_read_complete"), 0);
	for (int round = 0; round < 2; round++) {
		reply = session_command(&s, "run 5000\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "peers_roots"), round ? 2 : 3, "three Peers, then two");
		cr_expect_eq(session_int(&s, "peers_length"), reply_int(reply, "peers_len"),
			     "the sum of their tables' lengths (%s)", reply);
		cr_expect_eq(session_int(&s, "peers_retained_bytes"), reply_int(reply, "peers_bytes"),
			     "the sum of their tables' bytes (%s)", reply);
		cr_expect_eq(session_int(&s, "peers_read_complete"), 1);
		cr_expect_eq(session_int(&s, "dag_roots"), 1, "one Dag, on its worker's stack");
		cr_expect_eq(session_int(&s, "dag_length"), reply_int(reply, "dag_len"), "%s", reply);
		cr_expect_eq(session_int(&s, "dag_retained_bytes"), reply_int(reply, "dag_bytes"),
			     "its rounds, their tables, the certificates' payloads (%s)", reply);
		cr_expect_eq(session_int(&s, "dag_read_complete"), 1);
		if (round)
			break;
		reply = session_command(&s, "drop\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "peers_roots"), 2, "a dropped Peer is read no more");
		cr_expect_eq(session_int(&s, "peers_length"), reply_int(reply, "peers_len"),
			     "the sum follows (%s)", reply);
		cr_expect_eq(session_int(&s, "peers_retained_bytes"), reply_int(reply, "peers_bytes"),
			     "%s", reply);
	}
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* A map freed and built again over and over while memwatch reads it: no
 * row is complete and wrong (it never holds more than 96 entries), and
 * once it stops, the figures are exact. */
Test(read, rust_map_freed_and_rebuilt__never_wrong, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "reg", "--read", "REG", NULL };
	struct session s;
	char *line, reply[512];
	int rows = 0, complete = 0;

	session_start_target(&s, read_rust, extra);
	proc_send(&s.target, "churn 100000\n");
	while (rows < 20 && (line = proc_line(&s.mw))) {
		rows++;
		if (csv_int(s.header, line, "reg_read_complete") != 1)
			continue;
		complete++;
		cr_expect_leq(csv_int(s.header, line, "reg_length"), 96,
			      "a complete walk found at most the 96 entries the map ever holds: %s",
			      line);
	}
	cr_expect_eq(rows, 20, "memwatch kept writing rows: %s", proc_stderr(&s.mw));
	line = proc_line(&s.target);
	cr_assert(line, "the target churned");
	snprintf(reply, sizeof(reply), "%s", line);	/* proc_line's buffer is reused */
	session_settle(&s);
	cr_expect_eq(session_int(&s, "reg_length"), reply_int(reply, "reg_len"), "%s", reply);
	cr_expect_eq(session_int(&s, "reg_retained_bytes"), reply_int(reply, "reg_bytes"), "%s",
		     reply);
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
	cr_expect(complete > 0 || session_int(&s, "reg_read_errors") > 0,
		  "each interval either completed or counted an error");
}

/* Debug information in a file of its own (found by the object's
 * .gnu_debuglink, beside it, as gdb finds it): read the same. */
Test(read, c_separate_debug_file__read_the_same, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "gen", "--read", "srv.generation", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, read_c_split, extra);
	cr_expect(strstr(proc_stderr(&s.mw), "reads srv as an integer"), "%s", proc_stderr(&s.mw));
	reply = session_command(&s, "run 2000\n");
	session_settle(&s);
	expect_read(&s, "gen", reply_int(reply, "generation"), reply);
	session_stop(&s);
}

/* The same figures as OpenMetrics families, with the struct label. */
Test(read, openmetrics__length_errors_complete_roots_families, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("read_c"), NULL };
	struct proc t, mw;
	char pid[16], want[160], *line, *reply;
	bool length = false, errors = false, complete = false, roots = false;

	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target ready");
	proc_send(&t, "run 5000\n");
	reply = proc_line(&t);
	cr_assert(reply, "ran");
	snprintf(want, sizeof(want), "struct=\"gen\"} %lld", reply_int(reply, "generation"));
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "--no-heap", "-n", "1", "-f", "openmetrics",
			       "--struct", "gen", "--read", "srv.generation", NULL };
	proc_spawn(&mw, argv);
	while ((line = proc_line(&mw)) && strcmp(line, "# EOF")) {
		if (!strncmp(line, "memwatch_struct_length{", 23))
			length = strstr(line, want) != NULL;
		if (!strncmp(line, "memwatch_struct_read_errors_total{", 34))
			errors = strstr(line, "struct=\"gen\"} 0") != NULL;
		if (!strncmp(line, "memwatch_struct_read_complete{", 30))
			complete = strstr(line, "struct=\"gen\"} 1") != NULL;
		if (!strncmp(line, "memwatch_struct_roots{", 22))
			roots = strstr(line, "struct=\"gen\"} 1") != NULL;
	}
	cr_expect(length, "memwatch_struct_length ...%s", want);
	cr_expect(errors, "memwatch_struct_read_errors_total at 0");
	cr_expect(complete, "memwatch_struct_read_complete at 1");
	cr_expect(roots, "memwatch_struct_roots at 1: a global");
	cr_expect_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t);
}

/* What cannot be read is said in one line, exit 1; the target runs on. */
static void refused(const char *const targv[], const char *expr, const char *why)
{
	const char *extra[] = { "--no-heap", "--struct", "x", "--read", expr, NULL };
	struct session s;
	const char *err;

	session_spawn(&s, targv, extra, false);
	cr_expect_eq(proc_wait(&s.mw), 1, "--read '%s': exit 1", expr);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, why), "--read '%s' says [%s]: %s", expr, why, err);
	cr_expect_eq(strchr(err, '\n') - err + 1, (long)strlen(err), "one line: %s", err);
	session_stop(&s);
}

Test(read, what_cannot_be_read__one_line_exit_1, .timeout = MW_TIMEOUT)
{
	refused(read_c, "srv.nosuch", "has no member nosuch");
	refused(read_c, "srv.name", "names a pointer");
	refused(read_rust, "read_rust::RATIO", "names f64, which memwatch does not read");
	refused(read_c, "srv.tab->shard[9].count", "past the end");
	refused(read_c, "nosuchvariable", "no such variable");
	refused(read_c_nodebug, "srv.generation", "has no debug information");
}

Test(read, bad_expressions__usage_error, .timeout = MW_TIMEOUT)
{
	static const char *const cases[][2] = {
		{ "srv..x", "a field's name expected" },
		{ "srv[x]", "an index (a number) expected" },
		{ "srv.tab->", "a field's name expected" },
		{ "3srv", "a variable's name expected" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { MEMWATCH, "-p", "1", "--struct", "x", "--read", cases[i][0], NULL };
		const char *err;

		cr_expect_eq(run_memwatch(argv, &err), 2, "--read '%s': exit 2", cases[i][0]);
		cr_expect(strstr(err, cases[i][1]), "--read '%s' says [%s]: %s", cases[i][0],
			  cases[i][1], err);
	}
}
