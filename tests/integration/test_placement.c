// SPDX-License-Identifier: GPL-2.0
/*
 * test_placement.c - probes moved past the instructions release builds
 * start with (sub $imm,%rsp, loads into argument registers, red-zone
 * stores, endbr64, register copies) count exactly, leave the target's
 * results, callee-saved registers and stack unchanged, and a probe that must stay single-stepped is said on
 * stderr and counted in the feed. And the kernel's emulated-instruction
 * list, as placement.c has it, holds on this kernel: timed.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "session.h"

static const char *const prologues[] = { TARGET("prologues"), NULL };

#define CALLS "300"

/* Every p_ function as a structure counting its second argument (its
 * first for p_copy, which keeps that one only in rax past its prologue). */
Test(placement, moved_probes__exact_and_the_target_unchanged, .timeout = MW_TIMEOUT)
{
	static const char *const names[] = { "push", "sub", "mov", "redzone", "endbr", "copy" };
	const char *extra[64] = { "--no-heap" };
	char func[6][32], col[64];
	struct session s;
	char *reply;
	int n = 1;

	for (int i = 0; i < 6; i++) {
		snprintf(func[i], sizeof(func[i]), "p_%s", names[i]);
		extra[n++] = "--struct";
		extra[n++] = names[i];
		extra[n++] = "--insert";
		extra[n++] = func[i];
		extra[n++] = "--delta";
		extra[n++] = strcmp(names[i], "copy") ? "arg2" : "arg1";
	}
	extra[n] = NULL;
	session_start_target(&s, prologues, extra);
	reply = session_command(&s, "run " CALLS "\n");
	session_settle(&s);
	for (int i = 0; i < 6; i++) {
		snprintf(col, sizeof(col), "p_%s_b", names[i]);
		long long want = reply_int(reply, col) * (strcmp(names[i], "copy") ? 1 : 1000);

		snprintf(col, sizeof(col), "%s_elements", names[i]);
		cr_expect_eq(session_int(&s, col), want, "%s = the arguments passed: %lld (%s)",
			     col, want, reply);
		snprintf(col, sizeof(col), "%s_insert_calls", names[i]);
		cr_expect_eq(session_int(&s, col), atoll(CALLS), "%s: every call seen", col);
		snprintf(col, sizeof(col), "p_%s", names[i]);
		cr_expect_eq(reply_int(reply, col), reply_int(reply, "expect"),
			     "%s computes what it computes untraced (%s)", col, reply);
	}
	cr_expect_eq(reply_int(reply, "corrupted"), 0,
		     "no call came back with a callee-saved register or the caller's stack changed");
	cr_expect_eq(session_int(&s, "probes_single_stepped"), 0, "no probe single-stepped");
	cr_expect_null(strstr(proc_stderr(&s.mw), "single-stepped"),
		       "nothing to warn about: [%s]", proc_stderr(&s.mw));
	session_stop(&s);
}

/* --delta ret in a C target keeps a return probe: the kernel takes the
 * return address from [rsp] when the entry probe hits, so a probe cannot
 * move past sub $imm,%rsp. Said once, counted, and still exact. */
Test(placement, return_probe_past_sub__stays_single_stepped_and_said, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "sub", "--insert", "p_sub", "--delta", "ret",
				"--struct", "mov", "--insert", "p_mov", "--delta", "ret", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, prologues, extra);
	reply = session_command(&s, "run " CALLS "\n");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "sub_elements"), reply_int(reply, "expect"),
		     "exact single-stepped too (%s)", reply);
	cr_expect_eq(session_int(&s, "mov_elements"), reply_int(reply, "expect"),
		     "and moved past the load (%s)", reply);
	cr_expect_eq(session_int(&s, "probes_single_stepped"), 1, "p_sub's probe is counted");
	cr_expect(strstr(proc_stderr(&s.mw), "p_sub stays single-stepped") &&
		  strstr(proc_stderr(&s.mw), "sub rsp, 0x28"),
		  "stderr names the function and the instruction: [%s]", proc_stderr(&s.mw));
	cr_expect_null(strstr(proc_stderr(&s.mw), "p_mov stays"),
		       "p_mov's probe moved: [%s]", proc_stderr(&s.mw));
	session_stop(&s);
}

/* ns per call of t_@name under a plain perf uprobe (no BPF program): the
 * kernel's own emulate-or-single-step path. Median of three. */
static long long probed_ns(struct proc *t, const char *name)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	char cmd[64], path[64];
	long long ns[3], off;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -1, fd;

	cr_assert(f && fscanf(f, "%d", &type) == 1, "the uprobe PMU exists");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "where %s\n", name);
	proc_send(t, cmd);
	off = reply_int(proc_line(t), "off");
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t->pid);
	a.type = (__u32)type;
	a.config1 = (__u64)(unsigned long)path;
	a.config2 = (__u64)off;
	fd = (int)syscall(SYS_perf_event_open, &a, t->pid, -1, -1, 0);
	cr_assert_geq(fd, 0, "a uprobe on t_%s", name);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "spin %s 20000\n", name);
		proc_send(t, cmd);
		ns[i] = reply_int(proc_line(t), "ns_per_call");
	}
	close(fd);
	for (int i = 0; i < 2; i++)		/* sort three */
		for (int k = 0; k < 2 - i; k++)
			if (ns[k] > ns[k + 1]) {
				long long x = ns[k];

				ns[k] = ns[k + 1];
				ns[k + 1] = x;
			}
	return ns[1];
}

Test(placement, kernel_emulates_what_placement_counts_on, .timeout = MW_TIMEOUT)
{
	/* the nopl (0f 1f 40 00) where memwatch found it emulated: 6.18
	 * emulates it, 6.1 steps it */
	bool nopl = kernel_emulates_nopl();
	const char *emulated[] = { "push", "jcc", nopl ? "nop" : NULL };
	const char *stepped[] = { "mov", "endbr", "ret", nopl ? NULL : "nop" };
	long long slowest_emulated = 0, fastest_stepped = -1, ns;
	struct proc t;
	char report[512] = "";

	proc_spawn(&t, prologues);
	cr_assert(proc_line(&t), "target ready");
	for (int i = 0; i < 3 && emulated[i]; i++) {
		ns = probed_ns(&t, emulated[i]);
		snprintf(report + strlen(report), sizeof(report) - strlen(report), " %s=%lld", emulated[i], ns);
		slowest_emulated = ns > slowest_emulated ? ns : slowest_emulated;
	}
	for (int i = 0; i < 4 && stepped[i]; i++) {
		ns = probed_ns(&t, stepped[i]);
		snprintf(report + strlen(report), sizeof(report) - strlen(report), " %s=%lld", stepped[i], ns);
		fastest_stepped = fastest_stepped < 0 || ns < fastest_stepped ? ns : fastest_stepped;
	}
	cr_expect_lt(slowest_emulated * 2, fastest_stepped,
		     "every emulated probe is at least twice as fast as any single-stepped one (ns per call:%s)",
		     report);
	proc_send(&t, "quit\n");
	proc_wait(&t);
}
