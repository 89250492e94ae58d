// SPDX-License-Identifier: GPL-2.0
/*
 * reads.c - --read wired into a session: each structure's EXPR is parsed
 * and planned against the DWARF of the object that defines its root, the
 * object's load bias taken from the target's mappings; every interval the
 * plan is walked in the live process and its figures go in the snapshot:
 * the length, the retained bytes, whether the walk completed, its errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "read/expr.h"
#include "read/plan.h"
#include "read/walk.h"
#include "session/reads.h"

/* Where @o is loaded in the process: its mapping of file offset 0 less
 * the link-time address of that offset. */
static uint64_t load_bias(const struct mw_object *o, const struct mw_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		if (maps->v[i].offset == 0 && !strcmp(maps->v[i].path, o->shown))
			return maps->v[i].start - elfsym__offset_to_vaddr(o->elf, 0);
	return 0;
}

/* Plans structure @k's --read in the first object of @sc that defines its
 * root. 1 if planned, 0 if no object does (@nodwarf: the executable has
 * no DWARF), -1 after one line. */
static int plan_one(struct mw_watched *w, int k, const char *text, const struct mw_scan *sc,
		    bool *nodwarf)
{
	struct mw_read *r = &w->reads[k];
	char err[512];
	struct mw_expr e;

	if (expr__parse(text, &e, err, sizeof(err))) {
		mw_err("--read '%s': %s", text, err);	/* checked at parse: cannot happen */
		return -1;
	}
	for (size_t i = 0; i < sc->objs.n; i++) {
		const struct mw_object *o = &sc->objs.v[i];

		switch (plan__build(o->path, &e, &r->plan, err, sizeof(err))) {
		case MW_PLAN_OK:
			r->planned = true;
			r->bias = load_bias(o, &sc->maps);
			mw_err("pid %d: --read '%s' reads %s as %s (%s) in %s", (int)w->target.pid,
			       text, r->plan.name, shape__kind_name(r->plan.shape.kind),
			       r->plan.shape.type, o->shown);
			return 1;
		case MW_PLAN_BAD:
			mw_err("%s", err);
			return -1;
		case MW_PLAN_NO_DWARF:
			*nodwarf |= i == 0;
			break;
		case MW_PLAN_NO_ROOT:
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
		bool nodwarf = false;
		int r;

		if (!text || (w->reads && w->reads[k].planned))
			continue;
		if (!w->reads && !(w->reads = calloc((size_t)s->opts.nstructs, sizeof(*w->reads)))) {
			mw_err("out of memory");
			return -1;
		}
		r = plan_one(w, k, text, sc, &nodwarf);
		if (r < 0)
			return -1;
		if (r > 0 || missing == MW_MISSING_QUIET)
			continue;
		if (missing == MW_MISSING_WAITS) {
			mw_err("--read '%s': not in pid %d's objects yet; read once a library that defines it is loaded",
			       text, (int)w->target.pid);
			continue;
		}
		mw_err("--read '%s': no such variable in pid %d's executable or its %zu libraries%s%s%s",
		       text, (int)w->target.pid, sc->objs.n ? sc->objs.n - 1 : 0,
		       nodwarf ? "; " : "", nodwarf && sc->objs.n ? sc->objs.v[0].shown : "",
		       nodwarf ? " has no debug information: build it with -g (Rust: debug = 2 in the profile), or install its debug file" : "");
		return -1;
	}
	return 0;
}

void reads__sample(struct mw_session *s, struct mw_watched *w)
{
	for (int k = 0; w->reads && k < w->last.nstructs && k < s->opts.nstructs; k++) {
		struct mw_read *r = &w->reads[k];
		struct mw_struct_sample *ss = &w->last.s[k];
		struct mw_reading got;
		int err;

		ss->read_errors = r->errors;
		if (!r->planned)
			continue;
		ss->roots = 1;
		err = walk__run(w->target.pid, &r->plan, r->bias, &got);
		if (err == -ESRCH)
			continue;	/* gone: its final row says what it had */
		if (err) {
			ss->read_errors = ++r->errors;
			continue;
		}
		ss->length = got.length;
		ss->retained_bytes = got.retained;
		ss->retained_known = got.retained_known;
		ss->read_complete = true;
	}
}
