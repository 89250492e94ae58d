// SPDX-License-Identifier: GPL-2.0
/*
 * test_metrics.c - the exporter and the OpenMetrics feed: promtool checks
 * the 0.0.4 text, the OpenMetrics text follows its rules, a real
 * Prometheus server scrapes memwatch and stores the target's own count,
 * and a reader polling the textfile output never sees half of it.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "prom.h"
#include "session.h"

static const char *const script[] = { TARGET("struct_script"), "100", NULL };
static char response[1 << 17];

/* memwatch on struct_script with a table structure, serving on @port. */
static void start_exporter(struct session *s, char *port)
{
	snprintf(port, 16, "%d", free_port());
	const char *extra[] = { "-l", port, "--struct", "table", "--insert", "table_insert",
				"--delta", "ret", "--remove", "table_remove", "--delta", "ret",
				"--size", "48", NULL };
	session_start_target(s, script, extra);
}

Test(metrics, prometheus_text__passes_promtool, .timeout = MW_TIMEOUT)
{
	struct session s;
	char port[16];
	int status;

	start_exporter(&s, port);
	session_command(&s, "run\n");
	session_settle(&s);
	status = http_request(atoi(port), "GET", "/metrics", NULL, response, sizeof(response));
	cr_assert_eq(status, 200, "GET /metrics answers 200");
	cr_expect(strstr(response, "Content-Type: text/plain; version=0.0.4; charset=utf-8"),
		  "0.0.4 content type without an OpenMetrics Accept");
	cr_expect(strstr(http_body(response), "memwatch_heap_live_bytes{pid=\""),
		  "heap family present");
	cr_expect_eq(pipe_to("promtool check metrics >/dev/null 2>&1", http_body(response)), 0,
		     "promtool check metrics passes:\n%s", http_body(response));
	session_stop(&s);
}

/* Every "# TYPE x counter" has samples x_total only; every "# UNIT x u"
 * names a family that ends in _u; the body ends in "# EOF". */
static void check_openmetrics(const char *body)
{
	char family[128] = "", type[32] = "";
	const char *line = body;
	int samples = 0;

	cr_expect(strlen(body) > 6 && !strcmp(body + strlen(body) - 6, "# EOF\n"),
		  "the exposition ends with # EOF");
	for (; *line; line = strchr(line, '\n') + 1) {
		char name[128], unit[32];

		if (sscanf(line, "# TYPE %127s %31s", family, type) == 2)
			continue;
		if (sscanf(line, "# UNIT %127s %31s", name, unit) == 2) {
			size_t nl = strlen(name), ul = strlen(unit);

			cr_expect(nl > ul + 1 && !strcmp(name + nl - ul, unit) && name[nl - ul - 1] == '_',
				  "UNIT %s matches the suffix of %s", unit, name);
			continue;
		}
		if (line[0] != '#' && sscanf(line, "%127[^{ ]", name) == 1) {
			char want[160];

			snprintf(want, sizeof(want), "%s%s", family,
				 !strcmp(type, "counter") ? "_total" : "");
			cr_expect_str_eq(name, want, "sample of family %s (%s)", family, type);
			cr_expect(strstr(line, "pid=\""), "a pid label on every sample: %.80s", line);
			samples++;
		}
		if (!strchr(line, '\n'))
			break;
	}
	cr_expect_gt(samples, 10, "the exposition has samples");
}

Test(metrics, openmetrics__eof_counters_total_units, .timeout = MW_TIMEOUT)
{
	struct session s;
	char port[16];
	int status;

	start_exporter(&s, port);
	session_command(&s, "run\n");
	session_settle(&s);
	status = http_request(atoi(port), "GET", "/metrics",
			      "application/openmetrics-text; version=1.0.0", response, sizeof(response));
	cr_assert_eq(status, 200, "GET /metrics answers 200");
	cr_expect(strstr(response, "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8"),
		  "OpenMetrics content type when Accept asks for it");
	check_openmetrics(http_body(response));
	cr_expect(strstr(http_body(response), "memwatch_struct_estimated_bytes{pid="),
		  "estimate present with --size");
	session_stop(&s);
}

Test(metrics, http__landing_404_405, .timeout = MW_TIMEOUT)
{
	struct session s;
	char port[16];

	start_exporter(&s, port);
	cr_expect_eq(http_request(atoi(port), "GET", "/", NULL, response, sizeof(response)), 200,
		     "the landing page answers 200");
	cr_expect(strstr(http_body(response), "href=\"/metrics\""), "and links to /metrics");
	cr_expect_eq(http_request(atoi(port), "GET", "/secret", NULL, response, sizeof(response)),
		     404, "other paths answer 404");
	cr_expect_eq(http_request(atoi(port), "POST", "/metrics", NULL, response, sizeof(response)),
		     405, "other methods answer 405");
	cr_expect(strstr(response, "Allow: GET, HEAD"), "405 names the allowed methods");
	cr_expect_eq(http_request(atoi(port), "HEAD", "/metrics", NULL, response, sizeof(response)),
		     200, "HEAD /metrics answers 200");
	session_stop(&s);
}

Test(metrics, real_prometheus__stores_target_count, .timeout = MW_TIMEOUT)
{
	char dir[] = "/tmp/memwatch-prom-XXXXXX", scrape[256];
	static struct prom prom;
	struct session s;
	char port[16];
	double stored = -1;
	long long want;

	cr_assert(mkdtemp(dir), "temp dir");
	start_exporter(&s, port);
	want = reply_int(session_command(&s, "run\n"), "table_elements");
	cr_assert_gt(want, 0, "the target holds elements");
	snprintf(scrape, sizeof(scrape), "  - job_name: memwatch\n    static_configs:\n"
		 "      - targets: ['127.0.0.1:%s']\n", port);
	prom_start(&prom, dir, scrape);
	/* the query answers once Prometheus has scraped memwatch */
	while (stored != (double)want &&
	       patience_wait("Prometheus to store the count %lld (it answers %g)", want, stored)) {
		usleep(500000);		/* it scrapes every 2 s: ask twice a second */
		stored = prom_query(&prom, "memwatch_struct_elements%7Bstruct%3D%22table%22%7D");
	}
	cr_expect_eq(stored, (double)want,
		     "Prometheus stored memwatch_struct_elements = the target's count %lld (last answer: %s; Prometheus said: %.2000s)",
		     want, http_body(prom.answer), prom_log(&prom));
	prom_stop(&prom);
	session_stop(&s);
	temp_dir_remove(dir);
}

Test(metrics, textfile__never_seen_half_written, .timeout = MW_TIMEOUT)
{
	char dir[] = "/tmp/memwatch-textfile-XXXXXX", path[256], buf[1 << 16];
	const char *extra[] = { "-f", "openmetrics", "-o", path, "-i", "0.005", NULL };
	struct session s;
	int reads = 0, whole = 0, files = 0;
	ino_t ino = 0;
	struct stat st;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(path, sizeof(path), "%s/memwatch.prom", dir);
	session_spawn(&s, script, extra, false);
	wait_until(!stat(path, &st), "%s to be written", path);
	cr_assert_eq(stat(path, &st), 0, "memwatch writes %s; stderr: %s", path,
		     proc_stderr(&s.mw));
	proc_send(&s.target, "run\n");	/* figures change under the reader */
	/* read across several rewrites (each one a new file renamed in) */
	/* as fast as it can: no pause between reads */
	while ((reads < 100 || files < 5) && patience_ms() > 0) {
		FILE *f = fopen(path, "r");
		size_t n;

		if (!f)
			continue;
		if (!fstat(fileno(f), &st) && st.st_ino != ino) {
			ino = st.st_ino;
			files++;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		reads++;
		whole += n > 6 && !strncmp(buf, "# HELP ", 7) && !strcmp(buf + n - 6, "# EOF\n");
	}
	cr_assert(reads >= 100 && files >= 5, "read %d times across %d rewrites", reads, files);
	cr_expect_eq(whole, reads, "every read saw a whole exposition");
	cr_expect_eq(stat(path, &st), 0, "the file exists");
	cr_expect_eq(st.st_mode & 0777, 0644, "created 0644");
	session_stop(&s);
	temp_dir_remove(dir);
}

Test(metrics, stdout_openmetrics__one_exposition_per_interval, .timeout = MW_TIMEOUT)
{
	const char *targv[] = { TARGET("alloc_script"), "1", "1", NULL };
	struct proc target, mw;
	char pid[16], *line;
	int eofs = 0;

	proc_spawn(&target, targv);
	cr_assert(proc_line(&target), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.2", "-n", "3", "-f", "openmetrics", NULL };
	proc_spawn(&mw, argv);
	while ((line = proc_line(&mw)))
		eofs += !strcmp(line, "# EOF");
	cr_expect_eq(proc_wait(&mw), 0, "exits 0 after -n 3");
	cr_expect_eq(eofs, 3, "three expositions, each ending in # EOF");
	proc_send(&target, "quit\n");
	proc_wait(&target);
}

Test(metrics, http__stalled_client_and_burst_do_not_block, .timeout = MW_TIMEOUT)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fds[200], n = 0, status;
	struct session s;
	char port[16];

	start_exporter(&s, port);
	a.sin_port = htons((uint16_t)atoi(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 200; i++) {
		fds[n] = socket(AF_INET, SOCK_STREAM, 0);
		if (fds[n] >= 0 && connect(fds[n], (struct sockaddr *)&a, sizeof(a)) == 0) {
			/* half a request line, then silence */
			if (write(fds[n], "GET /metr", 9) != 9)
				break;
			n++;
		}
	}
	cr_expect_eq(n, 200, "200 stalled connections opened");
	status = http_request(atoi(port), "GET", "/metrics", NULL, response, sizeof(response));
	/* http_request gives up after 5 s, the server cuts a stalled client
	 * after 10: an answer came while all 200 were still holding on */
	cr_expect_eq(status, 200, "a scrape still answers 200");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	session_stop(&s);
}

/* The process label is the executable's file name: the kernel's comm
 * keeps 15 characters of it, a node's name is often longer. */
Test(metrics, process_label__the_executables_whole_name, .timeout = MW_TIMEOUT)
{
	static const char name[] = "memwatch-test-a-long-program-name";
	char path[128], cmd[300], pid[16], want[160], *line;
	const char *targv[] = { path, NULL };
	struct proc t, mw;
	bool found = false;

	snprintf(path, sizeof(path), "/tmp/%s-%d", name, (int)getpid());
	snprintf(cmd, sizeof(cmd), "cp %s %s", TARGET("read_c"), path);
	cr_assert_eq(system(cmd), 0, "a copy under a long name");
	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	snprintf(want, sizeof(want), "memwatch_rss_bytes{pid=\"%d\",comm=\"%s-%d\"}", (int)t.pid,
		 name, (int)getpid());
	const char *argv[] = { MEMWATCH, "-p", pid, "--no-heap", "-n", "1", "-f", "openmetrics", NULL };
	proc_spawn(&mw, argv);
	while ((line = proc_line(&mw)) && strcmp(line, "# EOF"))
		found |= !strncmp(line, want, strlen(want));
	cr_expect(found, "the label names it whole: %s", want);
	cr_expect_eq(proc_wait(&mw), 0, "exit 0: %s", proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t);
	unlink(path);
}
