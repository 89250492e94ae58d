// SPDX-License-Identifier: GPL-2.0
/*
 * profiles.c - turn snapshots' site rows into pprof samples. Addresses
 * are resolved by each target's own symbolizer (cached per address), so a
 * profile costs a table walk, not a symbol search, once sites are named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export/profiles.h"
#include "sample/sites.h"
#include "symbols/symbolizer.h"

struct ctx {
	const struct mw_snapshot *const *snaps;
	int n;
};

static void where(void *opaque, int pid, uint64_t addr, struct mw_where *out)
{
	const struct ctx *c = opaque;

	memset(out, 0, sizeof(*out));
	out->build_id = "";
	for (int i = 0; i < c->n; i++)
		if (c->snaps[i]->pid == pid && c->snaps[i]->sites) {
			symbolizer__where(c->snaps[i]->sites->sym, addr, out);
			return;
		}
}

/* One site's (or stack's, leaf first in @frames) sample. */
static struct mw_pprof_sample sample_of(int pid, const uint64_t *addr, const uint64_t *frames,
					int nframes, uint64_t allocs, uint64_t alloc_bytes,
					int64_t live_blocks, int64_t live_bytes)
{
	return (struct mw_pprof_sample){
		.pid = pid,
		.addrs = nframes ? frames : addr,
		.naddrs = nframes ? (size_t)nframes : 1,
		.alloc_objects = (int64_t)allocs,
		.alloc_space = (int64_t)alloc_bytes,
		.inuse_objects = live_blocks,
		.inuse_space = live_bytes,
	};
}

/* The blocks of structure @id in @s that no site holds: its charged
 * bytes (objects are not counted per structure, so they stay 0). */
static struct mw_pprof_sample struct_rest(const struct mw_snapshot *s, int id)
{
	struct mw_pprof_sample r = {
		.pid = s->pid, .pseudo = MW_PPROF_UNATTRIBUTED,
		.alloc_space = (int64_t)s->s[id].alloc_bytes,
		.inuse_space = s->s[id].bytes,
	};

	for (size_t i = 0; i < s->sites->nparts; i++) {
		const struct mw_site_part *p = &s->sites->parts[i];

		if (p->charge != (uint32_t)id + 1)
			continue;
		r.alloc_space -= (int64_t)p->alloc_bytes;
		r.inuse_space -= p->live_bytes;
	}
	return r;
}

/* The blocks of @s no site row holds. */
static struct mw_pprof_sample rest(const struct mw_snapshot *s)
{
	struct mw_pprof_sample r = {
		.pid = s->pid, .pseudo = MW_PPROF_UNATTRIBUTED,
		.alloc_objects = (int64_t)s->c[MW_C_ALLOC_CALLS],
		.alloc_space = (int64_t)s->c[MW_C_ALLOC_BYTES],
		.inuse_objects = s->live_allocations,
		.inuse_space = s->live_bytes,
	};

	for (size_t i = 0; i < s->sites->nrows; i++) {
		const struct mw_site_row *row = &s->sites->rows[i];

		r.alloc_objects -= (int64_t)row->allocs;
		r.alloc_space -= (int64_t)row->alloc_bytes;
		r.inuse_objects -= row->live_blocks;
		r.inuse_space -= row->live_bytes;
	}
	return r;
}

int profiles__build(const struct mw_snapshot *const *snaps, int n, int pid, int id,
		    uint8_t *out[MW_PPROF__KINDS], size_t len[MW_PPROF__KINDS])
{
	struct ctx c = { snaps, n };
	struct mw_pprof_sample *v;
	size_t nv = 0, cap = 0;
	int64_t when = 0;
	bool found = false;
	int err;

	for (int i = 0; i < n; i++)
		if (snaps[i]->sites && snaps[i]->heap_attached && (!pid || snaps[i]->pid == pid))
			cap += snaps[i]->sites->nrows + snaps[i]->sites->nparts + 1;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct mw_snapshot *s = snaps[i];
		struct mw_pprof_sample r;

		/* a detached heap's sites are stale: it has no profile */
		if (!s->sites || !s->heap_attached || (pid && s->pid != pid))
			continue;
		found = true;
		if ((int64_t)s->when.tv_sec * 1000000000 + s->when.tv_nsec > when)
			when = (int64_t)s->when.tv_sec * 1000000000 + s->when.tv_nsec;
		if (id >= 0) {
			for (size_t k = 0; k < s->sites->nparts; k++) {
				const struct mw_site_part *p = &s->sites->parts[k];

				if (p->charge != (uint32_t)id + 1)
					continue;
				v[nv++] = sample_of(s->pid, &p->addr, p->frames, p->nframes,
						    p->allocs, p->alloc_bytes, p->live_blocks,
						    p->live_bytes);
			}
		}
		for (size_t k = 0; id < 0 && k < s->sites->nrows; k++) {
			const struct mw_site_row *row = &s->sites->rows[k];

			v[nv++] = sample_of(s->pid, &row->addr, row->frames, row->nframes,
					    row->allocs, row->alloc_bytes, row->live_blocks,
					    row->live_bytes);
		}
		r = id >= 0 ? struct_rest(s, id) : rest(s);
		if (r.alloc_objects || r.alloc_space || r.inuse_objects || r.inuse_space)
			v[nv++] = r;
	}
	err = found ? pprof__build(v, nv, when, where, &c, out, len) : -ENOENT;
	free(v);
	return err;
}
