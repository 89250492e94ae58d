// SPDX-License-Identifier: GPL-2.0
/*
 * test_csv.c - the CSV writer. A snapshot with a distinct value in every
 * field is written, and each value is looked up in the row by its column
 * name from the header, so a value under the wrong column is caught.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "export/csv.h"
#include "export/timestamp.h"

#define MAX_FIELDS 128

/* Columns before any structure's, in order: the feed's contract. glibc's
 * are always there, empty for a target whose glibc cannot be read. */
#define FIXED_HEADER "timestamp,pid,heap_live_bytes,heap_live_allocations," \
	"heap_alloc_calls,heap_alloc_bytes,heap_free_calls,heap_free_bytes," \
	"heap_failed_calls,heap_untracked_frees,lost_table_full,lost_unpaired," \
	"lost_scopes,lost_sites,lost_stacks,lost_events,probes_single_stepped,lost_missed_probes," \
	"rss_bytes" \
	",overhead_percent,heap_attached,heap_since" \
	",glibc_arena_bytes,glibc_in_use_bytes,glibc_free_bytes,glibc_mmapped_bytes," \
	"glibc_arenas,glibc_free_chunks,glibc_fastbin_chunks,glibc_fastbin_free_bytes," \
	"glibc_mmapped_chunks,glibc_releasable_bytes,glibc_mmap_threshold_bytes," \
	"glibc_trim_threshold_bytes,glibc_fragmentation,glibc_consistent"

/* A has --size 48 (so an estimate column), B has none. */
static const struct mw_struct_spec two_structs[] = {
	{ .name = "A", .size = 48 },
	{ .name = "B", .size = 0 },
};

/* ------------------------------------------------------------ helpers */

struct csv_line {
	char *text;			/* owned; fields point into it */
	char *f[MAX_FIELDS];
	int n;
};

/* Splits a single '\n'-terminated line on ',' (empty fields kept). */
static void split(char *text, struct csv_line *out)
{
	char *p = text;
	size_t len = strlen(text);

	cr_assert(len > 0 && text[len - 1] == '\n', "the line ends with '\\n': '%s'", text);
	text[len - 1] = '\0';
	cr_assert_null(strchr(text, '\n'), "the output is one line, got '%s'", text);
	out->text = text;
	out->n = 0;
	for (;;) {
		cr_assert_lt(out->n, MAX_FIELDS, "fewer than %d fields", MAX_FIELDS);
		out->f[out->n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
}

static void header_of(const struct mw_layout *l, struct csv_line *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	cr_assert_not_null(f, "open_memstream works");
	err = csv__write_header(f, l);
	cr_assert_eq(err, 0, "csv__write_header returns 0, got %d", err);
	fclose(f);
	split(buf, out);
}

static void row_of(const struct mw_layout *l, const struct mw_snapshot *s,
		   struct csv_line *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	cr_assert_not_null(f, "open_memstream works");
	err = csv__write_row(f, l, s);
	cr_assert_eq(err, 0, "csv__write_row returns 0, got %d", err);
	fclose(f);
	split(buf, out);
}

/* The row's field under the column @name; fails the test if there is none. */
static const char *col(const struct csv_line *hdr, const struct csv_line *row,
		       const char *name)
{
	for (int i = 0; i < hdr->n; i++)
		if (!strcmp(hdr->f[i], name)) {
			cr_assert_lt(i, row->n, "the row has a field for column %s", name);
			return row->f[i];
		}
	cr_assert_fail("the header has a column %s", name);
	return NULL;
}

static bool has_col(const struct csv_line *hdr, const char *name)
{
	for (int i = 0; i < hdr->n; i++)
		if (!strcmp(hdr->f[i], name))
			return true;
	return false;
}

/* Every field distinct, so a value in the wrong column is noticed. */
static struct mw_snapshot distinct_snapshot(void)
{
	struct mw_snapshot s = { 0 };

	s.when = (struct timespec){ 1700000000, 5000000 };
	s.pid = 4242;
	for (int i = 0; i < MW_C__COUNT; i++)
		s.c[i] = 1000 + 11 * (uint64_t)i;
	s.lost_missed = 31337;
	s.live_bytes = 777001;
	s.live_allocations = 777002;
	s.rss_bytes = 8192000;
	s.overhead_percent = 12.3456;
	s.heap_attached = true;
	s.heap_since = (struct timespec){ 1699999000, 250000000 };
	s.nstructs = 2;
	s.s[0] = (struct mw_struct_sample){ .elements = 501, .bytes = 502, .estimated_bytes = 503,
			.insert_calls = 504, .remove_calls = 505, .unwound_calls = 507,
			.alloc_bytes = 506 };
	s.s[1] = (struct mw_struct_sample){ .elements = -601, .bytes = 602, .estimated_bytes = 603,
			.insert_calls = 604, .remove_calls = 605, .unwound_calls = 607,
			.alloc_bytes = 606 };
	return s;
}

static void expect_col(const struct csv_line *hdr, const struct csv_line *row,
		       const char *name, const char *want)
{
	const char *got = col(hdr, row, name);

	cr_assert_str_eq(got, want, "column %s holds '%s', got '%s'", name, want, got);
}

static void expect_counter(const struct csv_line *hdr, const struct csv_line *row,
			   const char *name, int counter)
{
	char want[32];

	snprintf(want, sizeof(want), "%d", 1000 + 11 * counter);
	expect_col(hdr, row, name, want);
}

/* ------------------------------------------------------------ header */

Test(csv, header__no_structs__fixed_columns_exactly)
{
	struct mw_layout l = { .heap = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f, "open_memstream works");
	cr_assert_eq(csv__write_header(f, &l), 0, "the header is written");
	fclose(f);
	cr_assert(!strncmp(buf, "timestamp,pid,heap_live_bytes,heap_live_allocations", 51),
		  "the header begins timestamp,pid,heap_live_bytes,heap_live_allocations: '%s'", buf);
	cr_assert_str_eq(buf, FIXED_HEADER "\n",
			 "without structures the header is exactly the fixed columns");
	free(buf);
}

Test(csv, header__two_structs__per_struct_columns_in_order)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f, "open_memstream works");
	cr_assert_eq(csv__write_header(f, &l), 0, "the header is written");
	fclose(f);
	cr_assert_str_eq(buf, FIXED_HEADER
			 ",A_elements,A_bytes,A_estimated_bytes,A_insert_calls,A_remove_calls,A_unwound_calls"
			 ",B_elements,B_bytes,B_insert_calls,B_remove_calls,B_unwound_calls\n",
			 "structure columns follow the fixed ones, A's then B's");
	free(buf);
}

Test(csv, header__estimate_column__only_when_size_given)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct csv_line h;

	header_of(&l, &h);
	cr_assert(has_col(&h, "A_elements"), "A has an elements column");
	cr_assert(has_col(&h, "A_bytes"), "A has a bytes column");
	cr_assert(has_col(&h, "A_estimated_bytes"), "A, with --size, has an estimate column");
	cr_assert(has_col(&h, "B_elements"), "B has an elements column");
	cr_assert(has_col(&h, "B_bytes"), "B has a bytes column");
	cr_assert(!has_col(&h, "B_estimated_bytes"), "B, without --size, has no estimate column");
	free(h.text);
}

Test(csv, header__column_names__unique)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct csv_line h;

	header_of(&l, &h);
	for (int i = 0; i < h.n; i++)
		for (int j = i + 1; j < h.n; j++)
			cr_assert_str_neq(h.f[i], h.f[j], "columns %d and %d have different names", i, j);
	free(h.text);
}

Test(csv, header__no_heap__same_columns)
{
	struct mw_layout heap = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct mw_layout none = { .structs = two_structs, .nstructs = 2, .heap = false };
	struct csv_line a, b;

	header_of(&heap, &a);
	header_of(&none, &b);
	cr_assert_eq(a.n, b.n, "--no-heap keeps the number of columns");
	for (int i = 0; i < a.n; i++)
		cr_assert_str_eq(a.f[i], b.f[i], "--no-heap keeps column %d's name", i);
	free(a.text);
	free(b.text);
}

/* ------------------------------------------------------------ row */

Test(csv, row__field_count__matches_header)
{
	static const struct mw_struct_spec sized_only[] = { { .name = "S", .size = 8 } };
	static const struct mw_struct_spec unsized_only[] = { { .name = "U", .size = 0 } };
	const struct mw_layout layouts[] = {
		{ .structs = NULL, .nstructs = 0, .heap = true },
		{ .structs = NULL, .nstructs = 0, .heap = false },
		{ .structs = two_structs, .nstructs = 2, .heap = true },
		{ .structs = two_structs, .nstructs = 2, .heap = false },
		{ .structs = sized_only, .nstructs = 1, .heap = false },
		{ .structs = unsized_only, .nstructs = 1, .heap = true },
	};
	struct mw_snapshot s = distinct_snapshot();

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct csv_line h, r;

		s.nstructs = layouts[i].nstructs;
		header_of(&layouts[i], &h);
		row_of(&layouts[i], &s, &r);
		cr_assert_eq(r.n, h.n, "layout %zu (heap %d, %d structs): the row has the "
			     "header's %d fields, got %d", i, layouts[i].heap,
			     layouts[i].nstructs, h.n, r.n);
		free(h.text);
		free(r.text);
	}
}

Test(csv, row__heap__values_under_their_columns)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	header_of(&l, &h);
	row_of(&l, &s, &r);
	expect_col(&h, &r, "timestamp", "2023-11-14T22:13:20.005Z");
	expect_col(&h, &r, "pid", "4242");
	expect_col(&h, &r, "heap_live_bytes", "777001");
	expect_col(&h, &r, "heap_live_allocations", "777002");
	expect_counter(&h, &r, "heap_alloc_calls", MW_C_ALLOC_CALLS);
	expect_counter(&h, &r, "heap_alloc_bytes", MW_C_ALLOC_BYTES);
	expect_counter(&h, &r, "heap_free_calls", MW_C_FREE_CALLS);
	expect_counter(&h, &r, "heap_free_bytes", MW_C_FREE_BYTES);
	expect_counter(&h, &r, "heap_failed_calls", MW_C_FAILED_CALLS);
	expect_counter(&h, &r, "heap_untracked_frees", MW_C_UNTRACKED_FREES);
	expect_counter(&h, &r, "lost_table_full", MW_C_LOST_TABLE_FULL);
	expect_counter(&h, &r, "lost_unpaired", MW_C_LOST_UNPAIRED);
	expect_counter(&h, &r, "lost_scopes", MW_C_LOST_SCOPES);
	expect_counter(&h, &r, "lost_sites", MW_C_LOST_SITES);
	expect_col(&h, &r, "lost_missed_probes", "31337");
	expect_col(&h, &r, "rss_bytes", "8192000");
	expect_col(&h, &r, "overhead_percent", "12.346");
	expect_col(&h, &r, "heap_attached", "1");
	expect_col(&h, &r, "heap_since", "2023-11-14T21:56:40.250Z");
	expect_col(&h, &r, "A_elements", "501");
	expect_col(&h, &r, "A_bytes", "502");
	expect_col(&h, &r, "A_estimated_bytes", "503");
	expect_col(&h, &r, "A_insert_calls", "504");
	expect_col(&h, &r, "A_remove_calls", "505");
	expect_col(&h, &r, "A_unwound_calls", "507");
	expect_col(&h, &r, "B_elements", "-601");
	expect_col(&h, &r, "B_bytes", "602");
	expect_col(&h, &r, "B_insert_calls", "604");
	expect_col(&h, &r, "B_remove_calls", "605");
	expect_col(&h, &r, "B_unwound_calls", "607");
	for (int i = 0; i < r.n; i++)
		cr_assert_str_neq(r.f[i], "603", "B's estimate (no --size) is not written "
				  "anywhere, found in field %d", i);
	free(h.text);
	free(r.text);
}

Test(csv, row__negative_live_figures__signed)
{
	struct mw_layout l = { .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	s.nstructs = 0;
	s.live_bytes = -4096;
	s.live_allocations = -3;
	header_of(&l, &h);
	row_of(&l, &s, &r);
	expect_col(&h, &r, "heap_live_bytes", "-4096");
	expect_col(&h, &r, "heap_live_allocations", "-3");
	free(h.text);
	free(r.text);
}

Test(csv, row__large_counters__printed_whole)
{
	struct mw_layout l = { .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	s.nstructs = 0;
	s.c[MW_C_ALLOC_BYTES] = UINT64_MAX;
	s.rss_bytes = (uint64_t)1 << 40;
	header_of(&l, &h);
	row_of(&l, &s, &r);
	expect_col(&h, &r, "heap_alloc_bytes", "18446744073709551615");
	expect_col(&h, &r, "rss_bytes", "1099511627776");
	free(h.text);
	free(r.text);
}

Test(csv, row__no_heap__heap_fields_empty)
{
	static const char *const heap_only[] = {
		"heap_live_bytes", "heap_live_allocations", "heap_alloc_calls",
		"heap_alloc_bytes", "heap_free_calls", "heap_free_bytes",
		"heap_failed_calls", "heap_untracked_frees", "lost_table_full",
		"A_bytes", "B_bytes",
	};
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = false };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	header_of(&l, &h);
	row_of(&l, &s, &r);
	for (size_t i = 0; i < sizeof(heap_only) / sizeof(heap_only[0]); i++)
		expect_col(&h, &r, heap_only[i], "");
	free(h.text);
	free(r.text);
}

/* --max-overhead detached the allocator's probes: heap figures, bytes
 * and sites empty (not stale), heap_attached 0; counts go on. */
Test(csv, row__heap_detached__heap_fields_empty_counts_kept)
{
	static const char *const empty[] = {
		"heap_live_bytes", "heap_live_allocations", "heap_alloc_calls",
		"heap_alloc_bytes", "heap_free_calls", "heap_free_bytes",
		"heap_failed_calls", "heap_untracked_frees", "lost_table_full",
		"A_bytes", "B_bytes", "heap_since",
	};
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	s.heap_attached = false;
	header_of(&l, &h);
	row_of(&l, &s, &r);
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		expect_col(&h, &r, empty[i], "");
	expect_col(&h, &r, "heap_attached", "0");
	expect_col(&h, &r, "overhead_percent", "12.346");
	expect_col(&h, &r, "A_elements", "501");
	expect_col(&h, &r, "A_insert_calls", "504");
	expect_col(&h, &r, "B_elements", "-601");
	expect_counter(&h, &r, "lost_unpaired", MW_C_LOST_UNPAIRED);
	free(h.text);
	free(r.text);
}

/* A structure whose probes were detached has no figures at all. */
Test(csv, row__struct_detached__all_its_fields_empty)
{
	static const char *const a[] = {
		"A_elements", "A_bytes", "A_estimated_bytes", "A_insert_calls", "A_remove_calls",
		"A_unwound_calls",
	};
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	s.s[0].detached = true;
	header_of(&l, &h);
	row_of(&l, &s, &r);
	cr_assert_eq(r.n, h.n, "the row keeps the header's %d fields, got %d", h.n, r.n);
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		expect_col(&h, &r, a[i], "");
	expect_col(&h, &r, "B_elements", "-601");
	expect_col(&h, &r, "B_bytes", "602");
	expect_col(&h, &r, "heap_live_bytes", "777001");
	free(h.text);
	free(r.text);
}

Test(csv, row__no_heap__structure_and_loss_fields_kept)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = false };
	struct mw_snapshot s = distinct_snapshot();
	struct csv_line h, r;

	header_of(&l, &h);
	row_of(&l, &s, &r);
	expect_col(&h, &r, "timestamp", "2023-11-14T22:13:20.005Z");
	expect_col(&h, &r, "pid", "4242");
	expect_counter(&h, &r, "lost_unpaired", MW_C_LOST_UNPAIRED);
	expect_counter(&h, &r, "lost_scopes", MW_C_LOST_SCOPES);
	expect_col(&h, &r, "lost_missed_probes", "31337");
	expect_col(&h, &r, "rss_bytes", "8192000");
	expect_col(&h, &r, "A_elements", "501");
	expect_col(&h, &r, "A_estimated_bytes", "503");
	expect_col(&h, &r, "A_insert_calls", "504");
	expect_col(&h, &r, "A_remove_calls", "505");
	expect_col(&h, &r, "B_elements", "-601");
	expect_col(&h, &r, "B_insert_calls", "604");
	expect_col(&h, &r, "B_remove_calls", "605");
	free(h.text);
	free(r.text);
}

Test(csv, row__after_write__already_flushed)
{
	struct mw_layout l = { .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	FILE *f = tmpfile();
	char buf[64] = "";
	ssize_t n;

	s.nstructs = 0;
	cr_assert_not_null(f, "tmpfile() works");
	cr_assert_eq(csv__write_row(f, &l, &s), 0, "the row is written");
	/* read under stdio's buffer: only what was flushed is in the file */
	n = pread(fileno(f), buf, sizeof(buf) - 1, 0);
	cr_assert_gt(n, 0, "the row reached the file without an fflush by the caller");
	cr_assert(!strncmp(buf, "2023-11-14T22:13:20.005Z,4242,", 30),
		  "the flushed bytes are the row, got '%s'", buf);
	fclose(f);
}

Test(csv, write__full_device__negative_errno)
{
	struct mw_layout l = { .structs = two_structs, .nstructs = 2, .heap = true };
	struct mw_snapshot s = distinct_snapshot();
	FILE *f = fopen("/dev/full", "w");
	int err;

	if (!f)
		cr_skip_test("/dev/full is not available");
	err = csv__write_header(f, &l);
	cr_assert_eq(err, -ENOSPC, "a header on a full device gives -ENOSPC, got %d", err);
	clearerr(f);
	err = csv__write_row(f, &l, &s);
	cr_assert_eq(err, -ENOSPC, "a row on a full device gives -ENOSPC, got %d", err);
	fclose(f);
}

/* ------------------------------------------------------------ timestamp */

static void expect_timestamp(time_t sec, long nsec, const char *want)
{
	struct timespec ts = { sec, nsec };
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	timestamp__rfc3339(&ts, buf, sizeof(buf));
	cr_assert_str_eq(buf, want, "{%lld, %ld} is %s", (long long)sec, nsec, want);
}

Test(csv, timestamp__epoch_with_nanoseconds__milliseconds)
{
	expect_timestamp(0, 123456789, "1970-01-01T00:00:00.123Z");
}

Test(csv, timestamp__known_second__utc_date_and_time)
{
	expect_timestamp(1700000000, 5000000, "2023-11-14T22:13:20.005Z");
}

Test(csv, timestamp__leap_day__date_right)
{
	expect_timestamp(951782400, 0, "2000-02-29T00:00:00.000Z");
}

Test(csv, timestamp__last_nanosecond__truncated_not_rounded)
{
	expect_timestamp(4102444799, 999999999, "2099-12-31T23:59:59.999Z");
}

Test(csv, timestamp__local_time_zone__ignored)
{
	cr_assert_eq(setenv("TZ", "Asia/Kolkata", 1), 0, "TZ is set");
	tzset();
	expect_timestamp(1700000000, 0, "2023-11-14T22:13:20.000Z");
}

Test(csv, timestamp__short_buffer__truncated_and_terminated)
{
	struct timespec ts = { 1700000000, 0 };
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	timestamp__rfc3339(&ts, buf, 11);
	cr_assert_str_eq(buf, "2023-11-14", "an 11-byte buffer holds the date and a NUL");
	cr_assert_eq(buf[11], 'x', "nothing is written past the given length");
}

Test(csv, glibc_columns__always_there__empty_for_a_target_without)
{
	struct mw_layout l = { .heap = true };
	struct mw_snapshot s = { .pid = 7 };
	struct csv_line h, r;

	header_of(&l, &h);
	row_of(&l, &s, &r);
	cr_assert(has_col(&h, "glibc_arena_bytes"),
		  "the header names glibc's columns whatever the targets have");
	cr_assert_eq(r.n, h.n, "a row has as many fields as its header");
	for (int i = 0; i < h.n; i++)
		if (!strncmp(h.f[i], "glibc_", 6))
			cr_expect_str_empty(r.f[i], "%s is empty when glibc's view is unknown", h.f[i]);
	free(h.text);
	free(r.text);
}
