// SPDX-License-Identifier: GPL-2.0
/*
 * test_glibcview.c - glibcview against a real target: mallinfo_target
 * shapes its heap, parks its threads and prints what its own mallinfo2()
 * says; the figures read from outside must equal them exactly. Also: a heap
 * changing under the walk, deliberately corrupted free lists, and the
 * missing-debug-file and wrong-file errors. Built as its own binary
 * (build/glibcview_tests: it links user/glibcview.c); needs root.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sample/glibcid.h"
#include "sample/glibcview.h"
#include "harness.h"
#include "process/procmaps.h"

#define GIB (1ull << 30)
#define DEFAULT_THRESHOLD (128 * 1024)

/* ------------------------------------------------------------- helpers */

static void target_start(struct proc *t, const char *path)
{
	const char *argv[] = { path, NULL };
	char *line;

	proc_spawn(t, argv);
	line = proc_line(t);
	cr_assert(line && !strncmp(line, "ready pid=", 10),
		  "%s starts and says ready (got [%s])", path, line ? line : "nothing");
}

static void target_stop(struct proc *t)
{
	proc_kill(t, SIGKILL);
	proc_wait(t);
}

/* Sends @cmd and returns its reply, which must start with @expect. */
static const char *target_command(struct proc *t, const char *cmd, const char *expect)
{
	static char reply[4096];
	char text[64];
	char *line;

	snprintf(text, sizeof(text), "%s\n", cmd);
	proc_send(t, text);
	line = proc_line(t);
	cr_assert(line, "the target answers %s", cmd);
	cr_assert(!strncmp(line, expect, strlen(expect)),
		  "%s: the reply starts with %s (got [%s])", cmd, expect, line);
	snprintf(reply, sizeof(reply), "%s", line);
	return reply;
}

/* The mapping of @path (or of the libc if NULL) at file offset 0. */
static void find_base(pid_t pid, const char *path, char *mapped, size_t len,
		      uint64_t *base)
{
	struct mw_maps maps;
	const struct mw_mapping *m;

	cr_assert_eq(procmaps__load(pid, &maps), 0, "read /proc/%d/maps", (int)pid);
	m = path ? procmaps__find_path(&maps, path) : procmaps__find_libc(&maps);
	cr_assert(m, "pid %d maps %s", (int)pid, path ? path : "a libc");
	cr_assert_eq(m->offset, 0, "its first mapping is at file offset 0");
	snprintf(mapped, len, "%s", m->path);
	*base = m->start;
	procmaps__free(&maps);
}

static int view_open_path(struct mw_glibcview **g, pid_t pid, const char *path)
{
	char root[64], mapped[PATH_MAX];
	uint64_t base;

	find_base(pid, path, mapped, sizeof(mapped), &base);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return glibcview__open(g, pid, root, mapped, base);
}

static struct mw_glibcview *view_open(pid_t pid)
{
	struct mw_glibcview *g;
	int err = view_open_path(&g, pid, NULL);

	cr_assert_eq(err, 0, "glibcview__open on pid %d: %s (libc6-dbg installed?)",
		     (int)pid, strerror(-err));
	return g;
}

static uint64_t vm_size_bytes(pid_t pid)
{
	char path[64], line[256];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	cr_assert(f, "open %s", path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* Bounds every sample keeps, consistent or not. */
static void expect_sane(const struct mw_glibc_sample *s, pid_t pid)
{
	uint64_t vm = vm_size_bytes(pid);

	cr_expect(s->arenas >= 1 && s->arenas <= MW_GLIBC_MAX_ARENAS,
		  "arenas %llu within 1..%d", (unsigned long long)s->arenas,
		  MW_GLIBC_MAX_ARENAS);
	cr_expect_leq(s->arena, vm, "arena %llu within the target's VmSize %llu",
		      (unsigned long long)s->arena, (unsigned long long)vm);
	cr_expect_leq(s->hblkhd, vm, "hblkhd within VmSize");
	cr_expect_leq(s->fordblks, s->arena, "free bytes within the arena bytes");
	cr_expect_eq(s->uordblks, s->arena - s->fordblks, "uordblks = arena - fordblks");
	cr_expect_leq(s->fsmblks, s->fordblks, "fastbin bytes within the free bytes");
	cr_expect_leq(s->smblks * 32, s->fsmblks, "every fastbin chunk is >= 32 bytes");
	cr_expect_leq(s->keepcost, s->arena, "keepcost within the arena bytes");
	cr_expect(s->fragmentation >= 0 && s->fragmentation <= 1,
		  "fragmentation %f within [0, 1]", s->fragmentation);
}

/* Every mallinfo2 field read from outside equals the target's own. */
static void expect_equal(const struct mw_glibc_sample *s, const char *info)
{
	static const struct { const char *key; size_t off; } fields[] = {
#define F(name) { #name, offsetof(struct mw_glibc_sample, name) }
		F(arena), F(ordblks), F(smblks), F(hblks), F(hblkhd), F(usmblks),
		F(fsmblks), F(uordblks), F(fordblks), F(keepcost),
#undef F
	};

	cr_expect(s->consistent, "a quiescent target reads consistent");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t got = *(const uint64_t *)((const char *)s + fields[i].off);
		long long want = reply_int(info, fields[i].key);

		cr_expect_eq(got, (uint64_t)want, "%s: read %llu, mallinfo2 says %lld",
			     fields[i].key, (unsigned long long)got, want);
	}
	cr_expect_eq(s->fragmentation,
		     s->arena ? (double)s->fordblks / (double)s->arena : 0.0,
		     "fragmentation = fordblks / arena");
}

/* Sends @cmd, reads from outside, compares; returns the sample. */
static struct mw_glibc_sample check_command(struct proc *t, struct mw_glibcview *g,
					    const char *cmd)
{
	const char *info = target_command(t, cmd, "info ");
	struct mw_glibc_sample s;

	cr_assert_eq(glibcview__read(g, &s), 0, "glibcview__read after %s", cmd);
	cr_log_info("%s: target %s", cmd, info);
	cr_log_info("%s: read   arena=%llu ordblks=%llu smblks=%llu hblks=%llu hblkhd=%llu "
		    "usmblks=%llu fsmblks=%llu uordblks=%llu fordblks=%llu keepcost=%llu "
		    "arenas=%llu mmap_threshold=%llu trim_threshold=%llu fragmentation=%.4f "
		    "consistent=%d", cmd,
		    (unsigned long long)s.arena, (unsigned long long)s.ordblks,
		    (unsigned long long)s.smblks, (unsigned long long)s.hblks,
		    (unsigned long long)s.hblkhd, (unsigned long long)s.usmblks,
		    (unsigned long long)s.fsmblks, (unsigned long long)s.uordblks,
		    (unsigned long long)s.fordblks, (unsigned long long)s.keepcost,
		    (unsigned long long)s.arenas, (unsigned long long)s.mmap_threshold,
		    (unsigned long long)s.trim_threshold, s.fragmentation, s.consistent);
	expect_equal(&s, info);
	expect_sane(&s, t->pid);
	return s;
}

/* ------------------------------------------------------ exact figures */

Test(glibcview, one_arena__equals_mallinfo2, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	s = check_command(&t, g, "info");
	s = check_command(&t, g, "one");
	cr_expect_eq(s.arenas, 1, "one thread, one arena");
	cr_expect_gt(s.uordblks, 2000 * 8, "the 2000 blocks are in use");
	cr_expect_eq(s.mmap_threshold, DEFAULT_THRESHOLD, "mmap threshold at its default");
	cr_expect_eq(s.trim_threshold, DEFAULT_THRESHOLD, "trim threshold at its default");
	glibcview__close(g);
	target_stop(&t);
}

/* The host's debug file is read once a build: a second process of the
 * same libc (follow mode, prefork workers) opens its view without walking
 * the DWARF again, 60-100 ms, and its figures are as exact. */
Test(glibcview, same_libc_twice__dwarf_read_once_exact, .timeout = MW_TIMEOUT)
{
	struct proc a, b;
	struct mw_glibcview *ga, *gb;
	struct mw_glibc_sample s;
	unsigned long reads;

	target_start(&a, TARGET("mallinfo_target"));
	target_start(&b, TARGET("mallinfo_target"));
	reads = glibcid__dwarf_reads();
	ga = view_open(a.pid);
	cr_expect_gt(glibcid__dwarf_reads(), reads, "the first view reads the debug file");
	reads = glibcid__dwarf_reads();
	gb = view_open(b.pid);
	cr_expect_eq(glibcid__dwarf_reads(), reads, "the second, of the same build, does not");
	s = check_command(&b, gb, "one");
	cr_expect_eq(s.arenas, 1, "and its figures are exact (mallinfo2's, checked above)");
	check_command(&a, ga, "info");
	glibcview__close(ga);
	glibcview__close(gb);
	target_stop(&a);
	target_stop(&b);
}

Test(glibcview, threads__several_arenas_equal_mallinfo2, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	s = check_command(&t, g, "threads");
	cr_expect_eq(s.arenas, 5, "4 threads below the arena limit: 1 + 4 arenas");
	cr_expect_gt(s.ordblks, s.arenas, "the threads' frees left chunks in bins");
	glibcview__close(g);
	target_stop(&t);
}

Test(glibcview, frag__fastbins_and_bins_equal_mallinfo2, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	s = check_command(&t, g, "frag");
	cr_expect_gt(s.smblks, 0, "fastbins hold chunks");
	cr_expect_gt(s.fsmblks, 0, "fastbins hold bytes");
	cr_expect_gt(s.ordblks, 100, "bins hold many chunks");
	cr_expect_gt(s.fragmentation, 0.1, "every other block free: fragmented");
	glibcview__close(g);
	target_stop(&t);
}

Test(glibcview, huge__over_2gib_mmapped_equals_mallinfo2, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	s = check_command(&t, g, "huge");
	cr_expect_eq(s.hblks, 3, "three mmapped blocks");
	cr_expect_gt(s.hblkhd, 3 * GIB, "over 3 GiB mmapped, past 32 bits");
	glibcview__close(g);
	target_stop(&t);
}

Test(glibcview, sequence__every_step_equals_mallinfo2, .timeout = MW_TIMEOUT)
{
	static const char *const steps[] = { "one", "threads", "frag", "threads",
					     "huge", "frag", "info" };
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample a, b;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		a = check_command(&t, g, steps[i]);
	cr_assert_eq(glibcview__read(g, &b), 0, "a second read");
	cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0, "two reads of a parked heap agree");
	cr_expect(a.arenas >= 5 && a.arenas <= 9,
		  "two groups of 4 threads: 9 arenas, fewer past glibc's limit (%llu)",
		  (unsigned long long)a.arenas);
	glibcview__close(g);
	target_stop(&t);
}

Test(glibcview, thresh__dynamic_thresholds_follow_glibc, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;
	const char *info;
	long long want;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	info = target_command(&t, "thresh", "info ");
	want = reply_int(info, "expect_mmap_threshold");
	cr_assert_eq(glibcview__read(g, &s), 0, "read after an mmapped block was freed");
	expect_equal(&s, info);
	cr_expect_eq(s.mmap_threshold, (uint64_t)want,
		     "mmap threshold raised to the freed chunk's size %lld", want);
	cr_expect_eq(s.trim_threshold, 2 * (uint64_t)want, "trim threshold twice that");
	glibcview__close(g);
	target_stop(&t);
}

/* ------------------------------------------- a heap moving under the walk */

Test(glibcview, churn__never_garbage_then_exact_again, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;
	int consistent = 0, inconsistent = 0;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	target_command(&t, "churn", "churning");
	/* 100 walks while the heap churns: each ends (a hang is the test's
	 * timeout) and is sane, consistent or marked not */
	for (int i = 0; i < 100; i++) {
		cr_assert_eq(glibcview__read(g, &s), 0, "read %d while the heap churns", i);
		expect_sane(&s, t.pid);
		if (s.consistent)
			consistent++;
		else
			inconsistent++;
	}
	cr_log_info("churn: %d reads consistent, %d marked inconsistent",
		    consistent, inconsistent);
	check_command(&t, g, "stop");
	glibcview__close(g);
	target_stop(&t);
}

/* A corrupted list: read returns, bounded, marked inconsistent, sane. */
static void corrupt_case(const char *kind)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;
	char cmd[32];

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	target_command(&t, "one", "info ");
	snprintf(cmd, sizeof(cmd), "corrupt %s", kind);
	target_command(&t, cmd, "corrupted");
	/* the walk ends (a hang is the test's timeout), on a bounded budget */
	cr_assert_eq(glibcview__read(g, &s), 0, "read of a heap with a %s corruption", kind);
	cr_expect_not(s.consistent, "%s: the sample is marked inconsistent", kind);
	expect_sane(&s, t.pid);
	glibcview__close(g);
	target_stop(&t);
}

Test(glibcview, corrupt_fastbin_loop__bounded_and_inconsistent, .timeout = MW_TIMEOUT)
{
	corrupt_case("loop");
}

Test(glibcview, corrupt_fastbin_wild_pointer__bounded_and_inconsistent, .timeout = MW_TIMEOUT)
{
	corrupt_case("wild");
}

Test(glibcview, corrupt_bin_link__bounded_and_inconsistent, .timeout = MW_TIMEOUT)
{
	corrupt_case("bin");
}

Test(glibcview, corrupt_chunk_size__bounded_and_inconsistent, .timeout = MW_TIMEOUT)
{
	corrupt_case("size");
}

/* ----------------------------------------------------------- errors */

Test(glibcview, no_debug_file__enoent, .timeout = MW_TIMEOUT)
{
	char exe[PATH_MAX];
	struct proc t;
	struct mw_glibcview *g = (void *)1;

	/* a stripped object whose build-id has no debug file anywhere */
	cr_assert(realpath(TARGET("mallinfo_target.nodebug"), exe), "the stripped target exists");
	target_start(&t, exe);
	cr_expect_eq(view_open_path(&g, t.pid, exe), -ENOENT,
		     "no debug file for this build-id: -ENOENT");
	cr_expect_null(g, "nothing opened");
	target_stop(&t);
}

Test(glibcview, not_glibc__enodata, .timeout = MW_TIMEOUT)
{
	char exe[PATH_MAX];
	struct proc t;
	struct mw_glibcview *g;

	/* the target itself has DWARF, but no main_arena in it */
	cr_assert(realpath(TARGET("mallinfo_target"), exe), "the target exists");
	target_start(&t, exe);
	cr_expect_eq(view_open_path(&g, t.pid, exe), -ENODATA,
		     "DWARF without glibc's malloc state: -ENODATA");
	target_stop(&t);
}

Test(glibcview, wrong_file_at_base__estale, .timeout = MW_TIMEOUT)
{
	char root[64], libc[PATH_MAX], exe[PATH_MAX];
	struct proc t;
	struct mw_glibcview *g;
	uint64_t base;

	cr_assert(realpath(TARGET("mallinfo_target"), exe), "the target exists");
	target_start(&t, exe);
	find_base(t.pid, NULL, libc, sizeof(libc), &base);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)t.pid);
	cr_expect_eq(glibcview__open(&g, t.pid, root, exe, base), -ESTALE,
		     "another file's build-id at the libc's base: -ESTALE");
	target_stop(&t);
}

Test(glibcview, target_exited__esrch, .timeout = MW_TIMEOUT)
{
	struct proc t;
	struct mw_glibcview *g;
	struct mw_glibc_sample s;

	target_start(&t, TARGET("mallinfo_target"));
	g = view_open(t.pid);
	target_stop(&t);
	cr_expect_eq(glibcview__read(g, &s), -ESRCH, "a read after exit: -ESRCH");
	glibcview__close(g);
}
