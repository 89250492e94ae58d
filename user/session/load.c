// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - the BPF object, in the order it must happen: open, size the
 * maps and set the read-only settings from the options, load, measure
 * what a probe hit costs here (calibrate.c, on slot 0 before any target
 * uses it), register the records opened before, then the ring buffer of
 * process events and the exec, fork and cgroup tracepoints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "memwatch.h"
#include "memwatch.skel.h"
#include "probes/placement.h"
#include "session/events.h"
#include "sample/live.h"
#include "session/load.h"
#include "session/watchlist.h"

/* What a probe hit costs a process here, measured with slot 0 before any
 * target is registered in it; then the slot is emptied. */
static int calibrate(struct mw_session *s)
{
	const struct mw_target none = { .slot = 0 };

	bool nops = true;

	if (!calibrate__nops(s->skel, &s->places, 0, &nops))
		placement__nops_emulated(nops);
	else
		mw_debug("cannot tell whether this kernel emulates multi-byte nops: memwatch takes it that it does");
	mw_debug("this kernel %s multi-byte nops", nops ? "emulates" : "single-steps");
	if (calibrate__run(s->skel, &s->places, 0, &s->costs))
		return -1;
	if (sampler__reset(&s->sampler, &none, 1)) {
		mw_err("cannot empty the BPF maps after measuring what a probe costs");
		return -1;
	}
	mw_debug("a probe hit costs %.0f ns emulated, %.0f ns single-stepped, %.0f ns more with its return",
		 s->costs.ns[MW_HIT_EMULATED], s->costs.ns[MW_HIT_STEPPED],
		 s->costs.ns[MW_HIT_RETURN]);
	return 0;
}

int load__bpf(struct mw_session *s)
{
	int err;

	s->skel = memwatch_bpf__open();
	if (!s->skel) {
		mw_err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	live__size(s->skel, s->opts.max_live_blocks);
	bpf_map__set_max_entries(s->skel->maps.slots, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.loaders, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.stats, s->opts.max_targets);
	bpf_map__set_max_entries(s->skel->maps.struct_stats, s->opts.max_targets * MW_MAX_STRUCTS);
	s->skel->rodata->report_execs = s->follows;
	s->skel->rodata->report_forks = true;	/* children to follow or to unprobe */
	s->skel->rodata->report_moves = s->opts.ncgroups > 0;
	/* a kernel without that tracepoint still runs memwatch without --cgroup */
	bpf_program__set_autoload(s->skel->progs.target_moved, s->opts.ncgroups > 0);
	/* one process ever, in slot 0: the pid, or the launched program */
	s->skel->rodata->solo = !s->follows && s->opts.npids + !!s->opts.command == 1;
	attach__prepare(s->skel, &s->kernel);
	s->skel->rodata->have_structs = s->opts.nstructs > 0;
	s->skel->rodata->want_sites = s->layout.sites;
	s->skel->rodata->want_stacks = s->layout.sites && s->opts.stacks;
	/* stacks are walked by the objects' unwind tables, which need room
	 * only then */
	s->skel->rodata->want_unwind = s->skel->rodata->want_stacks &&
				       !getenv("MEMWATCH_FP_STACKS");	/* make bench's comparison */
	bpf_map__set_max_entries(s->skel->maps.unwind_rows,
				 s->skel->rodata->want_unwind ? MW_UNWIND_ROWS : 1);
	bpf_map__set_max_entries(s->skel->maps.unwind_procs,
				 s->skel->rodata->want_unwind ? (uint32_t)s->opts.max_targets : 1);
	/* one stack table or the other: the unused one takes no room */
	if (s->skel->rodata->want_unwind)
		bpf_map__set_max_entries(s->skel->maps.stacks, 1);
	else
		bpf_map__set_max_entries(s->skel->maps.walked_stacks, 1);
	err = memwatch_bpf__load(s->skel);
	if (err) {
		mw_err("cannot load the BPF programs on Linux %s (%s): %s; MEMWATCH_DEBUG=1 shows the verifier log",
		       s->kernel.release, kernel__mechanism(&s->kernel), strerror(-err));
		return -1;
	}
	tables__init(&s->unwind, bpf_map__fd(s->skel->maps.unwind_rows),
		     bpf_map__fd(s->skel->maps.unwind_procs), MW_UNWIND_ROWS);
	if (sampler__init(&s->sampler, s->skel)) {
		mw_err("out of memory");
		return -1;
	}
	err = calls__map(&s->calls, s->skel);
	if (err)	/* memwatch goes on: what it costs is said */
		mw_err("cannot map the calls array: %s; threads that share an index with one that died inside malloc keep the slower record",
		       strerror(-err));
	if (calibrate(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]) && watchlist__register(s, &s->watched[i]))
			return -1;
	s->events = ring_buffer__new(bpf_map__fd(s->skel->maps.events), events__on_event, s, NULL);
	if (!s->events) {
		mw_err("cannot read the BPF ring buffer: %s", strerror(errno));
		return -1;
	}
	s->exec_link = bpf_program__attach(s->skel->progs.target_exec);
	if (!s->exec_link) {
		mw_err("cannot watch for execve (tp_btf/sched_process_exec): %s", strerror(errno));
		return -1;
	}
	s->fork_link = bpf_program__attach(s->skel->progs.target_fork);
	if (!s->fork_link) {
		mw_err("cannot watch for fork (tp_btf/sched_process_fork): %s", strerror(errno));
		return -1;
	}
	if (s->opts.ncgroups && !(s->move_link = bpf_program__attach(s->skel->progs.target_moved))) {
		mw_err("cannot watch for processes moved between cgroups (tp_btf/cgroup_attach_task): %s",
		       strerror(errno));
		return -1;
	}
	return 0;
}
