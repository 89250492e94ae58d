// SPDX-License-Identifier: GPL-2.0
/*
 * test_overhead.c - the overhead estimate (hits times calibrated costs,
 * over the interval's wall time) and the --max-overhead decisions: how
 * many intervals in a row, heap first, then the costliest structure.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "sample/overhead.h"

static const struct mw_hit_costs costs = { .ns = { 400, 16000, 300 } };

static struct mw_overhead started(int nstructs)
{
	struct mw_hits zero = { .nstructs = nstructs };
	struct mw_overhead o;

	overhead__start(&o, &zero, 100.0);
	return o;
}

Test(overhead, update__hits_times_costs__percent_of_one_cpu)
{
	struct mw_overhead o = started(0);
	struct mw_hits h = { .heap = { 1000000, 100, 500000 } };

	/* 1e6 * 400 + 100 * 16000 + 5e5 * 300 = 551.6 ms over 2 s */
	overhead__update(&o, &costs, &h, 102.0);
	cr_assert_float_eq(o.percent, 27.58, 1e-9, "551.6 ms in 2 s is 27.58%%, got %g", o.percent);
	cr_assert_float_eq(o.heap_percent, 27.58, 1e-9, "all of it the heap's");
}

Test(overhead, update__next_interval__only_the_new_hits)
{
	struct mw_overhead o = started(0);
	struct mw_hits h = { .heap = { 1000, 0, 0 } };

	overhead__update(&o, &costs, &h, 101.0);
	h.heap[MW_HIT_EMULATED] = 1500;		/* 500 more in the next 0.5 s */
	overhead__update(&o, &costs, &h, 101.5);
	cr_assert_float_eq(o.percent, 500 * 400 / 0.5e9 * 100, 1e-12,
			   "only the interval's hits count: got %g", o.percent);
}

Test(overhead, update__structures__their_share_apart)
{
	struct mw_overhead o = started(2);
	struct mw_hits h = { .nstructs = 2, .heap = { 1000, 0, 1000 } };

	h.structs[0][MW_HIT_EMULATED] = 2000;		/* 0.8 ms */
	h.structs[1][MW_HIT_STEPPED] = 100;		/* 1.6 ms */
	overhead__update(&o, &costs, &h, 101.0);
	cr_assert_float_eq(o.heap_percent, 0.07, 1e-12, "heap: 0.7 ms in 1 s");
	cr_assert_float_eq(o.struct_percent[0], 0.08, 1e-12, "first structure: 0.8 ms");
	cr_assert_float_eq(o.struct_percent[1], 0.16, 1e-12, "second, single-stepped: 1.6 ms");
	cr_assert_float_eq(o.percent, 0.31, 1e-12, "the sum: got %g", o.percent);
}

Test(overhead, update__counters_reset__counted_from_zero)
{
	struct mw_overhead o = started(0);
	struct mw_hits h = { .heap = { 100000, 0, 0 } };

	overhead__update(&o, &costs, &h, 101.0);
	h.heap[MW_HIT_EMULATED] = 10;	/* the slot was reset (execve) */
	overhead__update(&o, &costs, &h, 102.0);
	cr_assert_float_eq(o.percent, 10 * 400 / 1e9 * 100, 1e-12,
			   "a counter that went back counts from zero, not negative: %g", o.percent);
}

Test(overhead, update__no_time_passed__estimate_kept)
{
	struct mw_overhead o = started(0);
	struct mw_hits h = { .heap = { 1000, 0, 0 } };

	overhead__update(&o, &costs, &h, 101.0);
	h.heap[MW_HIT_EMULATED] = 5000;
	overhead__update(&o, &costs, &h, 101.0);
	cr_assert_float_eq(o.percent, 0.04, 1e-12, "no division by zero: the last estimate");
}

/* An estimate of @percent, all of it the heap's or structure 0's. */
static void interval(struct mw_overhead *o, double percent, bool heap)
{
	o->percent = percent;
	o->heap_percent = heap ? percent : 0;
	o->struct_percent[0] = heap ? 0 : percent;
}

Test(overhead, judge__no_budget__never_acts)
{
	struct mw_overhead o = started(1);
	int sid = -1;

	for (int i = 0; i < 10; i++) {
		interval(&o, 90, true);
		cr_assert_eq(overhead__judge(&o, 0, true, 0, &sid), MW_BUDGET_NONE,
			     "no --max-overhead: nothing is detached");
	}
}

Test(overhead, judge__over_for_n_intervals__heap_first)
{
	struct mw_overhead o = started(1);
	int sid = -1;

	for (int i = 1; i < MW_OVER_BUDGET_INTERVALS; i++) {
		interval(&o, 8, true);
		cr_assert_eq(overhead__judge(&o, 5, true, 0, &sid), MW_BUDGET_NONE,
			     "interval %d over budget: not yet", i);
	}
	interval(&o, 8, true);
	cr_assert_eq(overhead__judge(&o, 5, true, 0, &sid), MW_BUDGET_DETACH_HEAP,
		     "interval %d in a row: the heap's probes go", MW_OVER_BUDGET_INTERVALS);
	interval(&o, 8, true);
	cr_assert_eq(overhead__judge(&o, 5, true, 0, &sid), MW_BUDGET_NONE,
		     "acting starts the count again");
}

Test(overhead, judge__under_once__count_starts_again)
{
	struct mw_overhead o = started(1);
	int sid = -1;

	for (int i = 0; i < 3 * MW_OVER_BUDGET_INTERVALS; i++) {
		interval(&o, i % MW_OVER_BUDGET_INTERVALS == MW_OVER_BUDGET_INTERVALS - 1 ? 5 : 9,
			 true);
		cr_assert_eq(overhead__judge(&o, 5, true, 0, &sid), MW_BUDGET_NONE,
			     "never %d intervals in a row over (at the budget is not over)",
			     MW_OVER_BUDGET_INTERVALS);
	}
}

Test(overhead, judge__heap_detached__costliest_structure_next)
{
	struct mw_overhead o = started(3);
	int sid = -1;
	enum mw_budget_act a = MW_BUDGET_NONE;

	o.last.nstructs = 3;
	for (int i = 0; i < MW_OVER_BUDGET_INTERVALS; i++) {
		o.percent = 6;
		o.heap_percent = 0;
		o.struct_percent[0] = 1;
		o.struct_percent[1] = 4;
		o.struct_percent[2] = 1;
		a = overhead__judge(&o, 5, false, 0, &sid);
	}
	cr_assert_eq(a, MW_BUDGET_DETACH_STRUCT, "the heap is gone: a structure goes");
	cr_assert_eq(sid, 1, "the costliest one, 1; got %d", sid);
	for (int i = 0; i < MW_OVER_BUDGET_INTERVALS; i++)
		a = overhead__judge(&o, 5, false, 1ull << 1, &sid);
	cr_assert_eq(a, MW_BUDGET_DETACH_STRUCT, "still over: the next one");
	cr_assert_eq(sid, 0, "the costliest still attached (ties: the first), got %d", sid);
}

Test(overhead, judge__over_with_nothing_left__nothing_to_do)
{
	struct mw_overhead o = started(1);
	int sid = -1;
	enum mw_budget_act a = MW_BUDGET_NONE;

	o.last.nstructs = 1;
	for (int i = 0; i < MW_OVER_BUDGET_INTERVALS; i++) {
		interval(&o, 9, false);
		a = overhead__judge(&o, 5, false, 1, &sid);
	}
	cr_assert_eq(a, MW_BUDGET_NONE, "heap and the one structure detached already");
}

/* With the heap gone, what cannot be detached (the loader's hook, the
 * unwinder's) does not cost the structures their probes. */
Test(overhead, judge__heap_gone_structures_under__nothing_detached)
{
	struct mw_overhead o = started(1);
	int sid = -1;
	enum mw_budget_act a = MW_BUDGET_NONE;

	o.last.nstructs = 1;
	for (int i = 0; i < 2 * MW_OVER_BUDGET_INTERVALS; i++) {
		o.percent = 8;
		o.heap_percent = 6;		/* loader and unwinder hits */
		o.struct_percent[0] = 2;
		a = overhead__judge(&o, 5, false, 0, &sid);
		cr_assert_eq(a, MW_BUDGET_NONE, "the structures alone (2%%) are under 5%%");
	}
}
