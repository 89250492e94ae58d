// SPDX-License-Identifier: GPL-2.0
/*
 * test_budget.c - what memwatch's probes cost a target: the estimate in
 * every row (overhead_percent), which rises while the probes run and
 * falls idle (its accuracy is make bench's: ÷cost); and --max-overhead,
 * which detaches a target's allocator probes after
 * MW_OVER_BUDGET_INTERVALS intervals over it (malloc's breakpoint goes),
 * its structure counts exact throughout, and SIGUSR1, which puts them
 * back with heap figures exact from heap_since. No check here is a time.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "harness.h"

static char feed_path[64];
#define FEED (feed_path[0] ? feed_path : \
	      (snprintf(feed_path, sizeof(feed_path), "/tmp/memwatch-budget-%d.csv", \
			(int)getpid()), feed_path))

#define INTERVAL "0.25"

struct run {
	struct proc target, mw;
	char header[8192], row[8192];
	uint64_t malloc_addr;	/* in the target: a breakpoint while probed */
};

/* The target's reply to @cmd. */
static char *ask(struct run *r, const char *cmd)
{
	char *line;

	proc_send(&r->target, cmd);
	line = proc_line(&r->target);
	cr_assert(line && strncmp(line, "error", 5), "the target answers '%s': [%s]", cmd,
		  line ? line : "");
	return line;
}

static double spin_ns(struct run *r, int ms)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "spin %d\n", ms);
	return atof(strstr(ask(r, cmd), "ns=") + 3);
}

/* Whether the target's malloc has memwatch's breakpoint. */
static bool probed(struct run *r)
{
	return peek_byte(r->target.pid, r->malloc_addr) == 0xcc;
}

/* The target, then memwatch on it with @extra
 * (after the reg structure's options). */
static void start(struct run *r, const char *const extra[])
{
	const char *target[] = { TARGET("budget_target"), NULL };
	const char *argv[24] = { MEMWATCH, "-i", INTERVAL, "-o", FEED, "--struct", "reg",
				 "--insert", "reg_add" };
	char pid[16], *line;
	int k = 9;

	unlink(FEED);
	proc_spawn(&r->target, target);
	line = proc_line(&r->target);
	cr_assert(line, "the target starts");
	r->malloc_addr = (uint64_t)reply_int(line, "malloc");
	snprintf(pid, sizeof(pid), "%d", (int)r->target.pid);
	argv[k++] = "-p";
	argv[k++] = pid;
	for (int i = 0; extra && extra[i]; i++)
		argv[k++] = extra[i];
	argv[k] = NULL;
	proc_spawn(&r->mw, argv);
	cr_assert(file_wait_rows(FEED, 1, r->header, sizeof(r->header), r->row,
				 sizeof(r->row)) >= 1, "memwatch writes rows: %s", proc_stderr(&r->mw));
}

static void stop(struct run *r)
{
	proc_kill(&r->mw, SIGTERM);
	cr_expect_eq(proc_wait(&r->mw), 0, "memwatch ends cleanly: %s", proc_stderr(&r->mw));
	proc_kill(&r->target, SIGTERM);
	proc_wait(&r->target);
	unlink(FEED);
}

/* The newest row, written after now. */
static void settle(struct run *r)
{
	int n = file_rows(FEED, r->header, sizeof(r->header), r->row, sizeof(r->row));

	cr_assert(file_wait_rows(FEED, n + 2, r->header, sizeof(r->header), r->row,
				 sizeof(r->row)) >= n + 2, "the feed goes on");
}

static long long col(struct run *r, const char *name)
{
	return csv_int(r->header, r->row, name);
}

static void field(struct run *r, const char *row, const char *name, char *out, size_t len)
{
	int c = csv_col(r->header, name);

	cr_assert(c >= 0 && csv_field(row, c, out, len), "column %s is there", name);
}

/* Every row of the feed, from the first: @fn(row index, row) each. */
static int rows(void (*fn)(struct run *, int, const char *, void *), struct run *r, void *ctx)
{
	FILE *f = fopen(FEED, "r");
	static char line[8192];
	int i = -1;

	cr_assert_not_null(f, "the feed is readable");
	while (fgets(line, sizeof(line), f)) {
		if (i >= 0 && strchr(line, '\n'))
			fn(r, i, line, ctx);
		i++;
	}
	fclose(f);
	return i;
}

struct detach_seen {
	int first_over, first_detached;
};

static void note_detach(struct run *r, int i, const char *row, void *ctx)
{
	struct detach_seen *d = ctx;
	char v[64];

	field(r, row, "overhead_percent", v, sizeof(v));
	if (d->first_over < 0 && atof(v) > 5)
		d->first_over = i;
	field(r, row, "heap_attached", v, sizeof(v));
	if (d->first_detached < 0 && !strcmp(v, "0"))
		d->first_detached = i;
}

Test(budget, over_budget__heap_detached_structures_exact__sigusr1_exact_again, .timeout = MW_TIMEOUT)
{
	static char response[1 << 16];
	char port[16], path[96];
	const char *extra[] = { "--max-overhead", "5", "--top", "5", "-l", port, NULL };
	struct detach_seen d = { -1, -1 };
	struct run r;
	long long reg_bytes;
	char v[64], *line;

	snprintf(port, sizeof(port), "%d", free_port());
	start(&r, extra);
	line = ask(&r, "add 50\n");
	cr_assert_eq(reply_int(line, "elements"), 50, "50 elements");
	reg_bytes = reply_int(line, "batch_bytes");
	/* spinning keeps the probes over budget until memwatch detaches
	 * them: the breakpoint leaves malloc */
	cr_assert(wait_until((spin_ns(&r, 200), !probed(&r)), "malloc's breakpoint to go"),
		  "the allocator's probes are detached: %s", proc_stderr(&r.mw));
	/* it says so just after the breakpoint leaves malloc */
	cr_expect(wait_until(strstr(proc_stderr(&r.mw), "over --max-overhead 5%: detached"),
			     "memwatch to say the probes are detached"),
		  "says so once on stderr: %s", proc_stderr(&r.mw));
	settle(&r);
	rows(note_detach, &r, &d);
	cr_assert(d.first_over >= 0 && d.first_detached > d.first_over,
		  "a row over budget (%d) before the first detached one (%d)", d.first_over,
		  d.first_detached);
	cr_expect_leq(d.first_detached - d.first_over, MW_OVER_BUDGET_INTERVALS,
		      "detached within %d intervals of the first over budget (rows %d, %d)",
		      MW_OVER_BUDGET_INTERVALS, d.first_over, d.first_detached);
	/* detached: heap figures empty, structure counts exact */
	line = ask(&r, "add 30\n");
	settle(&r);
	cr_expect_eq(col(&r, "heap_attached"), 0, "the feed says the heap is detached");
	field(&r, r.row, "heap_live_bytes", v, sizeof(v));
	cr_expect_str_eq(v, "", "heap figures are empty, not stale");
	field(&r, r.row, "reg_bytes", v, sizeof(v));
	cr_expect_str_eq(v, "", "so are the structure's bytes");
	field(&r, r.row, "heap_since", v, sizeof(v));
	cr_expect_str_eq(v, "", "and heap_since");
	cr_expect_eq(col(&r, "reg_elements"), 80, "the structure's count stays exact");
	cr_expect_eq(col(&r, "reg_insert_calls"), 80, "every call counted");
	spin_ns(&r, 200);
	cr_expect_not(probed(&r), "malloc stays without a breakpoint while detached");
	/* no profile either: 404 naming why, for the whole and for the pid */
	snprintf(path, sizeof(path), "/debug/pprof/heap?pid=%d", (int)r.target.pid);
	cr_expect_eq(http_request(atoi(port), "GET", path, NULL, response, sizeof(response)), 404,
		     "%s while detached: 404", path);
	cr_expect(strstr(http_body(response), "detached"), "saying why: %s", http_body(response));
	cr_expect_eq(http_request(atoi(port), "GET", "/debug/pprof/allocs", NULL, response,
				  sizeof(response)), 404, "the whole profile too");
	cr_expect(strstr(http_body(response), "every process's allocator probes are detached"),
		  "saying why: %s", http_body(response));

	/* SIGUSR1: back, exact from heap_since */
	proc_kill(&r.mw, SIGUSR1);
	cr_assert(wait_until(strstr(proc_stderr(&r.mw), "are back (SIGUSR1)"),
			     "memwatch to say the probes are back"), "says so: %s",
		  proc_stderr(&r.mw));
	line = ask(&r, "keep 100\n");
	cr_assert_eq(reply_int(line, "bytes"), 4800, "100 blocks of 48 bytes");
	line = ask(&r, "add 5\n");
	reg_bytes = reply_int(line, "batch_bytes");
	settle(&r);
	cr_expect_eq(col(&r, "heap_attached"), 1, "attached again");
	cr_expect(probed(&r), "malloc's breakpoint is back");
	cr_expect_eq(col(&r, "heap_live_allocations"), 105, "the blocks made since: 100 + 5");
	cr_expect_eq(col(&r, "heap_live_bytes"), 4800 + reg_bytes,
		     "their bytes exactly, from heap_since");
	cr_expect_eq(col(&r, "reg_bytes"), reg_bytes, "the structure's bytes since, exactly");
	cr_expect_eq(col(&r, "reg_elements"), 85, "its count went on");
	field(&r, r.row, "heap_since", v, sizeof(v));
	cr_expect(strlen(v) == 24 && v[10] == 'T', "heap_since is a timestamp: '%s'", v);
	cr_expect_eq(col(&r, "lost_unpaired"), 0, "nothing lost on the way");
	cr_expect_eq(http_request(atoi(port), "GET", path, NULL, response, sizeof(response)), 200,
		     "%s: the profile is back", path);
	stop(&r);
}

/* --no-heap: the structures' probes alone over the budget; the costliest
 * goes, named, its columns empty; the other keeps counting exactly. */
Test(budget, structures_over_budget__costliest_detached_others_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "side", "--insert", "side_add", "--no-heap",
				"--max-overhead", "5", NULL };
	struct run r;
	char v[64], *line;

	start(&r, extra);
	ask(&r, "side 7\n");
	wait_until((ask(&r, "add 20000\n"), strstr(proc_stderr(&r.mw), "structure reg's probes")),
		   "memwatch to detach the structure reg");
	cr_assert(strstr(proc_stderr(&r.mw), "structure reg's probes") &&
		  strstr(proc_stderr(&r.mw), "its probes are detached"),
		  "says which structure went: %s", proc_stderr(&r.mw));
	line = ask(&r, "side 5\n");
	cr_assert_eq(reply_int(line, "elements"), 12, "the target's own tally");
	settle(&r);
	field(&r, r.row, "reg_elements", v, sizeof(v));
	cr_expect_str_eq(v, "", "the detached structure's count is empty, not stale");
	field(&r, r.row, "reg_insert_calls", v, sizeof(v));
	cr_expect_str_eq(v, "", "its calls too");
	cr_expect_eq(col(&r, "side_elements"), 12, "the other one counts on, exactly");
	cr_expect_eq(col(&r, "heap_attached"), 0, "no heap probes (--no-heap)");
	stop(&r);
}

Test(budget, within_budget__heap_kept_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--max-overhead", "5", NULL };
	struct run r;
	char *line;

	start(&r, extra);
	line = ask(&r, "trickle 40 2000\n");
	cr_assert_eq(reply_int(line, "bytes"), 40 * 64, "40 blocks of 64 bytes");
	line = ask(&r, "add 20\n");
	settle(&r);
	cr_expect_eq(col(&r, "heap_attached"), 1, "the heap probes stay");
	cr_expect_eq(col(&r, "heap_live_allocations"), 60, "40 kept + 20 elements, exactly");
	cr_expect_eq(col(&r, "heap_live_bytes"), 40 * 64 + reply_int(line, "batch_bytes"),
		     "their bytes, exactly");
	cr_expect_not(strstr(proc_stderr(&r.mw), "detached"), "nothing detached: %s",
		      proc_stderr(&r.mw));
	stop(&r);
}

/*
 * The estimate in each row: above zero for an interval the target spent
 * spinning through probed calls, back to about nothing once it idles.
 * How close it is to the slowdown the target measures is make bench's
 * (the allocators' ÷cost column), not a test's: that is a timing.
 */
Test(budget, estimate__rises_while_probed_falls_idle, .timeout = MW_TIMEOUT)
{
	struct run r;
	char *line;
	char v[64];
	int before;

	start(&r, NULL);
	ask(&r, "spin 0\n");	/* until told to stop */
	before = file_rows(FEED, r.header, sizeof(r.header), r.row, sizeof(r.row));
	/* a row sampled during the spin: the second from now (memwatch
	 * samples and writes one row after another) */
	cr_assert(file_wait_rows(FEED, before + 2, r.header, sizeof(r.header), r.row,
				 sizeof(r.row)) > before + 1, "rows during the spin");
	line = ask(&r, "stop\n");
	cr_assert(!strncmp(line, "spun", 4), "the spin ends: [%s]", line);
	field(&r, r.row, "overhead_percent", v, sizeof(v));
	cr_expect_gt(atof(v), 0, "probed calls cost something: %s%%", v);
	/* the third row from now: the second was sampled after the spin, so
	 * the third's whole interval is idle */
	before = file_rows(FEED, r.header, sizeof(r.header), r.row, sizeof(r.row));
	cr_assert(file_wait_rows(FEED, before + 3, r.header, sizeof(r.header), r.row,
				 sizeof(r.row)) >= before + 3, "rows after the spin");
	field(&r, r.row, "overhead_percent", v, sizeof(v));
	cr_expect_lt(atof(v), 1, "idle again: ~0%%, got %s", v);
	stop(&r);
}
