// SPDX-License-Identifier: GPL-2.0
/*
 * test_stacks.c - every recorded stack is the stack the target computes
 * for itself. The chains targets (C, C++ and Rust, built as releases are,
 * without frame pointers) allocate from six known call chains, 5 to 20
 * frames deep, through a library's callback, glibc's qsort and a thread's
 * start; each leaf takes glibc's backtrace(3) (which unwinds with the
 * same .eh_frame) just before it allocates. memwatch --stacks walks the
 * stacks in BPF with the objects' unwind tables; its heap profile, read
 * with `go tool pprof -raw`, must hold each chain's stack frame for frame
 * at the same return addresses, with the live bytes the target counted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "session.h"

#define MAXF 64

struct raw_sample {
	long long inuse_objects, inuse_space;
	int nloc, loc[MAXF];
};

struct raw_location {
	int id;
	unsigned long long addr;
	char func[256];	/* "function file:line s=0" */
};

/* what `go tool pprof -raw` prints of a profile: its samples (four
 * values, then location ids, leaf first) and its locations */
struct raw_profile {
	struct raw_sample samples[256];
	int nsamples;
	struct raw_location locs[1024];
	int nlocs;
};

static void raw_parse(char *text, struct raw_profile *p)
{
	enum { NONE, SAMPLES, LOCATIONS } part = NONE;

	memset(p, 0, sizeof(*p));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		long long v[4];
		int used;

		if (!strncmp(line, "Samples:", 8)) {
			part = SAMPLES;
		} else if (!strncmp(line, "Locations", 9)) {
			part = LOCATIONS;
		} else if (!strncmp(line, "Mappings", 8)) {
			part = NONE;
		} else if (part == SAMPLES && p->nsamples < 256 &&
			   sscanf(line, " %lld %lld %lld %lld:%n", &v[0], &v[1], &v[2], &v[3],
				  &used) == 4) {
			struct raw_sample *s = &p->samples[p->nsamples++];
			char *at = line + used, *end;

			s->inuse_objects = v[2];
			s->inuse_space = v[3];
			for (long id; s->nloc < MAXF && (id = strtol(at, &end, 10), end != at); at = end)
				s->loc[s->nloc++] = (int)id;
		} else if (part == LOCATIONS && p->nlocs < 1024) {
			struct raw_location *l = &p->locs[p->nlocs];

			/* "  ID: 0xADDR M=N function file:line s=0"; an inlined
			 * caller's line has no id */
			int at = 0;

			if (sscanf(line, " %d: %llx M=%*d %n", &l->id, &l->addr, &at) == 2 && at) {
				snprintf(l->func, sizeof(l->func), "%s", line + at);
				p->nlocs++;
			}
		}
	}
}

static const struct raw_location *raw_location(const struct raw_profile *p, int id)
{
	for (int i = 0; i < p->nlocs; i++)
		if (p->locs[i].id == id)
			return &p->locs[i];
	return NULL;
}

/* The target's record of chain @k: its size, count, whether every call
 * had the same stack, and that stack (glibc's backtrace(3), leaf first). */
struct chain {
	long long size, count;
	int same, nbt;
	unsigned long long bt[MAXF];
};

static void chain_of(struct session *s, int k, struct chain *c)
{
	char cmd[32], *reply, *at, *end;
	int used = 0;

	snprintf(cmd, sizeof(cmd), "chain %d\n", k);
	reply = session_command(s, cmd);
	memset(c, 0, sizeof(*c));
	cr_assert_eq(sscanf(reply, "chain %*d size %lld count %lld same %d bt%n", &c->size,
			    &c->count, &c->same, &used), 3, "a chain's line: [%s]", reply);
	cr_assert(used > 0, "the frames follow: [%s]", reply);
	for (at = reply + used; c->nbt < MAXF; at = end) {
		c->bt[c->nbt] = strtoull(at, &end, 16);
		if (end == at)
			break;
		c->nbt++;
	}
	cr_assert_gt(c->nbt, 4, "the target's own stack: [%s]", reply);
}

/* Is @func one of the allocation helpers between a leaf and malloc (C++'s
 * operator new in libstdc++)? The target's backtrace, taken in the leaf,
 * has none of them. */
static bool helper(const char *func)
{
	return !strncmp(func, "operator", 8) || !strncmp(func, "__cxa", 5);
}

static void stacks_equal_backtrace(const char *target, const char *leaf_func)
{
	static char raw[1 << 17];
	static struct raw_profile prof;
	const char *targv[] = { target, NULL };
	char dir[] = "/tmp/memwatch-stacks-XXXXXX", file[256], hdr[2048], port[16], cmd[512];
	struct session s;
	int p = free_port(), nchains = 0;

	skip_unless_built(target);
	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(port, sizeof(port), "%d", p);
	const char *extra[] = { "--stacks", "-l", port, NULL };
	session_start_target(&s, targv, extra);
	cr_assert_eq(sscanf(session_command(&s, "run\n"), "ran chains=%d", &nchains), 1);
	session_settle(&s);
	session_settle(&s);	/* the profile published with that row */
	snprintf(file, sizeof(file), "%s/heap.pb.gz", dir);
	cr_assert_eq(http_fetch(p, "/debug/pprof/heap", file, hdr, sizeof(hdr)), 200, "%s", hdr);
	snprintf(cmd, sizeof(cmd), "go tool pprof -raw %s 2>&1", file);
	cr_assert_eq(run_capture(cmd, raw, sizeof(raw)), 0, "-raw parses: %s", raw);
	raw_parse(raw, &prof);
	cr_assert_gt(prof.nsamples, 0, "samples in the profile");
	cr_expect_eq(session_int(&s, "stacks_truncated"), 0, "no stack cut short");
	cr_expect_eq(session_int(&s, "lost_stacks"), 0, "no stack lost");

	for (int k = 0; k < nchains; k++) {
		const struct raw_sample *found = NULL;
		const struct raw_location *l;
		struct chain c;
		int first = 0, nfound = 0;

		chain_of(&s, k, &c);
		cr_expect_eq(c.same, 1, "chain %d: one stack for all its calls", k);
		for (int i = 0; i < prof.nsamples; i++)
			if (prof.samples[i].inuse_space == c.count * c.size) {
				found = &prof.samples[i];
				nfound++;
			}
		cr_expect_eq(nfound, 1, "chain %d: one stack holds its %lld x %lld bytes", k,
			     c.count, c.size);
		if (!found)
			continue;
		cr_expect_eq(found->inuse_objects, c.count, "chain %d: its %lld blocks", k, c.count);
		/* past the allocator's helpers, the leaf: the call to malloc (or
		 * operator new) just after the backtrace call */
		while (first < found->nloc && (l = raw_location(&prof, found->loc[first])) &&
		       helper(l->func))
			first++;
		l = first < found->nloc ? raw_location(&prof, found->loc[first]) : NULL;
		cr_assert(l, "chain %d: a leaf frame", k);
		cr_expect(!strncmp(l->func, leaf_func, strlen(leaf_func)) &&
			  l->func[strlen(leaf_func)] == ' ', "chain %d: the leaf is %s: [%s]", k,
			  leaf_func, l->func);
		cr_expect(l->addr > c.bt[0] && l->addr - c.bt[0] < 512,
			  "chain %d: the allocation's return address %#llx just after backtrace's %#llx",
			  k, l->addr, c.bt[0]);
		/* then frame for frame, to the thread's first */
		cr_expect_eq(found->nloc - first, c.nbt, "chain %d: %d frames, as backtrace(3) has",
			     k, c.nbt);
		for (int i = 1; i < c.nbt && first + i < found->nloc; i++) {
			l = raw_location(&prof, found->loc[first + i]);
			cr_assert(l, "chain %d: location %d", k, found->loc[first + i]);
			cr_expect_eq(l->addr, c.bt[i], "chain %d frame %d: %#llx (%s), backtrace %#llx",
				     k, i, l->addr, l->func, c.bt[i]);
		}
	}
	session_stop(&s);
	temp_dir_remove(dir);
}

Test(stacks, c_release__every_stack_is_backtraces, .timeout = MW_TIMEOUT)
{
	stacks_equal_backtrace(TARGET("chains"), "leaf");
}

Test(stacks, cxx_release__every_stack_is_backtraces, .timeout = MW_TIMEOUT)
{
	stacks_equal_backtrace(TARGET("chains_cxx"), "::leaf");	/* pprof -raw shortens (anonymous namespace) */
}

Test(stacks, rust_release__every_stack_is_backtraces, .timeout = MW_TIMEOUT)
{
	stacks_equal_backtrace(TARGET("chains_rust"), "chains_rust::leaf");
}
