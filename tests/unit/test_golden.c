// SPDX-License-Identifier: GPL-2.0
/*
 * test_golden.c - every writer's whole output for fixed snapshots, byte for
 * byte against the files in tests/unit/golden/: CSV (header and rows),
 * Prometheus text 0.0.4, OpenMetrics 1.0, the table view (twice, for its
 * deltas) and folded stacks, with the heap on and with --no-heap. A
 * refactoring that changes one byte of a feed fails here. After a
 * deliberate change, MW_GOLDEN_UPDATE=1 rewrites the files; the diff is
 * then part of the change.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/csv.h"
#include "export/expo.h"
#include "export/folded.h"
#include "export/table.h"

#define GOLDEN_DIR "tests/unit/golden/"

static const struct mw_struct_spec structs[] = {
	{ .name = "cache", .size = 64, .probed = true },
	{ .name = "index", .size = 0, .probed = true },
	{ .name = "dag", .size = 0, .read = "self.dag", .probed = true },
};

static struct mw_site_row site_rows[] = {
	{ .addr = 0x401234, .live_bytes = 245760, .live_blocks = 60, .allocs = 60,
	  .name = "make_buffers+0xe (app) app.c:44", .frame = "app`make_buffers" },
	{ .addr = 0x7f0000001000, .live_bytes = 36960, .live_blocks = 370, .allocs = 371,
	  .suspect = true, .name = "grow_cache+0xe (app) app.c:38", .frame = "app`grow_cache" },
	{ .addr = 0x7f0000002000, .live_bytes = -32, .live_blocks = -1, .allocs = 0,
	  .name = "0x7f0000002000 (libx.so)", .frame = "libx.so`0x2000" },
};

static struct mw_insert_row insert_rows[] = {
	{ .addr = 0x401500, .struct_id = 0, .calls = 90, .name = "path_b+0x5 (app) app.c:67" },
	{ .addr = 0x401400, .struct_id = 1, .calls = 30, .name = "path_a+0x5 (app) app.c:61" },
};

static struct mw_sites sites = {
	.rows = site_rows, .nrows = 3, .ins = insert_rows, .nins = 2, .suspects = 1, .truncated = 2,
};

/* Two targets: the first with sites and glibc's view, the second without;
 * every counter distinct, so a value under the wrong name shows. */
static void snapshots(struct mw_snapshot *s, int step)
{
	memset(s, 0, 2 * sizeof(*s));
	for (int t = 0; t < 2; t++) {
		s[t].when = (struct timespec){ 1764700000 + step, 123456789 };
		s[t].pid = 4242 + t;
		for (int k = 0; k < MW_C__COUNT; k++)
			s[t].c[k] = (uint64_t)(1000 * (t + 1) + 10 * k + step);
		s[t].lost_missed = 7 + t;
		s[t].live_bytes = 123456 + 1000 * step - t;
		s[t].live_allocations = 789 + step + t;
		s[t].rss_bytes = 4096ull * (1000 + t);
		s[t].probes_single_stepped = 2u - (unsigned)t;	/* 2, then 1 */
		s[t].overhead_percent = 0.25 + t + step / 8.0;
		s[t].heap_attached = true;
		s[t].heap_since = (struct timespec){ 1764699000 + t, 500000000 };
		s[t].nstructs = 3;
		s[t].s[0] = (struct mw_struct_sample){ .elements = 500 + step, .bytes = 77777 + step, .estimated_bytes = (500 + step) * 64,
				.insert_calls = 600, .remove_calls = 100, .unwound_calls = 7, .alloc_bytes = 90000 };
		s[t].s[1] = (struct mw_struct_sample){ .elements = -3 - t, .bytes = 4064, .estimated_bytes = 0,
				.insert_calls = 222, .remove_calls = 128 + step, .alloc_bytes = 4064 };
		/* read from memory: whole in the first target, two roots; the
		 * second's walk did not finish (no length, no bytes) */
		s[t].s[2] = (struct mw_struct_sample){ .elements = 30 + step, .bytes = 5120,
				.insert_calls = 31, .remove_calls = 1, .unwound_calls = 2 + (unsigned)step,
				.alloc_bytes = 6144,
				.length = 530 + step, .length_known = true, .retained_bytes = 1250000 + step,
				.read_complete = t == 0, .read_errors = 3u * (unsigned)t + (unsigned)step,
				.roots = 2 };
	}
	s[0].sites = &sites;
	s[0].has_glibc = true;
	s[0].glibc = (struct mw_glibc_sample){
		.arena = 2854912, .ordblks = 744, .smblks = 729, .hblks = 2, .hblkhd = 270336,
		.fsmblks = 62208, .uordblks = 1042304, .fordblks = 1812608, .keepcost = 18224,
		.arenas = 1, .mmap_threshold = 131072, .trim_threshold = 131072,
		.fragmentation = 0.634909, .consistent = true,
	};
}

static struct mw_layout layout(bool heap)
{
	return (struct mw_layout){ .structs = structs, .nstructs = 3, .heap = heap,
				   .sites = heap, .top = 10 };
}

enum mode { NO_HEAP, HEAP, DETACHED };

/* --max-overhead detached the second target's allocator probes, and the
 * first target's second structure's probes. */
static void detach(struct mw_snapshot *s)
{
	s[1].heap_attached = false;
	s[0].s[1].detached = true;
}

/* What @write produced for the layout and snapshots, as one string. */
static char *render(enum mode mode, int (*write)(FILE *, const struct mw_layout *,
						 const struct mw_snapshot *const *, int))
{
	struct mw_layout l = layout(mode != NO_HEAP);
	struct mw_snapshot s[2];
	const struct mw_snapshot *all[2] = { &s[0], &s[1] };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f, "open_memstream");
	snapshots(s, 0);
	if (mode == DETACHED)
		detach(s);
	cr_assert_eq(write(f, &l, all, 2), 0, "the writer succeeds");
	snapshots(s, 1);
	if (mode == DETACHED)
		detach(s);
	cr_assert_eq(write(f, &l, all, 2), 0, "the writer succeeds twice");
	fclose(f);
	return buf;
}

static int csv_all(FILE *f, const struct mw_layout *l,
		   const struct mw_snapshot *const *s, int n)
{
	int err = 0;

	if (!ftell(f))		/* a new rendering starts with the header */
		err = csv__write_header(f, l);
	for (int i = 0; i < n && !err; i++)
		err = csv__write_row(f, l, s[i]);
	return err;
}

static int prometheus(FILE *f, const struct mw_layout *l,
		      const struct mw_snapshot *const *s, int n)
{
	return expo__write(f, MW_EXPO_PROMETHEUS, l, s, n);
}

static int openmetrics(FILE *f, const struct mw_layout *l,
		       const struct mw_snapshot *const *s, int n)
{
	return expo__write(f, MW_EXPO_OPENMETRICS, l, s, n);
}

static int table(FILE *f, const struct mw_layout *l,
		 const struct mw_snapshot *const *s, int n)
{
	static struct mw_table t;

	if (!ftell(f))
		memset(&t, 0, sizeof(t));	/* a new rendering: no history */
	return table__write(f, &t, l, s, n);
}

static int folded(FILE *f, const struct mw_layout *l,
		  const struct mw_snapshot *const *s, int n)
{
	return folded__print(f, s, n);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int c;

	if (!f)
		return NULL;
	out = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(out);
	fclose(f);
	return buf;
}

static void golden(const char *name, const char *got)
{
	char path[256];
	char *want;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	if (getenv("MW_GOLDEN_UPDATE")) {
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f, "can write %s", path);
		fputs(got, f);
		fclose(f);
	}
	want = slurp(path);
	cr_assert_not_null(want, "%s exists (MW_GOLDEN_UPDATE=1 writes it)", path);
	cr_expect_str_eq(got, want, "%s: the output is byte for byte the same", path);
	free(want);
}

#define GOLDEN(writer, heap, file)					\
	Test(golden, writer##_##heap)					\
	{								\
		char *out = render(heap, writer);			\
		golden(file, out);					\
		free(out);						\
	}

static const enum mode heap = HEAP, no_heap = NO_HEAP, detached = DETACHED;

GOLDEN(csv_all, heap, "csv_heap.csv")
GOLDEN(csv_all, no_heap, "csv_no_heap.csv")
GOLDEN(prometheus, heap, "prometheus_heap.txt")
GOLDEN(prometheus, no_heap, "prometheus_no_heap.txt")
GOLDEN(openmetrics, heap, "openmetrics_heap.txt")
GOLDEN(openmetrics, no_heap, "openmetrics_no_heap.txt")
GOLDEN(table, heap, "table_heap.txt")
GOLDEN(table, no_heap, "table_no_heap.txt")
GOLDEN(folded, heap, "folded_heap.txt")
GOLDEN(csv_all, detached, "csv_detached.csv")
GOLDEN(openmetrics, detached, "openmetrics_detached.txt")
GOLDEN(table, detached, "table_detached.txt")
GOLDEN(folded, detached, "folded_detached.txt")
