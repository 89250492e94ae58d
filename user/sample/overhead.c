// SPDX-License-Identifier: GPL-2.0
/*
 * overhead.c - the estimate of what the probes cost a target, and the
 * budget's decisions (overhead.h). The estimate is hits times calibrated
 * costs: it does not see what a probe costs through the caches, which
 * the README's measurements bound.
 */
#include <string.h>
#include "sample/overhead.h"

void overhead__start(struct mw_overhead *o, const struct mw_hits *h, double now_s)
{
	memset(o, 0, sizeof(*o));
	o->last = *h;
	o->last_s = now_s;
	o->primed = true;
}

/* Nanoseconds the hits from @then to @now cost (a counter that went
 * backwards was reset: all of it is new). */
static double cost_ns(const struct mw_hit_costs *c, const uint64_t now[MW_HIT__COUNT],
		      const uint64_t then[MW_HIT__COUNT])
{
	double ns = 0;

	for (int k = 0; k < MW_HIT__COUNT; k++)
		ns += (double)(now[k] >= then[k] ? now[k] - then[k] : now[k]) * c->ns[k];
	return ns;
}

void overhead__update(struct mw_overhead *o, const struct mw_hit_costs *c,
		      const struct mw_hits *h, double now_s)
{
	double span_ns = (now_s - o->last_s) * 1e9;
	double heap_ns, sum_ns;

	if (!o->primed) {
		overhead__start(o, h, now_s);
		return;
	}
	if (span_ns <= 0)
		return;		/* two samples at once: the last estimate holds */
	heap_ns = cost_ns(c, h->heap, o->last.heap);
	sum_ns = heap_ns;
	for (int i = 0; i < h->nstructs && i < MW_MAX_STRUCTS; i++) {
		double ns = cost_ns(c, h->structs[i], o->last.structs[i]);

		o->struct_percent[i] = ns / span_ns * 100;
		sum_ns += ns;
	}
	o->heap_percent = heap_ns / span_ns * 100;
	o->percent = sum_ns / span_ns * 100;
	o->last = *h;
	o->last_s = now_s;
}

/* The attached structure whose probes cost most this interval; -1 if
 * none costs anything. */
static int costliest(const struct mw_overhead *o, int nstructs, uint64_t detached)
{
	int best = -1;

	for (int i = 0; i < nstructs && i < MW_MAX_STRUCTS; i++)
		if (!(detached & (1ull << i)) && o->struct_percent[i] > 0 &&
		    (best < 0 || o->struct_percent[i] > o->struct_percent[best]))
			best = i;
	return best;
}

/* What the structures' probes cost alone, this interval. */
static double structs_percent(const struct mw_overhead *o)
{
	double sum = 0;

	for (int i = 0; i < o->last.nstructs && i < MW_MAX_STRUCTS; i++)
		sum += o->struct_percent[i];
	return sum;
}

enum mw_budget_act overhead__judge(struct mw_overhead *o, double budget, bool heap_attached,
				   uint64_t detached, int *sid)
{
	/* with the heap's probes gone, what is left that can go: the
	 * structures' (the loader's hook and the unwinder's stay) */
	double cost = heap_attached ? o->percent : structs_percent(o);

	if (budget <= 0 || cost <= budget) {
		o->over = 0;
		return MW_BUDGET_NONE;
	}
	if (++o->over < MW_OVER_BUDGET_INTERVALS)
		return MW_BUDGET_NONE;
	o->over = 0;
	if (heap_attached && o->heap_percent > 0)
		return MW_BUDGET_DETACH_HEAP;
	*sid = costliest(o, o->last.nstructs, detached);
	return *sid >= 0 ? MW_BUDGET_DETACH_STRUCT : MW_BUDGET_NONE;
}
