// SPDX-License-Identifier: GPL-2.0
/*
 * test_history.c - the page's bounded history: --history N rows per
 * target, oldest dropped first; the total cap, where the oldest chunk of
 * all targets goes first; a slot dropped or taken by another pid starts
 * afresh; memory flat over a long run; rows come back as they went in.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sample/history.h"

#define CHUNK MW_HIST_CHUNK_SAMPLES

static const struct mw_struct_spec one_struct[] = { { .name = "cache", .size = 0 } };

static const struct mw_layout layout = {
	.structs = one_struct, .nstructs = 1, .heap = true,
};

/* Row number @k of a target: its live bytes say which it is, its time
 * grows with it. */
static void make_row(struct mw_row *r, pid_t pid, int64_t k)
{
	struct mw_snapshot s;

	memset(&s, 0, sizeof(s));
	s.when = (struct timespec){ 1764700000 + k, 1000000 * (k % 1000) };
	s.pid = pid;
	s.live_bytes = k;
	s.heap_attached = true;
	s.nstructs = 1;
	s.s[0].elements = -k;
	s.has_glibc = k % 2;
	s.glibc.fragmentation = 0.5;
	row__fill(&layout, &s, r);
}

static void add(struct mw_hist *h, int slot, pid_t pid, int64_t k)
{
	struct mw_row r;

	make_row(&r, pid, k);
	cr_assert_eq(history__add(h, slot, pid, &r), 0, "row %lld of pid %d is kept", (long long)k, pid);
}

/* Rows @from to @to (included) of @pid in @slot. */
static void add_rows(struct mw_hist *h, int slot, pid_t pid, int64_t from, int64_t to)
{
	for (int64_t k = from; k <= to; k++)
		add(h, slot, pid, k);
}

/* The live bytes of every row kept for @pid, oldest first; malloc'd. */
static int64_t *kept(struct mw_hist *h, pid_t pid, size_t *n)
{
	const struct mw_columns *cols = history__columns(h);
	int64_t *ks;
	uint8_t *buf;
	struct mw_row r;
	int col = -1;

	for (int i = 0; i < cols->n; i++)
		if (!strcmp(cols->col[i].name, "heap_live_bytes"))
			col = i;
	cr_assert_geq(col, 0, "the rows have heap_live_bytes");
	cr_assert_eq(history__copy(h, pid, &buf, n), 0, "pid %d has rows", pid);
	ks = calloc(*n + 1, sizeof(*ks));
	cr_assert_not_null(ks);
	for (size_t i = 0; i < *n; i++) {
		history__unpack(h, buf, i, &r);
		ks[i] = r.v[col].i;
	}
	free(buf);
	return ks;
}

/* @pid keeps exactly rows @from..@to, in order. */
static void expect_rows(struct mw_hist *h, pid_t pid, int64_t from, int64_t to)
{
	size_t n;
	int64_t *ks = kept(h, pid, &n);

	cr_expect_eq(n, (size_t)(to - from + 1), "pid %d keeps %lld rows, has %zu", pid,
		     (long long)(to - from + 1), n);
	for (size_t i = 0; i < n && i < (size_t)(to - from + 1); i++)
		cr_expect_eq(ks[i], from + (int64_t)i, "pid %d row %zu is row %lld, got %lld", pid, i,
			     (long long)(from + (int64_t)i), (long long)ks[i]);
	free(ks);
}

Test(history, per_target__keeps_the_newest_n_oldest_first)
{
	struct mw_hist *h = history__new(&layout, 100, 1 << 30, 4);

	cr_assert_not_null(h);
	add_rows(h, 2, 77, 0, 249);
	expect_rows(h, 77, 150, 249);
	cr_expect_eq(history__count(h, 2), 100, "the count says so too");
	history__free(h);
}

Test(history, per_target_below_a_chunk__still_exact)
{
	struct mw_hist *h = history__new(&layout, 5, 1 << 30, 1);

	cr_assert_not_null(h);
	add_rows(h, 0, 9, 0, 2);
	expect_rows(h, 9, 0, 2);
	add_rows(h, 0, 9, 3, 999);
	expect_rows(h, 9, 995, 999);
	cr_expect_gt(history__bytes(h), 0, "memory is counted");
	cr_expect_leq(history__bytes(h), 2 * (sizeof(void *) + 8 + CHUNK * history__sample_bytes(h)),
		      "five rows take at most two chunks, not a thousand rows' memory");
	history__free(h);
}

Test(history, total_cap__frees_the_oldest_chunk_of_all_targets)
{
	struct mw_hist *h = history__new(&layout, 1000, 1, 2);
	size_t chunk;

	cr_assert_not_null(h);
	add(h, 0, 10, 0);
	chunk = history__bytes(h);	/* one chunk */
	history__free(h);

	/* room for four chunks: two targets of two chunks each fill it */
	h = history__new(&layout, 1000, 4 * chunk, 2);
	cr_assert_not_null(h);
	add_rows(h, 0, 10, 0, 2 * CHUNK - 1);
	add_rows(h, 1, 11, 1000, 1000 + 2 * CHUNK - 1);
	cr_expect_eq(history__bytes(h), 4 * chunk, "four chunks in use");
	/* one row more needs a fifth: pid 10's first chunk, the oldest, goes */
	add(h, 1, 11, 1000 + 2 * CHUNK);
	cr_expect_eq(history__bytes(h), 4 * chunk, "still four chunks: the cap holds");
	expect_rows(h, 10, CHUNK, 2 * CHUNK - 1);
	expect_rows(h, 11, 1000, 1000 + 2 * CHUNK);
	/* then pid 10's second, then pid 11's own oldest */
	add_rows(h, 1, 11, 1000 + 2 * CHUNK + 1, 1000 + 4 * CHUNK - 1);
	cr_expect_eq(history__copy(h, 10, &(uint8_t *){ NULL }, &(size_t){ 0 }), -ENOENT,
		     "pid 10's rows, the oldest, went first");
	add(h, 1, 11, 1000 + 4 * CHUNK);
	expect_rows(h, 11, 1000 + CHUNK, 1000 + 4 * CHUNK);
	cr_expect_eq(history__bytes(h), 4 * chunk, "never more than the cap");
	history__free(h);
}

/* 256 followed processes at --history 3600, sampled for the equivalent
 * of days: memory reaches the cap and stays there. */
Test(history, many_targets_long_run__memory_flat_at_the_cap)
{
	const size_t cap = 4 << 20;
	struct mw_hist *h = history__new(&layout, 3600, cap, 256);
	size_t at_half = 0;

	cr_assert_not_null(h);
	for (int k = 0; k < 2000; k++) {
		for (int slot = 0; slot < 256; slot++)
			add(h, slot, 1000 + slot, k);
		cr_assert_leq(history__bytes(h), cap, "round %d: %zu bytes, over the cap %zu", k,
			      history__bytes(h), cap);
		if (k == 1000)
			at_half = history__bytes(h);
	}
	cr_expect_eq(history__bytes(h), at_half, "flat: as much memory after 2000 rounds as after 1000");
	cr_expect_gt(at_half, cap - cap / 8, "the cap is used, not wasted");
	/* every target keeps its newest rows, in order, without gaps */
	for (int slot = 0; slot < 256; slot += 51) {
		size_t n = history__count(h, slot);

		cr_expect_gt(n, 0, "slot %d keeps rows", slot);
		expect_rows(h, 1000 + slot, 2000 - (int64_t)n, 1999);
	}
	history__free(h);
}

Test(history, dropped_slot_or_new_pid__starts_afresh)
{
	struct mw_hist *h = history__new(&layout, 100, 1 << 30, 2);
	uint8_t *buf;
	size_t n;

	cr_assert_not_null(h);
	add_rows(h, 0, 500, 0, 39);
	add_rows(h, 1, 501, 0, 9);
	cr_expect_eq(history__rows(h), 50, "rows of all targets");
	history__drop(h, 0);
	cr_expect_eq(history__rows(h), 10, "the dropped target's are gone");
	history__drop(h, 1);
	cr_expect_eq(history__copy(h, 500, &buf, &n), -ENOENT, "a dropped process has no rows");
	cr_expect_null(buf, "and no buffer");
	cr_expect_eq(history__bytes(h), 0, "its memory is freed");
	add_rows(h, 1, 600, 0, 39);
	add(h, 1, 601, 7);	/* the slot reused by another process */
	cr_expect_eq(history__copy(h, 600, &buf, &n), -ENOENT, "the old pid's rows are gone");
	expect_rows(h, 601, 7, 7);
	history__free(h);
}

Test(history, unpack__gives_back_every_value_and_empty_field)
{
	struct mw_hist *h = history__new(&layout, 10, 1 << 30, 1);
	const struct mw_columns *cols;
	struct mw_row in[2], out;
	uint8_t *buf;
	size_t n;

	cr_assert_not_null(h);
	make_row(&in[0], 42, 6);	/* glibc's view empty */
	make_row(&in[1], 42, 7);	/* glibc's view present */
	cr_assert_eq(history__add(h, 0, 42, &in[0]), 0);
	cr_assert_eq(history__add(h, 0, 42, &in[1]), 0);
	cr_assert_eq(history__copy(h, 42, &buf, &n), 0);
	cr_assert_eq(n, 2);
	cols = history__columns(h);
	cr_expect_eq(history__sample_bytes(h), 8 * (size_t)cols->n + ((size_t)cols->n + 7) / 8,
		     "8 bytes a column and a bit for empty");
	for (size_t i = 0; i < n; i++) {
		history__unpack(h, buf, i, &out);
		cr_assert_eq(out.n, in[i].n, "as many columns");
		for (int c = 0; c < out.n; c++) {
			char a[64], b[64];

			row__format(&in[i], c, a, sizeof(a));
			row__format(&out, c, b, sizeof(b));
			cr_expect_str_eq(b, a, "row %zu column %s", i, cols->col[c].name);
			cr_expect_eq(row__empty(&out, c), row__empty(&in[i], c),
				     "row %zu column %s empty as it was", i, cols->col[c].name);
		}
	}
	free(buf);
	history__free(h);
}
