// SPDX-License-Identifier: GPL-2.0
/*
 * test_sites.c - the leak-suspect logic of sites.c over plain rows, without
 * BPF: a site is a suspect when its live bytes grew in each of the last K
 * intervals (K + 1 samples, each above the one before), and the rows are
 * ranked by live bytes, ties by address. Each interval is one sites__rank.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "memwatch.h"
#include "sample/sites.h"

/* A site as the maps give it for one interval. */
struct row {
	uint64_t addr;
	int64_t live_bytes;
};

/* Replaces @s's rows with @n rows read from @in (with their --stacks ids
 * from @stacks, if given), then ranks them. */
static void interval_stacks(struct mw_sites *s, const struct row *in, const uint32_t *stacks,
			    size_t n)
{
	free(s->rows);
	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	cr_assert_not_null(s->rows, "%zu rows are allocated", n);
	for (size_t i = 0; i < n; i++) {
		s->rows[i].addr = in[i].addr;
		s->rows[i].live_bytes = in[i].live_bytes;
		s->rows[i].stack = stacks ? stacks[i] : 0;
	}
	s->nrows = n;
	sites__rank(s);
}

static void interval(struct mw_sites *s, const struct row *in, size_t n)
{
	interval_stacks(s, in, NULL, n);
}

/* The ranked row of @addr (and @stack), which must be there. */
static const struct mw_site_row *row_of(const struct mw_sites *s, uint64_t addr, uint32_t stack)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].addr == addr && s->rows[i].stack == stack)
			return &s->rows[i];
	cr_assert_fail("site %#llx (stack %u) is among the rows", (unsigned long long)addr, stack);
	return NULL;
}

/* ------------------------------------------------------------ one site over time */

/* One site through @n intervals; @want has one letter per interval: 'S'
 * when it is a suspect after that interval, '.' when not. */
struct series {
	int k;
	int n;
	int64_t bytes[12];
	char want[13];
};

static struct series series[] = {
	{ 1, 1, { 100 }, "." },					/* one sample: nothing to compare */
	{ 1, 2, { 100, 101 }, ".S" },				/* K = 1: one growth is enough */
	{ 1, 2, { 100, 100 }, ".." },				/* the same is not growth */
	{ 1, 3, { 100, 99, 100 }, "..S" },			/* K = 1 sees the last step only */
	{ 5, 7, { 1, 2, 3, 4, 5, 6, 7 }, ".....SS" },		/* K growths need K + 1 samples */
	{ 2, 6, { 1, 2, 3, 4, 5, 6 }, "..SSSS" },		/* a suspect while it grows */
	{ 3, 8, { 10, 20, 30, 40, 35, 50, 60, 70 }, "...S...S" }, /* a shrink clears it for K */
	{ 2, 5, { 1, 2, 3, 3, 4 }, "..S.." },			/* so does a plateau */
	{ 2, 4, { 5, 1, 2, 3 }, "...S" },			/* a dip K + 1 samples back is forgotten */
	{ 3, 9, { 1, 2, 3, 1, 2, 3, 4, 5, 6 }, "......SSS" },	/* growth again, after a drop */
	{ 2, 3, { 3, 2, 1 }, "..." },				/* shrinking never is */
	{ 2, 3, { -30, -20, -10 }, "..S" },			/* signed: below zero grows too */
	{ 2, 3, { INT64_MIN, 0, INT64_MAX }, "..S" },		/* the whole range */
	{ 2, 3, { INT64_MAX, 0, INT64_MIN }, "..." },
};

ParameterizedTestParameters(sites, rank__one_site_series__suspect_after_k_growths)
{
	return cr_make_param_array(struct series, series, sizeof(series) / sizeof(series[0]));
}

ParameterizedTest(struct series *c, sites, rank__one_site_series__suspect_after_k_growths)
{
	struct mw_sites s = { .leak_intervals = c->k };
	char got[sizeof(c->want)] = "";

	cr_assert_eq(strlen(c->want), (size_t)c->n, "the case has one letter per interval");
	for (int i = 0; i < c->n; i++) {
		struct row r = { 0x1000, c->bytes[i] };

		interval(&s, &r, 1);
		got[i] = s.rows[0].suspect ? 'S' : '.';
		cr_assert_eq(s.suspects, (size_t)s.rows[0].suspect,
			     "K=%d, interval %d: suspects counts the one row", c->k, i);
	}
	cr_assert_str_eq(got, c->want, "K=%d: suspect per interval is %s, got %s",
			 c->k, c->want, got);
	cr_assert_eq(s.nhist, 1, "one site has one history, got %zu", s.nhist);
	sites__free(&s);
}

Test(sites, rank__longest_k__needs_k_plus_1_samples_then_slides)
{
	const int k = MW_MAX_LEAK_INTERVALS;
	struct mw_sites s = { .leak_intervals = k };

	for (int i = 0; i <= k + 10; i++) {
		struct row r = { 0x2000, 100 + i };

		interval(&s, &r, 1);
		cr_assert_eq(s.rows[0].suspect, i >= k,
			     "K=%d: after %d growths the site is %sa suspect", k, i, i >= k ? "" : "not ");
		cr_assert_leq(s.hist[0].n, k + 1, "the history holds K + 1 samples at most");
	}
	interval(&s, &(struct row){ 0x2000, 0 }, 1);
	cr_assert_not(s.rows[0].suspect, "a drop after %d growths clears the site", k + 10);
	sites__free(&s);
}

/* ------------------------------------------------------------ several sites */

Test(sites, rank__no_rows__no_suspects_no_history)
{
	struct mw_sites s = { .leak_intervals = 1 };

	interval(&s, NULL, 0);
	interval(&s, NULL, 0);
	cr_assert_eq(s.nrows, 0, "no rows in, none out");
	cr_assert_eq(s.suspects, 0, "no rows, no suspects");
	cr_assert_eq(s.nhist, 0, "no rows, no history");
	sites__free(&s);
}

Test(sites, rank__sites_in_any_order__each_keeps_its_own_history)
{
	struct mw_sites s = { .leak_intervals = 2 };
	static const struct row t[3][3] = {
		{ { 0xa, 10 }, { 0xb, 50 }, { 0xc, 7 } },
		{ { 0xc, 8 }, { 0xa, 20 }, { 0xb, 40 } },
		{ { 0xb, 30 }, { 0xc, 9 }, { 0xa, 30 } },
	};

	for (int i = 0; i < 3; i++)
		interval(&s, t[i], 3);
	cr_assert(row_of(&s, 0xa, 0)->suspect, "0xa grew 10, 20, 30: a suspect");
	cr_assert_not(row_of(&s, 0xb, 0)->suspect, "0xb shrank 50, 40, 30: not a suspect");
	cr_assert(row_of(&s, 0xc, 0)->suspect, "0xc grew 7, 8, 9: a suspect");
	cr_assert_eq(s.suspects, 2, "two suspects, got %zu", s.suspects);
	cr_assert_eq(s.nhist, 3, "three sites, three histories, got %zu", s.nhist);
	sites__free(&s);
}

Test(sites, rank__suspects__counted_afresh_each_interval)
{
	struct mw_sites s = { .leak_intervals = 1 };
	static const struct row t[3][2] = {
		{ { 0xa, 1 }, { 0xb, 1 } },
		{ { 0xa, 2 }, { 0xb, 2 } },
		{ { 0xa, 1 }, { 0xb, 3 } },
	};

	interval(&s, t[0], 2);
	cr_assert_eq(s.suspects, 0, "first interval: no suspects, got %zu", s.suspects);
	interval(&s, t[1], 2);
	cr_assert_eq(s.suspects, 2, "both grew: two suspects, got %zu", s.suspects);
	interval(&s, t[2], 2);
	cr_assert_eq(s.suspects, 1, "0xa shrank: one suspect, got %zu", s.suspects);
	cr_assert(row_of(&s, 0xb, 0)->suspect, "the one is 0xb");
	sites__free(&s);
}

/* Sites never leave the BPF map, so nothing is evicted: a site missing
 * from one interval picks its history up where it was. */
Test(sites, rank__site_missing_an_interval__history_kept)
{
	struct mw_sites s = { .leak_intervals = 2 };
	static const struct row a1 = { 0xa, 1 }, a2 = { 0xa, 2 }, a3 = { 0xa, 3 }, b = { 0xb, 5 };

	interval(&s, &a1, 1);
	interval(&s, &a2, 1);
	interval(&s, &b, 1);
	interval(&s, &a3, 1);
	cr_assert(s.rows[0].suspect, "0xa grew 1, 2, 3 over the intervals it was seen in");
	cr_assert_eq(s.nhist, 2, "0xa's and 0xb's histories are both kept, got %zu", s.nhist);
	sites__free(&s);
}

Test(sites, rank__rows__most_live_bytes_first_ties_by_address)
{
	struct mw_sites s = { .leak_intervals = 1 };
	static const struct row in[] = {
		{ 0x30, 5 }, { 0x10, 7 }, { 0x40, -1 }, { 0x20, 5 }, { 0x05, 5 }, { 0x50, 0 },
	};
	static const uint64_t want[] = { 0x10, 0x05, 0x20, 0x30, 0x50, 0x40 };

	interval(&s, in, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(s.rows[i].addr, want[i], "rank %zu is %#llx, got %#llx", i,
			     (unsigned long long)want[i], (unsigned long long)s.rows[i].addr);
	sites__free(&s);
}

Test(sites, rank__sorting__suspect_flag_stays_with_its_site)
{
	struct mw_sites s = { .leak_intervals = 1 };
	static const struct row t[2][3] = {
		{ { 0x1, 100 }, { 0x2, 50 }, { 0x3, 10 } },
		{ { 0x1, 90 }, { 0x2, 60 }, { 0x3, 200 } },
	};

	interval(&s, t[0], 3);
	interval(&s, t[1], 3);
	cr_assert_eq(s.rows[0].addr, 0x3, "0x3 holds most now");
	cr_assert(s.rows[0].suspect, "and it grew");
	cr_assert_eq(s.rows[1].addr, 0x1, "0x1 second");
	cr_assert_not(s.rows[1].suspect, "it shrank");
	cr_assert_eq(s.rows[2].addr, 0x2, "0x2 last");
	cr_assert(s.rows[2].suspect, "it grew");
	sites__free(&s);
}

/* As many sites as the BPF map holds: every one is watched. */
Test(sites, rank__full_sites_table__every_site_watched)
{
	struct mw_sites s = { .leak_intervals = 1 };
	struct row *t = calloc(MW_MAX_SITES, sizeof(*t));

	cr_assert_not_null(t, "the rows are allocated");
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < MW_MAX_SITES; i++) {
			t[i].addr = 0x400000 + 16 * i;
			t[i].live_bytes = round < 2 || i % 2 ? 100 + round : 0;
		}
		interval(&s, t, MW_MAX_SITES);
	}
	cr_assert_eq(s.nhist, MW_MAX_SITES, "one history per site, got %zu", s.nhist);
	cr_assert_eq(s.suspects, MW_MAX_SITES / 2, "the odd half grew again, got %zu", s.suspects);
	cr_assert_eq(s.rows[0].live_bytes, 102, "a grown site ranks first");
	cr_assert(s.rows[0].suspect, "and is a suspect");
	cr_assert_not(s.rows[MW_MAX_SITES - 1].suspect, "a dropped site ranks last, not a suspect");
	free(t);
	sites__free(&s);
}

/*
 * With --stacks one address has a row per stack, each with its own
 * history (looked up by address alone, the stacks' samples interleaved:
 * the shrinking stack was flagged after one interval, the growing never).
 */
Test(sites, rank__same_site_two_stacks__separate_histories)
{
	struct mw_sites s = { .leak_intervals = 1 };
	static const struct row t[2][2] = {
		{ { 0xa, 100 }, { 0xa, 1000 } },
		{ { 0xa, 200 }, { 0xa, 900 } },
	};
	static const uint32_t stacks[2] = { 1, 2 };

	interval_stacks(&s, t[0], stacks, 2);
	cr_assert_eq(s.suspects, 0, "one sample per stack: no suspects yet, got %zu", s.suspects);
	interval_stacks(&s, t[1], stacks, 2);
	cr_assert(row_of(&s, 0xa, 1)->suspect, "stack 1 grew 100, 200: a suspect");
	cr_assert_not(row_of(&s, 0xa, 2)->suspect, "stack 2 shrank 1000, 900: not a suspect");
	sites__free(&s);
}
