// SPDX-License-Identifier: GPL-2.0
/*
 * test_structs.c - structures named by their insert and remove functions,
 * against the struct_script target (two structures, four threads): element
 * counts and charged bytes must equal the target's own tally exactly.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "session.h"

static const char *const script[] = { TARGET("struct_script"), "100", NULL };

#define STRUCT_ARGS \
	"--struct", "table", "--insert", "table_insert", "--delta", "ret", \
	"--remove", "table_remove", "--delta", "ret", \
	"--struct", "index", "--insert", "index_add", \
	"--insert", "index_add_batch", "--delta", "arg2", "--remove", "index_del"

static void expect_structs(struct session *s, const char *reply, bool bytes)
{
	session_settle(s);
	cr_expect_eq(session_int(s, "table_elements"), reply_int(reply, "table_elements"),
		     "table_elements equals the target's count (%s)", reply);
	cr_expect_eq(session_int(s, "index_elements"), reply_int(reply, "index_elements"),
		     "index_elements equals the target's count (%s)", reply);
	if (!bytes)
		return;
	cr_expect_eq(session_int(s, "table_bytes"), reply_int(reply, "table_bytes"),
		     "table_bytes equals the bytes allocated inside table_insert, still live (%s)", reply);
	cr_expect_eq(session_int(s, "index_bytes"), reply_int(reply, "index_bytes"),
		     "index_bytes: blocks allocated in index_add nested in table_insert go to index (%s)", reply);
	cr_expect_eq(session_int(s, "lost_unpaired"), 0, "every call was paired");
	cr_expect_eq(session_int(s, "lost_scopes"), 0, "no scope was lost");
}

Test(structs, four_threads__elements_and_bytes_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { STRUCT_ARGS, NULL };
	struct session s;

	session_start_target(&s, script, extra);
	expect_structs(&s, session_command(&s, "run\n"), true);
	cr_expect_gt(session_int(&s, "table_elements"), 0, "the script left elements");
	/* realloc outside any insert keeps the table's charge, new size */
	expect_structs(&s, session_command(&s, "shrink\n"), true);
	expect_structs(&s, session_command(&s, "run\n"), true);
	expect_structs(&s, session_command(&s, "clear\n"), true);
	cr_expect_eq(session_int(&s, "table_elements"), 0, "cleared: no element left");
	session_stop(&s);
}

/* an insert called in a loop from one call site, nothing probed between
 * the calls: each call's scope ends when the next begins (the scope rule
 * sees the same return address at the same slot) */
Test(structs, insert_in_a_loop__scopes_end_call_by_call, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { STRUCT_ARGS, NULL };
	struct session s;

	session_start_target(&s, script, extra);
	expect_structs(&s, session_command(&s, "burst\n"), true);
	expect_structs(&s, session_command(&s, "burst\n"), true);
	cr_expect_eq(session_int(&s, "index_insert_calls"), 400, "two bursts of 200 calls");
	expect_structs(&s, session_command(&s, "clear\n"), true);
	session_stop(&s);
}

Test(structs, config_file__same_as_command_line, .timeout = MW_TIMEOUT)
{
	char path[] = "/tmp/memwatch-conf-XXXXXX";
	const char *extra[] = { "-c", path, NULL };
	struct session s;
	FILE *f;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0, "temp file");
	f = fdopen(fd, "w");
	fputs("# structures of struct_script\n"
	      "struct table\n"
	      "insert table_insert\n"
	      "delta ret\n"
	      "  remove   table_remove  \n"
	      "delta ret\n"
	      "\n"
	      "struct index\n"
	      "insert index_add\n"
	      "insert index_add_batch\n"
	      "delta arg2\n"
	      "remove index_del\n", f);
	fclose(f);
	session_start_target(&s, script, extra);
	expect_structs(&s, session_command(&s, "run\n"), true);
	session_stop(&s);
	unlink(path);
}

Test(structs, no_heap_with_size__counts_estimate_no_allocator_probe, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", STRUCT_ARGS, "--size", "24", NULL };
	char field[64];
	struct session s;
	long long elems;

	session_start_target(&s, script, extra);
	cr_expect_neq(peek_byte(s.target.pid, s.malloc_addr), 0xcc,
		      "--no-heap: malloc holds no breakpoint");
	expect_structs(&s, session_command(&s, "run\n"), false);
	elems = session_int(&s, "index_elements");
	cr_expect_eq(session_int(&s, "index_estimated_bytes"), elems * 24,
		     "index_estimated_bytes = elements x --size");
	cr_expect_eq(csv_col(s.header, "table_estimated_bytes"), -1,
		     "no estimate for a structure without --size");
	cr_assert(csv_field(s.row, csv_col(s.header, "heap_live_bytes"), field, sizeof(field)),
		  "heap_live_bytes column present");
	cr_expect_str_empty(field, "--no-heap: heap figures are empty, not a false 0");
	session_stop(&s);
}

Test(structs, symbol_errors__exit_1_with_guidance, .timeout = MW_TIMEOUT)
{
	struct proc target;
	char pid[16];
	const char *err;

	proc_spawn(&target, script);
	cr_assert(proc_line(&target), "target ready");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--struct", "t",
				       "--insert", "table_insrt", NULL };
		cr_expect_eq(run_memwatch(argv, &err), 1, "an unknown symbol exits 1");
		cr_expect(strstr(err, "'table_insrt'") && strstr(err, "nearest: table_insert"),
			  "names the symbol and suggests the nearest: [%s]", err);
	}
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "--struct", "t",
				       "--insert", "memcpy", NULL };
		cr_expect_eq(run_memwatch(argv, &err), 1, "an ambiguous plain name exits 1");
		cr_expect(strstr(err, "matches 2 functions") && strstr(err, "libc.so.6"),
			  "lists the functions it matches: [%s]", err);
	}
	{
		const char *argv[] = { MEMWATCH, "-p", pid, "-n", "1", "--struct", "t",
				       "--insert", "table_*", NULL };
		cr_expect_eq(run_memwatch(argv, &err), 0, "a glob probes all matches");
		cr_expect(strstr(err, "'table_*' matches 2 functions"), "and says how many: [%s]", err);
	}
	proc_send(&target, "quit\n");
	proc_wait(&target);
}

/* A stripped executable: its functions are found through the debug file
 * installed where Debian's -dbg packages put them, by build-id. */
Test(structs, stripped_target__symbols_from_build_id_debug_file, .timeout = MW_TIMEOUT)
{
	const char *const stripped[] = { TARGET("struct_script.stripped"), "100", NULL };
	const char *extra[] = { STRUCT_ARGS, NULL };
	char id[128] = "", dir[256], link[512], cmd[1024];
	struct session s;
	FILE *p;

	p = popen("readelf -n " TARGET("struct_script.stripped")
		  " | sed -n 's/.*Build ID: //p'", "r");
	cr_assert(p && fgets(id, sizeof(id), p), "the stripped target has a build-id");
	pclose(p);
	id[strcspn(id, "\n")] = '\0';
	snprintf(dir, sizeof(dir), "/usr/lib/debug/.build-id/%.2s", id);
	snprintf(link, sizeof(link), "%s/%s.debug", dir, id + 2);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s %s", dir,
		 TARGET("struct_script.debug"), link);
	cr_assert_eq(system(cmd), 0, "install the debug file as %s", link);

	session_start_target(&s, stripped, extra);
	expect_structs(&s, session_command(&s, "run\n"), true);
	session_stop(&s);
	unlink(link);
}

/* Inlined functions never fire: a structure that stays silent for 10 s
 * while the heap moves is called out on stderr. */
Test(structs, silent_structure__warned_once, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "never", "--insert", "argz_insert", NULL };
	struct session s;

	session_start(&s, "4", "30", extra);
	session_command(&s, "run\n");
	cr_expect(wait_until((proc_skip(&s.mw, NULL, 0),
			      strstr(proc_stderr(&s.mw), "no function of structure never has run")),
			     "memwatch to name the silent structure"),
		  "stderr names the silent structure: [%s]", proc_stderr(&s.mw));
	session_stop(&s);
}

/* A target in its own mount namespace, as in a container: its executable
 * lives on a tmpfs that only that namespace sees, so memwatch must read it
 * through /proc/PID/root. */
Test(structs, mount_namespace__files_through_proc_root, .timeout = MW_TIMEOUT)
{
	char dir[] = "/tmp/memwatch-ns-XXXXXX", script_sh[2048], exe[512];
	const char *extra[] = { STRUCT_ARGS, NULL };
	struct session s;
	struct stat st;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(exe, sizeof(exe), "%s/struct_script", dir);
	snprintf(script_sh, sizeof(script_sh),
		 "mount -t tmpfs none %s && cp %s %s && exec %s 100", dir,
		 TARGET("struct_script"), exe, exe);
	const char *targv[] = { "/usr/bin/unshare", "--mount", "--propagation", "private",
				"/bin/sh", "-c", script_sh, NULL };
	session_start_target(&s, targv, extra);
	cr_expect_neq(stat(exe, &st), 0, "the executable is invisible outside the namespace");
	expect_structs(&s, session_command(&s, "run\n"), true);
	session_stop(&s);
	rmdir(dir);
}
