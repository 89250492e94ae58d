// SPDX-License-Identifier: GPL-2.0
/*
 * structs.c - find each structure function in the objects the target maps
 * (executable first, then libraries in load order) and add its probe. A
 * SYMBOL is a raw name, a demangled C++/Rust name or a glob (symmatch.c);
 * a plain name must name one function, a glob probes all it matches.
 *
 * No structure function gets a return probe if it can be helped: the
 * kernel's would put its trampoline over the return address, and a C++
 * exception or Rust panic crossing the frame would abort the target. A
 * scope (heap mode: an insert charges what it allocates) needs only the
 * entry (see "structure scopes" in memwatch.bpf.c). A return value
 * (--delta ret) is read by probes on the function's return instructions
 * where the target can unwind; only a function that also leaves by a jump
 * falls back on a return probe there.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "memwatch.h"
#include "placement.h"
#include "structs.h"
#include "unwind.h"

#define MW_MAX_LISTED	8	/* matches or suggestions named in a message */
#define MW_MAX_EXITS	64	/* return instructions probed in a function */

struct match {
	const struct mw_object *obj;
	const struct mw_sym *sym;
	const struct mw_symname *name;
};

static const char *display_name(const struct mw_symname *n)
{
	return n->full ? n->full : n->raw;
}

/* Every function @pattern matches, one per address: a name found in both
 * .symtab and .dynsym, or under two aliases, is one function. */
static size_t find_matches(const char *pattern, const struct mw_objects *o,
			   struct match **out)
{
	struct match *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < elfsym__count(o->v[i].elf); j++) {
			const struct mw_sym *s = elfsym__at(o->v[i].elf, j);
			bool dup = false;

			if (!s->offset || !symmatch__match(pattern, &o->v[i].names[j]))
				continue;
			for (size_t k = 0; k < n && !dup; k++)
				dup = v[k].obj == &o->v[i] && v[k].sym->offset == s->offset;
			if (dup)
				continue;
			if (n == cap) {
				struct match *nv;

				cap = cap ? cap * 2 : 8;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					break;	/* report what was found */
				v = nv;
			}
			v[n++] = (struct match){ &o->v[i], s, &o->v[i].names[j] };
		}
	}
	*out = v;
	return n;
}

/* "nearest: a, b, c": names within a few edits of @pattern. */
static void suggest(const char *pattern, const struct mw_objects *o,
		    char *buf, size_t len)
{
	const char *best[3] = { 0 };
	unsigned bestd[3], cap = (unsigned)strlen(pattern) / 3 + 3;
	size_t used = 0;

	for (int k = 0; k < 3; k++)
		bestd[k] = cap;
	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < elfsym__count(o->v[i].elf); j++) {
			const struct mw_symname *nm = &o->v[i].names[j];
			const char *cand = nm->bare ? nm->bare : nm->raw;
			unsigned d = symmatch__distance(pattern, cand, bestd[2]);
			int k;

			if (d >= bestd[2])
				continue;
			for (k = 0; k < 3; k++)
				if (best[k] && !strcmp(best[k], cand))
					break;
			if (k < 3)
				continue;
			for (k = 2; k > 0 && d < bestd[k - 1]; k--) {
				best[k] = best[k - 1];
				bestd[k] = bestd[k - 1];
			}
			best[k] = cand;
			bestd[k] = d;
		}
	}
	buf[0] = '\0';
	for (int k = 0; k < 3 && best[k] && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k ? ", " : "; nearest: ", best[k]);
}

static void list_matches(const struct match *m, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < MW_MAX_LISTED && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s in %s",
					 i ? "; " : "", display_name(m[i].name),
					 m[i].obj->shown);
	if (n > MW_MAX_LISTED && used < len)
		snprintf(buf + used, len - used, "; and %zu more", n - MW_MAX_LISTED);
}

static uint64_t cookie_of(const struct mw_func_spec *f, bool heap)
{
	uint64_t c = MW_SF_COOKIE(f->struct_id, f->delta);

	if (f->remove)
		c |= MW_SF_REMOVE;
	if (f->delta == MW_DELTA_RET || (heap && !f->remove))
		c |= MW_SF_SCOPE;
	return c;
}

/* The return instructions of @m's function into @exits, with those of
 * its .cold part (GCC moves rarely run paths there, some that return);
 * -1 if it may leave another way. */
static int find_exits(const struct match *m, uint64_t *exits)
{
	struct mw_code_part parts[2] = { { NULL, m->sym->offset, m->sym->size } };
	const struct mw_sym *cold;
	char name[1024];
	size_t n = 1;

	snprintf(name, sizeof(name), "%s.cold", m->name->raw);
	cold = elfsym__find(m->obj->elf, name);
	if (cold && cold->size)
		parts[n++] = (struct mw_code_part){ NULL, cold->offset, cold->size };
	return placement__returns_file(m->obj->path, parts, n, exits, MW_MAX_EXITS);
}

/*
 * The probes of one matched function: the entry, and for --delta ret its
 * returns. In a target that can unwind, on each return instruction (a
 * single-step each, ~19 us a call more than a return probe here), or by a
 * return probe when the function also leaves by a jump, which is said once
 * on stderr: an exception crossing it would abort the target. In a target
 * that cannot (no unwinder mapped: C), by the cheaper return probe.
 */
static int add_function(const struct mw_target *t, const struct mw_func_spec *f,
			const struct match *m, uint64_t cookie, bool unwinds,
			struct mw_probe_table *tab)
{
	const char *what = display_name(m->name);
	uint64_t exits[MW_MAX_EXITS];
	int n = 0;

	if (f->delta == MW_DELTA_RET) {
		n = unwinds ? find_exits(m, exits) : 0;
		if (n <= 0) {
			cookie |= MW_SF_RETPROBE;
			if (unwinds)
				mw_err("%s '%s' --delta ret: it can leave by a jump, so its return value is read by a return probe; a C++ exception or Rust panic that crosses it would abort pid %d (use one or argN)",
				       f->remove ? "--remove" : "--insert", what, (int)t->pid);
		}
	}
	for (int i = 0; i < n; i++)
		if (probes__add(tab, m->obj->path, exits[i], 0, cookie,
				MW_PROG_STRUCT_EXIT, false, what) < 0)
			return -1;
	return probes__add(tab, m->obj->path, m->sym->offset, m->sym->size, cookie,
			   MW_PROG_STRUCT, cookie & MW_SF_RETPROBE, what) < 0 ? -1 : 0;
}

/* A note when the executable (the first object mapped) is stripped and
 * has no debug file: its own functions are then invisible. Libraries are
 * left out: Debian strips them all, and their exports stay in .dynsym. */
static void stripped_note(const struct mw_objects *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (o->n && !elfsym__has_symtab(o->v[0].elf))
		snprintf(buf, len, "; %s is stripped and has no debug file in /usr/lib/debug/.build-id (install its -dbg package)",
			 o->v[0].shown);
}

/* Adds the probes of one --insert/--remove; -1 after one message. */
static int resolve_func(const struct mw_target *t, const struct mw_func_spec *f,
			const struct mw_objects *o, bool heap, bool unwinds,
			struct mw_probe_table *tab)
{
	const char *opt = f->remove ? "--remove" : "--insert";
	uint64_t cookie = cookie_of(f, heap);
	struct match *m;
	char text[2048];
	size_t n = find_matches(f->symbol, o, &m);
	int err = 0;

	if (n == 0) {
		char note[PATH_MAX + 128];

		suggest(f->symbol, o, text, sizeof(text));
		stripped_note(o, note, sizeof(note));
		mw_err("%s '%s': no such function in pid %d's executable or its %zu libraries%s%s",
		       opt, f->symbol, (int)t->pid, o->n ? o->n - 1 : 0, text, note);
		free(m);
		return -1;
	}
	if (n > 1 && !symmatch__is_glob(f->symbol)) {
		list_matches(m, n, text, sizeof(text));
		mw_err("%s '%s' matches %zu functions: %s; name one (with its parameters, or its raw symbol), or use a glob to probe all",
		       opt, f->symbol, n, text);
		free(m);
		return -1;
	}
	if (symmatch__is_glob(f->symbol))
		mw_err("%s '%s' matches %zu function%s in pid %d", opt, f->symbol,
		       n, n == 1 ? "" : "s", (int)t->pid);
	for (size_t i = 0; i < n && err >= 0; i++)
		err = add_function(t, f, &m[i], cookie, unwinds, tab);
	free(m);
	if (err < 0) {
		mw_err("out of memory");
		return -1;
	}
	return (int)n;
}

int structs__resolve(const struct mw_target *t, const struct mw_objects *o,
		     const struct mw_options *opts, struct mw_probe_table *tab)
{
	bool unwinds = unwind__runtime(o), scopes = false;
	int n = 0, r = 0;

	for (int i = 0; i < opts->nfuncs && r >= 0; i++) {
		r = resolve_func(t, &opts->funcs[i], o, !opts->no_heap, unwinds, tab);
		n += r;
		scopes |= (cookie_of(&opts->funcs[i], !opts->no_heap) & MW_SF_SCOPE) != 0;
	}
	if (r < 0)
		return -1;
	/* which frame handles an exception: the scopes below it are over */
	if (scopes && unwinds && unwind__resolve(o, tab) < 0) {
		mw_err("out of memory");
		return -1;
	}
	return n;
}
