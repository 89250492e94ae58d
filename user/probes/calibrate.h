/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate.h - what one probe hit costs the process that takes it, on
 * this machine, now: measured at start on a short-lived helper process
 * of memwatch's own, with memwatch's own programs attached to it. The
 * overhead estimate (overhead.h) multiplies the hits it counts by these.
 */
#ifndef MW_CALIBRATE_H
#define MW_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>
#include "memwatch.h"

struct memwatch_bpf;
struct mw_places;

struct mw_hit_costs {
	/* nanoseconds a hit costs the process, by enum mw_hit: on an
	 * instruction the kernel emulates, on one it single-steps, and a
	 * return probe (with the allocator programs' work folded in) */
	double ns[MW_HIT__COUNT];
};

/*
 * Forks the helper, attaches structure and allocator probes to functions
 * of memwatch's own code it runs, in loops of a few hundred calls with
 * and without them, and fills @out with the medians of a few rounds.
 * Uses the BPF maps' slot @slot, which no target may use yet: the caller
 * empties it afterwards (sampler__reset). Takes ~0.1 s here. 0, or -1
 * after one message.
 */
int calibrate__run(struct memwatch_bpf *skel, struct mw_places *places, uint32_t slot,
		   struct mw_hit_costs *out);
/*
 * Whether this kernel emulates the multi-byte nops (Linux 6.18) or
 * single-steps them (6.1), into @emulated: a helper hits an entry probe
 * on a nopl, then one on a mov, and the kernel maps its single-step
 * area ([uprobes]) at the first stepped hit. No timing. 0, or -1 when it could not tell (no
 * message: the caller keeps its assumption).
 */
int calibrate__nops(struct memwatch_bpf *skel, struct mw_places *places, uint32_t slot,
		    bool *emulated);

#endif
