// SPDX-License-Identifier: GPL-2.0
/*
 * test_sites.c - where the memory comes from: sites in the executable and
 * in a shared library with their exact live bytes, who grows a structure,
 * leak suspects, folded stacks, and the table view under a terminal.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

static const char *const sites_target[] = { TARGET("sites_target"), NULL };

/* The value of the sample of @family whose site label starts with @site
 * in the last whole exposition of @text; -1 if none. */
static long long om_value(const char *text, const char *family, const char *site)
{
	char pat[256];
	const char *p, *last = NULL;
	long long v = -1;

	snprintf(pat, sizeof(pat), "%s{", family);
	for (p = text; (p = strstr(p, pat)); p++)
		if (strstr(p, site) && strstr(p, site) < strchr(p, '}'))
			last = p;
	if (last)
		sscanf(strchr(last, '}') + 1, " %lld", &v);
	return v;
}

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert(f, "read %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Whether @path holds @text now. */
static bool holds(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	fclose(f);
	return strstr(slurp(path), text);
}

/* Waits until @path holds @text. */
static bool file_has(const char *path, const char *text)
{
	return wait_until(holds(path, text), "%s to hold '%s'", path, text);
}

Test(sites, top_sites_symbols_and_bytes__equal_target_tally, .timeout = MW_TIMEOUT)
{
	char dir[] = "/tmp/memwatch-sites-XXXXXX", om[256], folded[256], *text, reply[512];
	struct session s;
	long long sum = 0;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(om, sizeof(om), "%s/feed.om", dir);
	snprintf(folded, sizeof(folded), "%s/sites.folded", dir);
	const char *extra[] = { "-f", "openmetrics", "-o", om, "--top", "5", "--folded", folded,
				"--leak-intervals", "3", "-i", "0.5",
				"--struct", "registry", "--insert", "registry_insert", NULL };
	session_spawn(&s, sites_target, extra, false);
	cr_assert(wait_until(!access(om, F_OK), "%s to be written", om), "memwatch writes %s: %s",
		  om, proc_stderr(&s.mw));
	snprintf(reply, sizeof(reply), "%s", session_command(&s, "run\n"));
	/* grow_cache grows in every interval: one grow after another (each a
	 * few calls, far shorter than an interval of 0.5 s) until memwatch has
	 * written 5 expositions, the last 3 intervals' all sampled since the
	 * first grow; nothing else grows */
	{
		struct stat was = { 0 };
		int written = 0;

		stat(om, &was);
		while (written < 5 &&
		       patience_wait("5 expositions while growing (%d so far)", written)) {
			snprintf(reply, sizeof(reply), "%s", session_command(&s, "grow\n"));
			written += file_changed(om, &was);
		}
	}
	text = slurp(om);
	cr_expect_eq(om_value(text, "memwatch_site_leak_suspect", "site=\"grow_cache+"), 1,
		     "a site that grew in each of the last 3 intervals is a leak suspect");
	cr_expect_eq(om_value(text, "memwatch_site_leak_suspect", "site=\"make_buffers+"), 0,
		     "a site that does not grow is not");
	/* growth stopped: 5 intervals on, none of the last 3 grew */
	cr_assert(file_replaced(om, 5), "memwatch goes on writing %s", om);
	text = slurp(om);
	cr_expect_eq(om_value(text, "memwatch_site_leak_suspect", "site=\"grow_cache+"), 0,
		     "once it stops growing, no longer a suspect");
	cr_expect_eq(om_value(text, "memwatch_site_live_bytes", "site=\"grow_cache+"),
		     reply_int(reply, "grow_cache"), "grow_cache's site holds what the target kept there (%s)", reply);
	cr_expect_eq(om_value(text, "memwatch_site_live_bytes", "site=\"make_buffers+"),
		     reply_int(reply, "make_buffers"), "make_buffers' site, exact");
	cr_expect_eq(om_value(text, "memwatch_site_live_bytes", "site=\"lib_alloc+"),
		     reply_int(reply, "lib_alloc"), "a site in the shared library, exact");
	cr_expect(strstr(text, "(libsites.so) libsites.c:"), "the library site names its object and source line");
	{
		/* the source line of the malloc call in grow_cache, from DWARF */
		char want[64];
		FILE *src = fopen("tests/targets/sites_target.c", "r");
		char l[256];
		int n = 0, at = 0;

		cr_assert(src, "the target's source");
		while (fgets(l, sizeof(l), src) && !at) {
			n++;
			if (strstr(l, "keep(malloc(100))"))
				at = n;
		}
		fclose(src);
		snprintf(want, sizeof(want), "(sites_target) sites_target.c:%d\"", at);
		cr_expect(at && strstr(text, want), "grow_cache's site carries its file:line (%s)", want);
	}
	cr_expect_eq(om_value(text, "memwatch_struct_insert_site_calls_total", "site=\"path_a+"),
		     reply_int(reply, "path_a"), "registry grown from path_a: the target's count");
	cr_expect_eq(om_value(text, "memwatch_struct_insert_site_calls_total", "site=\"path_b+"),
		     reply_int(reply, "path_b"), "and from path_b");

	/* folded: frame[;frame...] SPACE integer, and the bytes add up */
	{
		regex_t re;
		char *line, *save = NULL, *f = strdup(slurp(folded));
		int lines = 0;

		cr_assert_eq(regcomp(&re, "^[^ ;][^;]*(;[^;]+)* [0-9]+$", REG_EXTENDED | REG_NOSUB), 0, "regex");
		for (line = strtok_r(f, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			cr_expect_eq(regexec(&re, line, 0, NULL, 0), 0, "a folded line: [%s]", line);
			sum += atoll(strrchr(line, ' ') + 1);
			lines++;
		}
		regfree(&re);
		free(f);
		cr_expect_geq(lines, 3, "a line per live site");
		cr_expect_eq(sum, reply_int(reply, "grow_cache") + reply_int(reply, "make_buffers") +
				  reply_int(reply, "lib_alloc"),
			     "folded bytes add up to the target's live bytes");
	}
	session_stop(&s);
	temp_dir_remove(dir);
}

/* The view for people, on a pseudo-terminal (script(1) gives it one). */
Test(sites, table_view_on_a_terminal__expected_rows, .timeout = MW_TIMEOUT)
{
	char cmd[512], out[] = "/tmp/memwatch-table-XXXXXX", *text;
	struct proc target;
	int fd = mkstemp(out);

	cr_assert_geq(fd, 0, "temp file");
	close(fd);
	proc_spawn(&target, sites_target);
	cr_assert(proc_line(&target), "target ready");
	proc_send(&target, "run\n");
	cr_assert(proc_line(&target), "target ran");	/* before attach: untracked */
	snprintf(cmd, sizeof(cmd),
		 "script -qfec '" MEMWATCH " -p %d -f table -i 0.3 -n 4 --struct registry "
		 "--insert registry_insert' %s > /dev/null", (int)target.pid, out);
	FILE *p = popen(cmd, "w");
	cr_assert(p, "script runs");
	/* its first frame is drawn once it has attached: then the run */
	cr_assert(file_has(out, "heap   live"), "memwatch attached");
	proc_send(&target, "run\n");
	cr_assert(proc_line(&target), "target ran again");
	/* a frame drawn since the run, then the end */
	cr_assert(file_has(out, "path_a+0x"), "the run is drawn");
	snprintf(cmd, sizeof(cmd), "pkill -TERM -f '^" MEMWATCH " -p %d -f table'", (int)target.pid);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_expect_eq(pclose(p), 0, "memwatch -f table ends with 0 on SIGTERM under a terminal");
	text = slurp(out);
	cr_expect(strstr(text, "\033[H\033[2J"), "the screen is redrawn in place on a terminal");
	cr_expect(strstr(text, "heap   live"), "the heap summary row");
	cr_expect(strstr(text, "STRUCTURE") && strstr(text, "registry"), "the structure rows");
	cr_expect(strstr(text, "make_buffers+0x") && strstr(text, "(sites_target)"),
		  "top sites, symbolized");
	cr_expect(strstr(text, "lib_alloc+0x") && strstr(text, "(libsites.so)"), "a library site");
	cr_expect(strstr(text, "STRUCTURE GROWN BY") && strstr(text, "path_a+0x"),
		  "who grows the structure");
	proc_send(&target, "quit\n");
	proc_wait(&target);
	unlink(out);
}

/* --stacks: whole stacks, folded root first, walked by the objects'
 * unwind tables whether the target has frame pointers or not. */
static void run_stacks(const char *target, char *folded_out, size_t len, char *err_out,
		       size_t errlen)
{
	char dir[] = "/tmp/memwatch-stacks-XXXXXX", folded[256];
	const char *targv[] = { target, NULL };
	struct proc t, mw;
	char pid[16];

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(folded, sizeof(folded), "%s/live.folded", dir);
	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.2", "--stacks", "--folded", folded, NULL };
	proc_spawn(&mw, argv);
	cr_assert(proc_line(&mw), "memwatch attached");
	proc_send(&t, "run\n");
	cr_assert(proc_line(&t), "target ran");
	cr_assert(file_replaced(folded, 2), "the stacks after the run: %s", proc_stderr(&mw));
	snprintf(folded_out, len, "%s", slurp(folded));
	proc_kill(&mw, SIGTERM);
	proc_wait(&mw);
	snprintf(err_out, errlen, "%s", proc_stderr(&mw));
	proc_send(&t, "quit\n");
	proc_wait(&t);
	temp_dir_remove(dir);
}

Test(sites, stacks_with_frame_pointers__whole_stacks_folded, .timeout = MW_TIMEOUT)
{
	static char folded[1 << 16], err[1 << 14];

	run_stacks(TARGET("sites_target_fp"), folded, sizeof(folded), err, sizeof(err));
	cr_expect(strstr(folded, ";sites_target_fp`worker;sites_target_fp`grow_cache "),
		  "grow_cache's stack, root first, through worker: [%s]", folded);
	cr_expect(strstr(folded, ";sites_target_fp`worker;sites_target_fp`make_buffers "),
		  "make_buffers' stack: [%s]", folded);
	cr_expect(!strstr(err, "are truncated"), "no short stacks to warn of: [%s]", err);
}

/* Built -O2 without frame pointers: the stacks are walked by the
 * objects' unwind tables (.eh_frame), whole, through the library too. */
Test(sites, stacks_without_frame_pointers__whole_by_unwind_tables, .timeout = MW_TIMEOUT)
{
	static char folded[1 << 16], err[1 << 14];

	run_stacks(TARGET("sites_target"), folded, sizeof(folded), err, sizeof(err));
	cr_expect(strstr(folded, "libc.so.6`start_thread;sites_target`worker;sites_target`grow_cache "),
		  "grow_cache's whole stack, to the thread's start: [%s]", folded);
	cr_expect(strstr(folded, "libc.so.6`start_thread;sites_target`worker;libsites.so`lib_alloc "),
		  "and the library's: [%s]", folded);
	cr_expect(!strstr(err, "are truncated"), "no short stacks to warn of: [%s]", err);
}

/* The kernel's frame-pointer walk (MEMWATCH_FP_STACKS=1) on the same
 * target stops in its first frame: short stacks, counted and said, with
 * the flag of the target's language. */
Test(sites, frame_pointer_walk_without_frame_pointers__truncated_and_said, .timeout = MW_TIMEOUT)
{
	static char folded[1 << 16], err[1 << 14];

	setenv("MEMWATCH_FP_STACKS", "1", 1);
	run_stacks(TARGET("sites_target"), folded, sizeof(folded), err, sizeof(err));
	unsetenv("MEMWATCH_FP_STACKS");
	cr_expect(strstr(err, "are truncated") && strstr(err, "-fno-omit-frame-pointer"),
		  "stderr says the stacks are short, and the C flag: [%s]", err);
	cr_expect(strstr(folded, "sites_target`grow_cache "), "the call site is still there: [%s]", folded);
	cr_expect_null(strstr(folded, "start_thread;"), "and no more than it: [%s]", folded);
}

/* A Rust node: its Vec and HashMap growth goes through alloc::raw_vec's
 * finish_grow, hashbrown and the allocator shims (__rust_alloc,
 * __rdl_alloc); the site is the node's own function past them, in the
 * table view and the folded stacks alike, whose whole chain comes from
 * the unwind tables, frame pointers or not. @bin: the binary's name. */
static void rust_sites(const char *target, const char *bin)
{
	char dir[] = "/tmp/memwatch-rsites-XXXXXX", folded[256], table[256];
	const char *targv[] = { target, NULL };
	char want[256];
	const char *text, *lines;
	struct proc t, mw;
	char pid[16];

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(folded, sizeof(folded), "%s/live.folded", dir);
	snprintf(table, sizeof(table), "%s/table.txt", dir);
	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.2", "--stacks", "--top", "20",
			       "--folded", folded, "-f", "table", "-o", table, NULL };
	proc_spawn(&mw, argv);
	cr_assert(file_has(table, "SITE"), "memwatch attached: %s", proc_stderr(&mw));
	proc_send(&t, "run 300\n");
	cr_assert(proc_line(&t), "target ran");
	cr_assert(file_replaced(folded, 2), "the stacks after the run: %s", proc_stderr(&mw));
	lines = slurp(folded);
	snprintf(want, sizeof(want), "%s`rust_node::main;%s`rust_node::mempool::Pool::insert ", bin, bin);
	cr_expect(strstr(lines, want), "a Vec's growth: the pool's insert is the leaf: [%s]", lines);
	snprintf(want, sizeof(want),
		 "%s`rust_node::main;%s`rust_node::submit;%s`rust_node::consensus::ConsensusState::add_certificate ",
		 bin, bin, bin);
	cr_expect(strstr(lines, want), "a HashMap's growth: add_certificate, through submit: [%s]",
		  lines);
	cr_expect(strstr(lines, "`_start;libc.so.6`__libc_start_main;"),
		  "whole stacks, from _start: [%s]", lines);
	cr_expect(!strstr(lines, "finish_grow ") && !strstr(lines, "`__rdl_") &&
		  !strstr(lines, "`__rust_"), "no allocation helper is a leaf: [%s]", lines);
	text = slurp(table);
	cr_expect(strstr(text, "rust_node::mempool::Pool::insert+0x"),
		  "the table names the node's function: [%s]", text);
	cr_expect(!strstr(text, "finish_grow") && !strstr(text, "__rdl_"),
		  "and no helper: [%s]", text);
	proc_kill(&mw, SIGTERM);
	proc_wait(&mw);
	proc_send(&t, "quit\n");
	proc_wait(&t);
	temp_dir_remove(dir);
}

Test(sites, rust_growth__site_is_the_programs_function, .timeout = MW_TIMEOUT)
{
	rust_sites(TARGET("rust_node_fp"), "rust_node_fp");
}

/* The same release build without frame pointers (Rust's default): the
 * same whole stacks. */
Test(sites, rust_release_without_frame_pointers__whole_stacks, .timeout = MW_TIMEOUT)
{
	rust_sites(TARGET("rust_node"), "rust_node");
}

/* nocfi_target (main -> run -> via -> nocfi_alloc in libnocfi.so) as
 * @target under --stacks, its "run" (10 blocks of 100 bytes kept): the
 * folded stacks into @text, the last row's stacks_truncated. */
static long long run_nocfi(const char *target, char *text, size_t len)
{
	char dir[] = "/tmp/memwatch-nocfi-XXXXXX", folded[256], feed[256], hdr[8192], row[8192];
	const char *targv[] = { target, NULL };
	struct proc t, mw;
	long long truncated;
	char pid[16];
	int n;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(folded, sizeof(folded), "%s/live.folded", dir);
	snprintf(feed, sizeof(feed), "%s/feed.csv", dir);
	proc_spawn(&t, targv);
	cr_assert(proc_line(&t), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	const char *argv[] = { MEMWATCH, "-p", pid, "-i", "0.2", "--stacks", "--folded", folded,
			       "-o", feed, NULL };
	proc_spawn(&mw, argv);
	cr_assert(file_wait_rows(feed, 1, hdr, sizeof(hdr), row, sizeof(row)) >= 1,
		  "memwatch attached: %s", proc_stderr(&mw));
	proc_send(&t, "run\n");
	cr_assert(proc_line(&t), "target ran");
	n = file_rows(feed, hdr, sizeof(hdr), row, sizeof(row));
	cr_assert(file_wait_rows(feed, n + 3, hdr, sizeof(hdr), row, sizeof(row)) >= n + 3,
		  "the feed goes on");
	snprintf(text, len, "%s", slurp(folded));
	truncated = csv_int(hdr, row, "stacks_truncated");
	cr_expect_eq(csv_int(hdr, row, "lost_stacks"), 0, "no stack lost");
	proc_kill(&mw, SIGTERM);
	proc_wait(&mw);
	proc_send(&t, "quit\n");
	proc_wait(&t);
	temp_dir_remove(dir);
	return truncated;
}

/* A library with no unwind table (built -fno-asynchronous-unwind-tables):
 * a stack ends in it, as truncated and counted, and no frame past it is
 * guessed; its site still holds its bytes. */
Test(sites, object_without_unwind_table__stack_ends_there_truncated, .timeout = MW_TIMEOUT)
{
	static char text[1 << 16];
	long long truncated = run_nocfi(TARGET("nocfi_target"), text, sizeof(text));

	cr_expect(strstr(text, "libnocfi.so`nocfi_alloc 1000\n") == text ||
		  strstr(text, "\nlibnocfi.so`nocfi_alloc 1000\n"),
		  "the stack ends in the library, its site holds its bytes: [%s]", text);
	cr_expect_null(strstr(text, ";libnocfi.so`nocfi_alloc"), "no frame guessed past it: [%s]", text);
	cr_expect_geq(truncated, 1, "counted as truncated");
}

/* The same library built with -g: its call-frame information is in
 * .debug_frame alone (no .eh_frame), which the table is built from. The
 * stack is whole through it, not truncated. */
Test(sites, object_with_debug_frame_only__whole_through_it, .timeout = MW_TIMEOUT)
{
	static char text[1 << 16];
	long long truncated = run_nocfi(TARGET("nocfi_target_df"), text, sizeof(text));

	cr_expect(strstr(text, "`_start;libc.so.6`__libc_start_main;libc.so.6`__libc_start_call_main;"
			       "nocfi_target_df`main;"
			       "nocfi_target_df`run;nocfi_target_df`via;libnocfi.so`nocfi_alloc 1000\n"),
		  "the whole stack, from _start through the library: [%s]", text);
	cr_expect_eq(truncated, 0, "no stack truncated");
}

/* C++ built -O2 on libstdc++ (no frame pointers, no symbols of its own):
 * whole chains from the thread's start, through std::thread's routine in
 * libstdc++, to the program's insert, past operator new. */
Test(sites, cxx_release__whole_chains_past_operator_new, .timeout = MW_TIMEOUT)
{
	static char folded[1 << 16], err[1 << 14];

	run_stacks(TARGET("unwind_cxx"), folded, sizeof(folded), err, sizeof(err));
	cr_expect(strstr(folded, "libc.so.6`start_thread;libstdc++.so.6") &&
		  strstr(folded, ";unwind_cxx`worker;unwind_cxx`round_of;unwind_cxx`via;unwind_cxx`reg_insert "),
		  "the whole chain, thread start to the insert: [%s]", folded);
	cr_expect_null(strstr(folded, "operator new"), "operator new is no site: [%s]", folded);
}
