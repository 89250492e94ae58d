// SPDX-License-Identifier: GPL-2.0
/*
 * reads.c - --read wired into a session: each structure's EXPR is parsed
 * and planned against the DWARF of the object that defines its root (a
 * variable, its object's load bias taken from the target's mappings; or
 * a parameter of one of its functions, whose entry probes note each
 * instance in the BPF roots table); every interval each root is walked in
 * the live process and the figures, summed over roots, go in the
 * snapshot: the length, the retained bytes, whether every walk completed,
 * the errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "memwatch.h"		/* before the skeleton: its types */
#include "memwatch.skel.h"
#include "log.h"
#include "process/memory.h"
#include "process/procmaps.h"
#include "read/expr.h"
#include "read/param.h"
#include "read/plan.h"
#include "read/walk.h"
#include "session/reads.h"

/* Intervals in a row a root may fail to read (torn by a writer each
 * time) before it is taken for gone: its memory no longer reads as one. */
#define MW_ROOT_FAILS	3

/* Where @o is loaded in the process: its mapping of file offset 0 less
 * the link-time address of that offset. */
static uint64_t load_bias(const struct mw_object *o, const struct mw_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		if (maps->v[i].offset == 0 && !strcmp(maps->v[i].path, o->shown))
			return maps->v[i].start - elfsym__offset_to_vaddr(o->elf, 0);
	return 0;
}

static void say_planned(const struct mw_watched *w, const char *text, const struct mw_plan *p,
			const char *in)
{
	if (p->from_arg)
		mw_err("pid %d: --read '%s' reads %s (%s) in each %s a call passes as %s, in %s",
		       (int)w->target.pid, text, shape__kind_name(p->shape.kind), p->shape.type,
		       p->pointee, p->name, in);
	else
		mw_err("pid %d: --read '%s' reads %s as %s (%s) in %s", (int)w->target.pid, text,
		       p->name, shape__kind_name(p->shape.kind), p->shape.type, in);
}

/* Plans structure @k's --read in the first object of @sc that defines its
 * root. 1 if planned, 0 if no object does (@nodwarf: the executable has
 * no DWARF; @near: the executable's names nearest the root, "; nearest:
 * ..." or ""), -1 after one line. */
static int plan_one(struct mw_watched *w, int k, const char *text, const struct mw_scan *sc,
		    bool *nodwarf, char *near, size_t nlen)
{
	struct mw_read *r = &w->reads[k];
	const struct mw_root_fn *fn = &sc->roots.v[k];
	char err[512];
	struct mw_expr e;

	if (expr__parse(text, &e, err, sizeof(err))) {
		mw_err("--read '%s': %s", text, err);	/* checked at parse: cannot happen */
		return -1;
	}
	if (fn->path) {		/* a parameter of the structure's functions */
		if (plan__build_param(fn->path, fn->vaddr, &e, &r->plan, err, sizeof(err)) !=
		    MW_PLAN_OK) {
			mw_err("%s", err);
			return -1;
		}
		r->planned = true;
		say_planned(w, text, &r->plan, fn->path);
		return 1;
	}
	for (size_t i = 0; i < sc->objs.n; i++) {
		const struct mw_object *o = &sc->objs.v[i];

		switch (plan__build(o->path, &e, &r->plan, err, sizeof(err))) {
		case MW_PLAN_OK:
			r->planned = true;
			r->bias = load_bias(o, &sc->maps);
			say_planned(w, text, &r->plan, o->shown);
			return 1;
		case MW_PLAN_BAD:
			mw_err("%s", err);
			return -1;
		case MW_PLAN_NO_DWARF:
			*nodwarf |= i == 0;
			break;
		case MW_PLAN_NO_ROOT:
			if (i == 0)	/* the executable's near names */
				snprintf(near, nlen, "%s", err);
			break;
		}
	}
	return 0;
}

int reads__resolve(struct mw_session *s, struct mw_watched *w, const struct mw_scan *sc,
		   enum mw_missing missing)
{
	for (int k = 0; k < s->opts.nstructs; k++) {
		const char *text = s->opts.structs[k].read;
		char near[512] = "";
		bool nodwarf = false;
		int r;

		if (!text || (w->reads && w->reads[k].planned))
			continue;
		if (!w->reads && !(w->reads = calloc((size_t)s->opts.nstructs, sizeof(*w->reads)))) {
			mw_err("out of memory");
			return -1;
		}
		r = plan_one(w, k, text, sc, &nodwarf, near, sizeof(near));
		if (r < 0)
			return -1;
		if (r > 0 || missing == MW_MISSING_QUIET)
			continue;
		if (missing == MW_MISSING_WAITS) {
			mw_err("--read '%s': not in pid %d's objects yet; read once a library that defines it is loaded",
			       text, (int)w->target.pid);
			continue;
		}
		mw_err("--read '%s': no such variable in pid %d's executable or its %zu libraries, nor a parameter of its structure's functions%s%s%s%s",
		       text, (int)w->target.pid, sc->objs.n ? sc->objs.n - 1 : 0, near,
		       nodwarf ? "; " : "", nodwarf && sc->objs.n ? sc->objs.v[0].shown : "",
		       nodwarf ? " has no debug information: build it with -g (Rust: debug = 2 in the profile), or install its debug file" : "");
		return -1;
	}
	return 0;
}

/* One walk's figures, added to @ss's. */
static void add_reading(struct mw_struct_sample *ss, const struct mw_reading *got)
{
	ss->length += got->length;
	ss->length_known &= got->length_known;
	ss->retained_bytes += got->retained;
}

/* A walk that failed: counted; past --read-limit, said once. */
static void failed(struct mw_read *r, const struct mw_options *o, int k, int err)
{
	r->errors++;
	r->failed = true;
	if (err == -E2BIG && !r->limit_said++)
		mw_err("--read '%s': the walk stopped at --read-limit %llu visits: its figures stay empty; raise it",
		       o->structs[k].read, (unsigned long long)o->read_limit);
	else if ((err == -ELOOP || err == -ENOMEM) && !r->limit_said++)
		mw_err("--read '%s': %s: its figures stay empty", o->structs[k].read,
		       err == -ELOOP ? "owners nested deeper than memwatch follows" : "out of memory");
}

/* Whether the instance at @addr is still in mapped memory. */
static bool root_mapped(pid_t pid, uint64_t addr)
{
	uint8_t byte;

	return memory__range_ok(addr, 1) && memory__read(pid, addr, &byte, 1) != -EFAULT;
}

/* Every root the roots table holds for @w's structures read through a
 * parameter, walked; a root that is gone taken out. */
static void sample_roots(struct mw_session *s, struct mw_watched *w, const struct mw_mem *mem)
{
	struct bpf_map *map = s->skel->maps.roots;
	struct mw_root_key key, next, *prev = NULL;
	bool gone = false;

	while (!gone && !bpf_map__get_next_key(map, prev, &next, sizeof(next))) {
		struct mw_read *r;
		struct mw_struct_sample *ss;
		struct mw_reading got;
		uint64_t fails = 0;
		int err;

		key = next;
		prev = &key;
		if (key.slot != w->target.slot || key.struct_id >= (uint32_t)w->last.nstructs ||
		    !w->reads[key.struct_id].planned || !w->reads[key.struct_id].plan.from_arg)
			continue;
		r = &w->reads[key.struct_id];
		ss = &w->last.s[key.struct_id];
		err = walk__run(mem, &r->plan, key.addr, s->opts.read_limit, &got);
		if (err == -ESRCH) {
			gone = true;	/* its final row says what it had */
			break;
		}
		bpf_map__lookup_elem(map, &key, sizeof(key), &fails, sizeof(fails), 0);
		if (!err) {
			ss->roots++;
			add_reading(ss, &got);
			if (fails)
				bpf_map__update_elem(map, &key, sizeof(key), &(uint64_t){ 0 },
						     sizeof(uint64_t), BPF_EXIST);
			continue;
		}
		failed(r, &s->opts, (int)key.struct_id, err);
		if (err == -E2BIG || err == -ELOOP || err == -ENOMEM)
			continue;	/* the instance is there: too big to read */
		/* its own memory unmapped, or torn interval after interval:
		 * not an instance any more */
		if ((err == -EFAULT && !root_mapped(w->target.pid, key.addr)) ||
		    ++fails >= MW_ROOT_FAILS)
			bpf_map__delete_elem(map, &key, sizeof(key), 0);
		else
			bpf_map__update_elem(map, &key, sizeof(key), &fails, sizeof(fails),
					     BPF_EXIST);
	}
}

/* Structure @k's figures this interval, from its root(s). */
static void sample_one(struct mw_watched *w, int k, const struct mw_options *o,
		       const struct mw_mem *mem)
{
	struct mw_read *r = &w->reads[k];
	struct mw_struct_sample *ss = &w->last.s[k];
	struct mw_reading got;
	int err;

	if (r->plan.from_arg) {
		if (ss->roots_lost && !r->lost_said++)
			mw_err("pid %d: --read '%s': the roots table is full, instances go unread: its figures stay empty",
			       (int)w->target.pid, o->structs[k].read);
		r->seen |= ss->roots > 0;
		/* no figure before the first call, nor with an instance unread */
		ss->read_complete = r->seen && !r->failed && !ss->roots_lost;
		return;
	}
	ss->roots = 1;
	err = walk__run(mem, &r->plan, r->plan.root + r->bias, o->read_limit, &got);
	if (err == -ESRCH)
		return;		/* gone: its final row says what it had */
	if (err) {
		failed(r, o, k, err);
		return;
	}
	add_reading(ss, &got);
	ss->read_complete = true;
}

void reads__sample(struct mw_session *s, struct mw_watched *w)
{
	int n = w->last.nstructs < s->opts.nstructs ? w->last.nstructs : s->opts.nstructs;
	struct mw_maps maps = { 0 };
	struct mw_mem mem;
	bool params = false;

	if (!w->reads)
		return;
	walk__process(&mem, w->target.pid);
	/* the buffers headers claim are checked against these, not read */
	if (!procmaps__load(w->target.pid, &maps))
		mem.maps = &maps;
	for (int k = 0; w->reads && k < n; k++) {
		struct mw_struct_sample *ss = &w->last.s[k];

		ss->length = 0;
		ss->length_known = true;
		ss->retained_bytes = 0;
		ss->roots = 0;
		w->reads[k].failed = false;
		params |= w->reads[k].planned && w->reads[k].plan.from_arg;
	}
	if (params)
		sample_roots(s, w, &mem);
	for (int k = 0; k < n; k++) {
		if (w->reads[k].planned)
			sample_one(w, k, &s->opts, &mem);
		w->last.s[k].read_errors = w->reads[k].errors;
	}
	procmaps__free(&maps);
}
