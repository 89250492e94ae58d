// SPDX-License-Identifier: GPL-2.0
/*
 * test_faults.c - what a hostile or unlucky world does to memwatch: a
 * target that forks, stops, holds over 2 GiB; privileges after attach;
 * a symlink at the output path; garbage and oversized HTTP requests; bad
 * values for every option; a long run compressed into seconds.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "session.h"

Test(faults, fork__child_neither_counted_nor_confused, .timeout = MW_TIMEOUT)
{
	struct session s;

	session_start(&s, "2", "10", NULL);
	session_expect_tally(&s, session_command(&s, "run\n"));
	/* the child allocates 500 blocks and frees 250 of them */
	session_expect_tally(&s, session_command(&s, "fork\n"));
	cr_expect_eq(session_int(&s, "heap_untracked_frees"), 20,
		     "the child's frees are not the parent's untracked frees");
	session_expect_tally(&s, session_command(&s, "free\n"));
	session_stop(&s);
}

Test(faults, target_stopped__sampling_goes_on, .timeout = MW_TIMEOUT)
{
	struct session s;

	session_start(&s, "1", "5", NULL);
	kill(s.target.pid, SIGSTOP);
	proc_skip(&s.mw, NULL, 0);
	cr_expect(proc_lines(&s.mw, 5, NULL, 0), "rows keep coming while the target is stopped");
	kill(s.target.pid, SIGCONT);
	session_expect_tally(&s, session_command(&s, "run\n"));
	session_stop(&s);
}

Test(faults, over_2_gib__64_bit_figures, .timeout = MW_TIMEOUT)
{
	struct session s;
	char *reply;

	session_start(&s, "1", "1", NULL);
	reply = session_command(&s, "big\n");
	cr_assert_geq(reply_int(reply, "live_bytes"), 3LL << 30, "the target holds 3 GiB");
	session_expect_tally(&s, reply);
	session_expect_tally(&s, session_command(&s, "free\n"));
	session_stop(&s);
}

/* Capabilities after attach, in every thread (the exporter's too). */
Test(faults, privileges__dropped_after_attach, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "-l", NULL, NULL };
	char port[16], path[64], line[256];
	unsigned long long eff = 0, bnd = 0;
	struct session s;
	int nnp = -1;
	FILE *f;

	snprintf(port, sizeof(port), "%d", free_port());
	extra[1] = port;
	session_start(&s, "1", "1", extra);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)s.mw.pid);
	f = fopen(path, "r");
	cr_assert(f, "memwatch's status");
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapEff: %llx", &eff);
		sscanf(line, "CapBnd: %llx", &bnd);
		sscanf(line, "NoNewPrivs: %d", &nnp);
	}
	fclose(f);
	/* capabilities are per thread: every thread of memwatch's gave them
	 * up (one started before the drop keeps them) */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)s.mw.pid);
	DIR *tasks = opendir(path);
	struct dirent *d;
	int threads = 0;

	cr_assert(tasks, "memwatch's threads");
	while ((d = readdir(tasks))) {
		char tpath[512];
		unsigned long long teff = ~0ull;

		if (d->d_name[0] == '.')
			continue;
		snprintf(tpath, sizeof(tpath), "%s/%s/status", path, d->d_name);
		if (!(f = fopen(tpath, "r")))
			continue;	/* gone since */
		while (fgets(line, sizeof(line), f))
			sscanf(line, "CapEff: %llx", &teff);
		fclose(f);
		threads++;
		cr_expect_eq(teff, eff, "thread %s has the capabilities its process kept (%llx, not %llx)",
			     d->d_name, eff, teff);
	}
	closedir(tasks);
	cr_expect_geq(threads, 1, "memwatch's threads were read");
	cr_expect_eq(nnp, 1, "no_new_privs is set");
	/* perf-event uprobes need it to attach a process found later */
	if (strstr(kernel_mechanism(), "perf-event uprobes")) {
		cr_expect_neq(eff & (1ull << 21), 0, "CAP_SYS_ADMIN stays, for perf-event uprobes");
	} else {
		cr_expect_eq(eff & (1ull << 21), 0, "CAP_SYS_ADMIN is gone");
		cr_expect_eq(bnd & (1ull << 21), 0, "and cannot come back (bounding set)");
	}
	cr_expect_eq(eff & ((1ull << 6) | (1ull << 7)), 0, "CAP_SETUID and CAP_SETGID are gone");
	cr_expect_eq(eff & (1ull << 12), 0, "CAP_NET_ADMIN is gone");
	cr_expect_eq(bnd & (1ull << 6), 0, "CAP_SETUID cannot come back (bounding set)");
	cr_expect_neq(eff & (1ull << 39), 0, "CAP_BPF stays, to re-attach after an execve");
	cr_expect_eq(http_request(atoi(port), "GET", "/metrics", NULL, (char[4096]){0}, 4096), 200,
		     "the exporter still answers");
	session_stop(&s);
}

Test(faults, output_symlink__refused, .timeout = MW_TIMEOUT)
{
	char dir[] = "/tmp/memwatch-link-XXXXXX", victim[256], link[256], buf[32] = "";
	struct proc mw;
	char pid[16];
	FILE *f;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/feed.csv", dir);
	f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	cr_assert_eq(symlink(victim, link), 0, "a symlink planted at the output path");
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	const char *argv[] = { MEMWATCH, "-p", pid, "-o", link, "-n", "1", NULL };
	proc_spawn(&mw, argv);
	cr_expect_eq(proc_wait(&mw), 1, "memwatch refuses to write through it");
	cr_expect(strstr(proc_stderr(&mw), "memwatch: cannot write"), "and says so: [%s]",
		  proc_stderr(&mw));
	f = fopen(victim, "r");
	cr_expect(fgets(buf, sizeof(buf), f) && !strcmp(buf, "precious\n"), "the link's target is untouched");
	fclose(f);
	unlink(link);
	unlink(victim);
	rmdir(dir);
}

/* Garbage, an oversized header, and a request line that never ends do
 * not stop the exporter. */
Test(faults, http_garbage_and_oversized__scrape_still_works, .timeout = MW_TIMEOUT)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	static char big[100000], resp[1 << 16];
	struct session s;
	char port[16];
	const char *extra[] = { "-l", port, NULL };

	snprintf(port, sizeof(port), "%d", free_port());
	session_start(&s, "1", "1", extra);
	a.sin_port = htons((uint16_t)atoi(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7919 % 251 + 1);		/* no NUL, no sense */
	memcpy(big, "GET /metrics HTTP/1.1\r\nX-Big: ", 30);	/* a 100 KB header */
	for (int round = 0; round < 2; round++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct timeval tv = { 5, 0 };

		cr_assert(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "connect");
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		/* the server may close early: a short write is fine */
		(void)!write(fd, round ? big + 30 : big, sizeof(big) - (round ? 30 : 0));
		while (read(fd, resp, sizeof(resp)) > 0)
			;
		close(fd);
	}
	cr_expect_eq(http_request(atoi(port), "GET", "/metrics", NULL, resp, sizeof(resp)), 200,
		     "a scrape after garbage and a 100 KB header still answers 200");
	session_stop(&s);
}

Test(faults, bad_values__exit_2, .timeout = MW_TIMEOUT)
{
	const char *const cases[][5] = {
		{ "-i", "", NULL }, { "-i", "1x", NULL }, { "-n", "99999999999999999999", NULL },
		{ "-n", "-3", NULL }, { "--max-live-blocks", "0", NULL },
		{ "--max-live-blocks", "1e9", NULL }, { "-l", "99999", NULL }, { "-l", "", NULL },
		{ "-f", "xml", NULL }, { "--struct", "a", "--size", "abc" },
		{ "--allocator", "", NULL }, { "-o", "", NULL },
	};
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[10] = { MEMWATCH, "-p", pid };
		struct proc p;
		int n = 3;

		for (int k = 0; k < 5 && cases[i][k]; k++)
			argv[n++] = cases[i][k];
		proc_spawn(&p, argv);
		cr_expect_eq(proc_wait(&p), 2, "case %zu (%s %s): usage error, exit 2", i,
			     cases[i][0], cases[i][1]);
		cr_expect(!strncmp(proc_stderr(&p), "memwatch: ", 10), "case %zu: one memwatch: line", i);
	}
}

Test(faults, kernel_thread_and_itself__exit_1, .timeout = MW_TIMEOUT)
{
	const char *kthread[] = { MEMWATCH, "-p", "2", NULL };
	const char *self[] = { "/bin/sh", "-c", "exec " MEMWATCH " -p $$", NULL };
	struct proc p;

	proc_spawn(&p, kthread);
	cr_expect_eq(proc_wait(&p), 1, "pid 2 (kthreadd) exits 1");
	cr_expect(strstr(proc_stderr(&p), "kernel thread"), "says it is a kernel thread: [%s]",
		  proc_stderr(&p));
	proc_spawn(&p, self);
	cr_expect_eq(proc_wait(&p), 1, "memwatch's own pid exits 1");
	cr_expect(strstr(proc_stderr(&p), "memwatch itself"), "says so: [%s]", proc_stderr(&p));
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "VmRSS: %ld", &kb);
	fclose(f);
	return kb;
}

/* An hour of sampling compressed: 1500 samples at 10 ms intervals (as
 * many as 25 minutes at 1 s) against a churning target. memwatch's RSS
 * stays flat and every counter only grows. The count of samples, not a
 * time, ends the run (the test's limit only stops a hang). */
#define LONG_RUN_ROWS	1500

Test(faults, long_run__rss_flat_counters_monotonic, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "-i", "0.01", NULL };
	long long prev[4] = { 0 }, rows = 0, bad = 0;
	const char *cols[4] = { "heap_alloc_calls", "heap_free_calls", "heap_alloc_bytes",
				"heap_free_bytes" };
	long rss_start, rss_end;
	struct session s;
	char *line;

	session_start(&s, "2", "5", extra);
	rss_start = -1;
	while (rows < LONG_RUN_ROWS && patience_wait("%d rows (%lld so far)", LONG_RUN_ROWS, rows)) {
		session_command(&s, "run\n");
		session_command(&s, "free\n");
		while ((line = proc_line_now(&s.mw))) {
			for (int c = 0; c < 4; c++) {
				long long v = csv_int(s.header, line, cols[c]);

				bad += v < prev[c];
				prev[c] = v;
			}
			rows++;
		}
		if (rss_start < 0 && rows >= LONG_RUN_ROWS / 5)
			rss_start = rss_kb(s.mw.pid);	/* after warm-up */
	}
	rss_end = rss_kb(s.mw.pid);
	cr_assert_geq(rows, LONG_RUN_ROWS, "%d samples taken (%lld)", LONG_RUN_ROWS, rows);
	cr_expect_eq(bad, 0, "every counter is monotonic over %lld rows", rows);
	cr_expect_lt(rss_end - rss_start, 512, "memwatch's RSS stays flat: %ld kB -> %ld kB",
		     rss_start, rss_end);
	session_stop(&s);
}
