/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - one run of memwatch: its options, the BPF object, one
 * record per watched process (by slot), and the outputs. main.c drives
 * it through its steps; each file of session/ does one job over it:
 *   watchlist.c  the records: find, open, register, drop
 *   load.c       the BPF object: load, calibrate, the event links
 *   image.c      a process image's probes: resolve, attach, re-attach
 *   events.c     exec, fork, loader and cgroup events; follow mode
 *   budget.c     --max-overhead, and SIGUSR1's re-attach
 *   interval.c   each interval: sample, warn once, write, reap
 *   publish.c    the feed, the exporter, the profiles, the page's API
 */
#ifndef MW_SESSION_H
#define MW_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "options.h"
#include "export/feed.h"
#include "probes/attach.h"
#include "probes/calibrate.h"
#include "process/follow.h"
#include "process/launch.h"
#include "sample/history.h"
#include "sample/calls.h"
#include "sample/sampler.h"
#include "stacks/tables.h"
#include "sample/snapshot.h"
#include "session/watched.h"
#include "web/api.h"
#include "web/http.h"
#include "web/webconfig.h"

struct ring_buffer;
struct bpf_link;

struct mw_session {
	struct mw_options opts;
	struct mw_kernel kernel;	/* what it offers: kernel.c */
	struct memwatch_bpf *skel;
	struct mw_watched *watched;	/* opts.max_targets records, index = slot */
	int nwatched;			/* slots used so far (in use or not) */
	struct mw_follow follow;	/* --exe, --comm, --cgroup */
	bool follows;
	bool warned_full;		/* more matches than --max-targets */
	struct bpf_link *exec_link, *fork_link, *move_link;
	struct ring_buffer *events;	/* process events (memwatch.h) */
	struct mw_launch launch;	/* launch mode: the program memwatch runs */
	struct mw_watched *child;	/* its record, once it is watched */
	struct mw_places places;	/* moved probes' entry states, all targets */
	struct mw_unwind_tables unwind;	/* --stacks: the objects' unwind tables */
	struct mw_hit_costs costs;	/* what a probe hit costs here (calibrated) */
	bool reattach;			/* SIGUSR1: the detached heap probes go back */
	struct mw_sampler sampler;
	struct mw_calls calls;		/* swept each interval (sample/calls.c) */
	struct mw_layout layout;
	struct mw_feed feed;
	struct mw_http *http;
	struct mw_webconfig *web;	/* --web-config, loaded before anything */
	struct mw_hist *hist;		/* with --listen: the rows the page draws */
	struct mw_api *api;
	int sigfd;
	uint64_t rows;			/* intervals written */
	uint64_t lost_unwatched;	/* BPF's lost_unwatched_events, said so far */
	double started;			/* monotonic seconds at attach */
};

/* Monotonic seconds: the clock of intervals and of the overhead estimate. */
static inline double session__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
