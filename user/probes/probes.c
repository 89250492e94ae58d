// SPDX-License-Identifier: GPL-2.0
/* probes.c - the probe table: a growing array with one entry per address. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probes/placement.h"
#include "memwatch.h"
#include "probes/probes.h"

static bool is_alloc(enum mw_prog prog)
{
	return prog == MW_PROG_ALLOC || prog == MW_PROG_ALLOC_SESSION;
}

/* What @prog reads at the entry, for placement. */
static struct mw_needs needs_of(enum mw_prog prog, uint64_t cookie, bool retprobe,
				const struct mw_abi *abi)
{
	struct mw_needs n = { .pinned = retprobe || prog == MW_PROG_ALLOC_SESSION, .abi = abi };
	uint32_t delta;

	switch (prog) {
	case MW_PROG_ALLOC:
	case MW_PROG_ALLOC_SESSION:
		n.args = mw_op_reads(MW_ALLOC_OP(cookie));
		break;
	case MW_PROG_STRUCT:
		delta = MW_SF_DELTA(cookie);
		if (delta >= MW_DELTA_ARG1)
			n.args = (uint8_t)(1u << (delta - MW_DELTA_ARG1));
		n.args |= (uint8_t)MW_ARG_BIT(MW_SF_ROOT(cookie));
		break;
	case MW_PROG_ROOT_DROP:
		n.args = (uint8_t)MW_ARG_BIT(1);
		break;
	case MW_PROG_HANDLER:
		n.args = (uint8_t)(MW_ARG_BIT(MW_PERSONALITY_ACTIONS) |
				   MW_ARG_BIT(MW_PERSONALITY_EXCEPTION));
		break;
	case MW_PROG_STRUCT_EXIT:
	case MW_PROG_THREAD_EXIT:
	case MW_PROG_LOADER:
		break;
	}
	return n;
}

/* Where @prog's probe on the function at @path+@offset goes. */
static void place(const struct mw_probe_table *t, const char *path, uint64_t offset,
		  uint64_t size, uint64_t cookie, enum mw_prog prog, bool retprobe,
		  const struct mw_abi *abi, struct mw_placement *at)
{
	struct mw_needs needs = needs_of(prog, cookie, retprobe, abi);

	if (prog == MW_PROG_STRUCT_EXIT) {	/* on a return instruction */
		placement__entry(at, NULL, true, MW_STEP_INSN);
		snprintf(at->insn, sizeof(at->insn), "ret");
		return;
	}
	if (prog == MW_PROG_LOADER) {		/* a few calls per dlopen */
		placement__entry(at, NULL, false, MW_STEP_NO);
		return;
	}
	placement__find_file(path, offset, size, &needs, at);
	/* a Go stack check's guard is where a call starts, not a saving */
	if (t->at_entry && at->shift && !at->place.guard)
		placement__entry(at, abi, true, MW_STEP_ASKED);
}

/* Adds the probe @at places: 1, 0 for a duplicate, or -ENOMEM. */
static int insert(struct mw_probe_table *t, const char *path, uint64_t offset,
		  uint64_t size, uint64_t cookie, enum mw_prog prog, bool retprobe,
		  const struct mw_placement *at, const char *what)
{
	struct mw_probe *p;

	offset += at->shift;
	/* allocator aliases are one probe; the same function may serve two
	 * structures, with two cookies */
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].offset == offset &&
		    (is_alloc(prog) ? is_alloc(t->v[i].prog) :
		     t->v[i].prog == prog && t->v[i].cookie == cookie) &&
		    !strcmp(t->v[i].path, path))
			return 0;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		struct mw_probe *nv = realloc(t->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = ncap;
	}
	p = &t->v[t->n];
	p->path = strdup(path);
	p->what = strdup(what);
	if (!p->path || !p->what) {
		free(p->path);
		free(p->what);
		return -ENOMEM;
	}
	p->offset = offset;
	p->size = size;
	p->cookie = cookie;
	p->at = *at;
	t->shifted += at->shift != 0;
	t->stepped += at->stepped;
	p->prog = prog;
	p->retprobe = retprobe;
	t->n++;
	return 1;
}

int probes__add(struct mw_probe_table *t, const char *path, uint64_t offset,
		uint64_t size, uint64_t cookie, enum mw_prog prog, bool retprobe,
		const struct mw_abi *abi, const char *what)
{
	struct mw_placement at;

	place(t, path, offset, size, cookie, prog, retprobe, abi, &at);
	if (at.why == MW_STEP_LOST)
		return -EDOM;
	return insert(t, path, offset, size, cookie, prog, retprobe, &at, what);
}

int probes__add_here(struct mw_probe_table *t, const char *path, uint64_t offset,
		     uint64_t cookie, enum mw_prog prog, const struct mw_abi *abi,
		     const char *what)
{
	struct mw_placement at;

	placement__here_file(path, offset, abi, &at);
	return insert(t, path, offset, 0, cookie, prog, false, &at, what);
}

void probes__drop_structs(struct mw_probe_table *t, uint64_t ids)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct mw_probe *p = &t->v[i];
		bool structure = p->prog == MW_PROG_STRUCT || p->prog == MW_PROG_STRUCT_EXIT ||
				 p->prog == MW_PROG_ROOT_DROP;

		if (structure && MW_SF_ID(p->cookie) < 64 && (ids >> MW_SF_ID(p->cookie) & 1)) {
			t->shifted -= p->at.shift != 0;
			t->stepped -= p->at.stepped;
			free(p->path);
			free(p->what);
			continue;
		}
		t->v[kept++] = *p;
	}
	t->n = kept;
}

void probes__free(struct mw_probe_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].what);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
