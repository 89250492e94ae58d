/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites.bpf.h - allocation sites: each call site's (and stack's) live
 * bytes and blocks, with --top, --folded, --pprof and -f table. A part of
 * memwatch.bpf.c, included there (one translation unit, one object).
 */
#ifndef MW_SITES_BPF_H
#define MW_SITES_BPF_H

/* ------------------------------------------------------ allocation sites */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MW_MAX_SITES);
	__type(key, struct mw_site_key);
	__type(value, struct mw_site);
} sites SEC(".maps");

/* The site entry for @ra (and the structure @charge), created if new,
 * into *@out; its site key, or 0 if the site table is full (counted: the
 * block then belongs to no site). */
static __always_inline __u64 site_key(__u32 slot, __u64 ra, __u64 stack, __u32 charge,
				      struct mw_site **out)
{
	struct mw_site zero = {};
	struct mw_site_key key = {
		.site = MW_SITE(ra, stack),
		.charge = charge,
		.slot = slot,
	};

	*out = NULL;
	if (!want_sites || !ra)
		return 0;
	if ((*out = bpf_map_lookup_elem(&sites, &key)))
		return key.site;
	bpf_map_update_elem(&sites, &key, &zero, BPF_NOEXIST);
	if (!(*out = bpf_map_lookup_elem(&sites, &key))) {
		count(slot, MW_C_LOST_SITES, 1);
		return 0;
	}
	return key.site;
}

/* @bytes and @blocks more live at site @site (its entry @known, when the
 * caller has it: one lookup less). */
static __always_inline void site_add(__u32 slot, __u64 site, __u32 charge, __s64 bytes,
				     __s64 blocks, struct mw_site *known)
{
	struct mw_site_key key = { .site = site, .charge = charge, .slot = slot };
	struct mw_site *s = known;

	if (!want_sites || !site)
		return;
	if (!s && !(s = bpf_map_lookup_elem(&sites, &key)))
		return;
	__sync_fetch_and_add(&s->live_bytes, bytes);
	__sync_fetch_and_add(&s->live_blocks, blocks);
	if (blocks > 0) {
		__sync_fetch_and_add(&s->allocs, 1);
		__sync_fetch_and_add(&s->alloc_bytes, bytes);
	}
}

#endif /* MW_SITES_BPF_H */
