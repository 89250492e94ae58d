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
 * entry (see bpf/scopes.bpf.h). A return value
 * (--delta ret) is read by probes on the function's return instructions
 * where the target can unwind; only a function that also leaves by a jump
 * falls back on a return probe there.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "memwatch.h"
#include "symbols/golang.h"
#include "symbols/inlined.h"
#include "symbols/nearest.h"
#include "symbols/pathname.h"
#include "probes/copies.h"
#include "probes/functions.h"
#include "probes/placement.h"
#include "probes/roots.h"
#include "probes/structs.h"
#include "probes/unwind.h"

#define MW_MAX_LISTED	8	/* matches or suggestions named in a message */
#define MW_MAX_EXITS	64	/* return instructions probed in a function */


/* The source function a symbol is, or is a clone of: its group. */
static const char *source_key(const struct mw_symname *n)
{
	if (n->full)
		return n->full;
	return n->base ? n->base : n->raw;
}

/* The function itself (or it renamed), not a clone or part of it. */
static bool is_primary(const struct mw_symname *n)
{
	return !(n->clone & ~(unsigned)MW_CLONE_RENAMED);
}

/* "; nearest: a, b, c": source names (clones' included) whose last
 * segments, as many as @pattern has, are within a third of its length in
 * edits (pathname.h). */
static void suggest(const char *pattern, const struct mw_objects *o,
		    char *buf, size_t len)
{
	struct mw_nearest near;

	nearest__init(&near, pattern);
	for (size_t i = 0; i < o->n; i++)
		for (size_t j = 0; j < elfsym__count(o->v[i].elf); j++) {
			const struct mw_symname *nm = &o->v[i].names[j];

			nearest__offer(&near, nm->plain ? nm->plain : symname__source(nm));
		}
	nearest__format(&near, buf, len);
}

static void list_matches(const struct mw_match *m, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	char name[1024];

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < MW_MAX_LISTED && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s in %s",
					 i ? "; " : "",
					 symname__display(m[i].name, name, sizeof(name)),
					 m[i].obj->shown);
	if (n > MW_MAX_LISTED && used < len)
		snprintf(buf + used, len - used, "; and %zu more", n - MW_MAX_LISTED);
}

/* A structure function's cookie. A scope is opened at each call for a
 * return value (ret), to charge an insert's allocations (heap mode), and
 * in a process that can unwind (@unwinds) so that a call an exception or
 * panic unwinds is counted as such and adds nothing. */
static uint64_t cookie_of(const struct mw_func_spec *f, bool heap, bool unwinds)
{
	uint64_t c = MW_SF_COOKIE(f->struct_id, f->delta);

	if (f->remove)
		c |= MW_SF_REMOVE;
	if (f->delta == MW_DELTA_RET || (heap && !f->remove))
		c |= MW_SF_SCOPE;
	else if (unwinds)
		c |= MW_SF_UNWIND;
	return c;
}

/* The return instructions of @m's function into @exits, with those of
 * its .cold part (GCC moves rarely run paths there, some that return);
 * -1 if it may leave another way. */
static int find_exits(const struct mw_match *m, uint64_t *exits)
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

static const char *opt_of(const struct mw_func_spec *f)
{
	return f->remove ? "--remove" : "--insert";
}

/* "ret", "arg2": the --delta rule of @f. */
static const char *delta_name(const struct mw_func_spec *f, char *buf, size_t len)
{
	if (f->delta == MW_DELTA_RET)
		snprintf(buf, len, "ret");
	else if (f->delta >= MW_DELTA_ARG1)
		snprintf(buf, len, "arg%d", (int)(f->delta - MW_DELTA_ARG1 + 1));
	else
		snprintf(buf, len, "one");
	return buf;
}

/*
 * The probes of one matched function: the entry, and for --delta ret its
 * returns. In a target that can unwind, on each return instruction (a
 * single-step each, ~19 us a call more than a return probe here), or by a
 * return probe when the function also leaves by a jump, which is said once
 * on stderr: an exception crossing it would abort the target. In a target
 * that cannot (no unwinder mapped: C), by the cheaper return probe. In a
 * Go program (@go_program) no structure function gets a return probe: on
 * a Go frame, the goroutine's stack copier aborts the program when it
 * finds the kernel's trampoline for a return address, and the Go code in
 * @abi is only as sure as its DWARF. -1 after one message.
 */
static int add_function(const struct mw_target *t, const struct mw_func_spec *f,
			const struct mw_match *m, uint64_t cookie, bool unwinds, bool go_program,
			const struct mw_abi *abi, struct mw_probe_table *tab)
{
	char name[1024], delta[16];
	const char *what = symname__display(m->name, name, sizeof(name));
	uint64_t exits[MW_MAX_EXITS];
	int n = 0, r;

	if (f->delta == MW_DELTA_RET) {
		n = unwinds || go_program ? find_exits(m, exits) : 0;
		if (n <= 0 && go_program) {
			mw_err("%s '%s' --delta ret: %s may leave by a jump, and a return probe in a Go program could abort pid %d (the goroutine stack copier meets the kernel's trampoline); use --delta one or argN",
			       opt_of(f), f->symbol, what, (int)t->pid);
			return -1;
		}
		if (n <= 0) {
			cookie |= MW_SF_RETPROBE;
			if (unwinds)
				mw_err("%s '%s' --delta ret: it can leave by a jump, so its return value is read by a return probe; a C++ exception or Rust panic that crosses it would abort pid %d (use one or argN)",
				       opt_of(f), what, (int)t->pid);
		}
	}
	for (int i = 0; i < n; i++)
		if (probes__add(tab, m->obj->path, exits[i], 0, cookie,
				MW_PROG_STRUCT_EXIT, false, NULL, what) < 0)
			goto oom;
	r = probes__add(tab, m->obj->path, m->sym->offset, m->sym->size, cookie,
			MW_PROG_STRUCT, cookie & MW_SF_RETPROBE, abi, what);
	if (r == -EDOM) {
		mw_err("%s '%s' --delta %s: %s is Go code that overwrites the argument before its stack check, where memwatch must probe it; use --delta one or ret",
		       opt_of(f), f->symbol, delta_name(f, delta, sizeof(delta)), what);
		return -1;
	}
	if (r >= 0)
		return 0;
oom:
	mw_err("out of memory");
	return -1;
}

/* ------------------------------------------------------------------ Go */

/* Go's integer argument registers (its ABIInternal), for arguments that
 * are one integer each, the receiver first. */
static const uint8_t go_regs[MW_NARGS] = {
	MW_REG_AX, MW_REG_BX, MW_REG_CX, MW_REG_DI, MW_REG_SI, MW_REG_R8,
};

/* Why Go's @g cannot give what --delta asks (f->delta): NULL if it can. */
static const char *go_unreadable(const struct mw_func_spec *f, const struct mw_gofunc *g,
				 char *buf, size_t len)
{
	int n = (int)f->delta - MW_DELTA_ARG1 + 1;

	if (f->delta == MW_DELTA_ONE)
		return NULL;
	if (!g->dwarf)
		return "it has no DWARF (built with -ldflags=-w?), so where Go put its arguments and results is unknown";
	if (!g->regabi)
		return "it was built for Go's stack ABI (Go before 1.17), which memwatch does not read";
	if (f->delta == MW_DELTA_RET) {
		if (g->result_int)
			return NULL;
		snprintf(buf, len, "its first result is %s", g->result_why);
		return buf;
	}
	if (n > g->nparams) {
		snprintf(buf, len, "it has %d parameter%s", g->nparams, g->nparams == 1 ? "" : "s");
		return buf;
	}
	if (g->param[n - 1].reg >= 0)
		return NULL;
	snprintf(buf, len, "its parameter %d, '%s', is %s", n, g->param[n - 1].name,
		 g->param[n - 1].why);
	return buf;
}

/*
 * Whether @m is Go code, and then what its probes need: Go's registers
 * for what --delta reads (by its DWARF), no scope (@cookie), and a ret
 * read where it returns. 1 if Go code, 2 if C code in a Go program (cgo),
 * 0 if not in a Go program, -1 after one message.
 */
static int go_function(const struct mw_func_spec *f, const struct mw_match *m,
		       struct mw_abi *abi, uint64_t *cookie)
{
	char version[32], why[256], name[1024], delta[16];
	struct mw_gofunc g;
	const char *no;

	if (!golang__version(m->obj->elf, version, sizeof(version)))
		return 0;
	golang__describe(m->obj->path, m->sym, &g);
	if (!g.go)
		return 2;	/* cgo's C code: System V's rules */
	no = go_unreadable(f, &g, why, sizeof(why));
	if (no) {
		mw_err("%s '%s' --delta %s: %s is Go code, and %s; use --delta one",
		       opt_of(f), f->symbol, delta_name(f, delta, sizeof(delta)),
		       symname__display(m->name, name, sizeof(name)), no);
		return -1;
	}
	abi->go = true;
	memcpy(abi->arg, go_regs, sizeof(go_regs));
	for (int i = 0; i < g.nparams && i < MW_NARGS; i++)
		if (g.param[i].reg >= 0)
			abi->arg[i] = (uint8_t)g.param[i].reg;
	*cookie &= ~(MW_SF_SCOPE | MW_SF_UNWIND);
	if (f->delta == MW_DELTA_RET)
		*cookie |= MW_SF_DIRECT;
	return 1;
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

/* More than one source function among @m: two names, two objects, or
 * two functions of one name (statics of two files). Clones and parts of
 * one function are that function. */
static bool ambiguous(const struct mw_match *m, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (m[i].obj != m[0].obj ||
		    strcmp(source_key(m[i].name), source_key(m[0].name)))
			return true;
		for (size_t k = 0; k < i; k++)
			if (is_primary(m[i].name) && is_primary(m[k].name))
				return true;
	}
	return false;
}

/* The function @m[i] is the outlined part of, among @m: -1 if none. */
static int head_of(const struct mw_match *m, size_t n, size_t i)
{
	if (!(m[i].name->clone & MW_CLONE_PART))
		return -1;
	for (size_t k = 0; k < n; k++)
		if (k != i && m[k].obj == m[i].obj && is_primary(m[k].name) &&
		    !strcmp(source_key(m[k].name), source_key(m[i].name)))
			return (int)k;
	return -1;
}

static const char *clone_kind(unsigned clone)
{
	if (clone & MW_CLONE_PART)
		return ".part: only a part of the function";
	if (clone & MW_CLONE_ISRA)
		return ".isra: parameters rewritten or dropped, the return value maybe too";
	return ".constprop: constant parameters dropped";
}

/*
 * A delta read from an argument or the return value needs the source's
 * calling convention, which a clone may not keep: refused there. (DWARF
 * could say where each value went; memwatch does not read it yet.)
 */
static int check_clones(const struct mw_func_spec *f, const struct mw_match *m, size_t n)
{
	char name[1024], delta[16];

	if (f->delta == MW_DELTA_ONE)
		return 0;
	delta_name(f, delta, sizeof(delta));
	for (size_t i = 0; i < n; i++) {
		unsigned c = m[i].name->clone;

		if (!(c & MW_CLONE_CHANGES_ABI))
			continue;
		mw_err("%s '%s' --delta %s: %s in %s is a compiler clone (%s), so its %s may not be the source's; use --delta one",
		       opt_of(f), f->symbol, delta,
		       symname__display(m[i].name, name, sizeof(name)), m[i].obj->shown,
		       clone_kind(c), f->delta == MW_DELTA_RET ? "return value" : "arguments");
		return -1;
	}
	return 0;
}

/* What the attach probes when the name covers clones or parts: said once,
 * with what a split function's probes cannot see. */
static void say_clones(const struct mw_target *t, const struct mw_func_spec *f,
		       const struct mw_match *m, size_t n, bool glob)
{
	const char *opt = opt_of(f);
	char text[2048], name[1024], head[1024];
	bool clones = false;

	for (size_t i = 0; i < n; i++)
		clones |= m[i].name->clone != 0;
	if (!glob && clones) {
		list_matches(m, n, text, sizeof(text));
		mw_err("%s '%s' probes %zu function%s in pid %d, the compiler's clones and parts of it: %s",
		       opt, f->symbol, n, n == 1 ? "" : "s", (int)t->pid, text);
	}
	for (size_t i = 0; i < n; i++) {
		int h = head_of(m, n, i);
		const char *part;

		if (!(m[i].name->clone & MW_CLONE_PART))
			continue;
		part = symname__display(m[i].name, name, sizeof(name));
		mw_err("%s '%s': %s is the outlined rest of %s, whose start the compiler copied into its callers: a call that returns from such a copy without reaching %s is not seen",
		       opt, f->symbol, part,
		       h >= 0 ? symname__display(m[h].name, head, sizeof(head)) : symname__source(m[i].name),
		       part);
	}
}

/* The name DWARF gives @n's source function: its linkage name when
 * mangled, else its C name. */
static const char *dwarf_name(const struct mw_symname *n)
{
	return n->base ? n->base : n->raw;
}

/* Where DWARF says the compiler also copied the function into callers:
 * said once, since calls there run no probe. */
static void say_inlined(const struct mw_func_spec *f, const struct mw_match *m, size_t n)
{
	char callers[512];
	bool split = false;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (is_primary(m[i].name))
			k = i;
		split |= (m[i].name->clone & MW_CLONE_PART) != 0;
	}
	if (inlined__callers(m[k].obj->path, dwarf_name(m[k].name), callers, sizeof(callers)) > 0)
		mw_err("%s '%s': DWARF says the compiler also copied %s%s into %s (in %s): %s",
		       opt_of(f), f->symbol,
		       symname__source(m[k].name), split ? "'s start" : "", callers,
		       m[k].obj->shown,
		       split ? "calls there are seen when they reach its outlined part"
			     : "calls there run no probe and are not seen");
}

/* Whether the inlined copies of the function @m names were probed
 * (copies.h): not for ret, which a copy cannot give, nor for a split
 * function, whose copies of its start reach its probed part. *@err -1
 * after one message. */
static bool inlined_probed(const struct mw_target *t, const struct mw_func_spec *f,
			   const struct mw_match *m, size_t n, bool heap,
			   struct mw_probe_table *tab, int *err)
{
	int k;

	if (f->delta == MW_DELTA_RET)
		return false;
	for (size_t i = 0; i < n; i++)
		if (m[i].name->clone & MW_CLONE_PART || m[i].obj != m[0].obj)
			return false;
	k = copies__probe(t, f, m[0].obj, m, n, heap, tab);
	if (k < 0)
		*err = -1;
	return k != 0;
}

/* Adds the probes of one --insert/--remove; -1 after one message. */
static int resolve_func(const struct mw_target *t, const struct mw_options *opts,
			const struct mw_func_spec *f, const struct mw_objects *o, bool unwinds,
			enum mw_missing missing, struct mw_root_fns *roots,
			struct mw_probe_table *tab)
{
	bool heap = !opts->no_heap;
	const char *opt = opt_of(f);
	bool glob = symmatch__is_glob(f->symbol);
	uint64_t cookie = cookie_of(f, heap, unwinds);
	unsigned said_go_heap = 0;
	struct mw_match *m;
	char text[2048];
	bool by_suffix;
	size_t n = functions__find(f->symbol, o, &m, &by_suffix);
	int err = 0;

	if (n == 0 && missing == MW_MISSING_QUIET) {
		free(m);
		return 0;
	}
	if (n == 0 && !glob && o->n && missing != MW_MISSING_QUIET) {
		/* no symbol: maybe a function the compiler inlined everywhere */
		int k = copies__probe(t, f, &o->v[0], NULL, 0, heap, tab);

		if (k) {
			free(m);
			return k;
		}
	}
	if (n == 0 && missing == MW_MISSING_WAITS) {
		mw_err("%s '%s': not in pid %d's executable or its %zu libraries yet; probed when a library that defines it is loaded",
		       opt, f->symbol, (int)t->pid, o->n ? o->n - 1 : 0);
		free(m);
		return 0;
	}
	if (n == 0) {
		char note[PATH_MAX + 128], callers[512];

		suggest(f->symbol, o, text, sizeof(text));
		stripped_note(o, note, sizeof(note));
		/* a function inlined everywhere has no symbol, but DWARF knows */
		if (!glob && o->n && !note[0] &&
		    inlined__callers(o->v[0].path, f->symbol, callers, sizeof(callers)) > 0)
			snprintf(note, sizeof(note), "; DWARF says the compiler inlined it into %s, everywhere: name one of those, or a function it calls",
				 callers);
		mw_err("%s '%s': no such function in pid %d's executable or its %zu libraries%s%s",
		       opt, f->symbol, (int)t->pid, o->n ? o->n - 1 : 0, text, note);
		free(m);
		return -1;
	}
	if (!glob && ambiguous(m, n)) {
		list_matches(m, n, text, sizeof(text));
		if (by_suffix)
			mw_err("%s '%s' ends %zu functions' paths: %s; name one by a longer path, or use a glob ('*%s') to probe all",
			       opt, f->symbol, n, text, f->symbol);
		else
			mw_err("%s '%s' matches %zu functions: %s; name one (by a longer path, with its parameters, or by its raw symbol), or use a glob to probe all",
			       opt, f->symbol, n, text);
		free(m);
		return -1;
	}
	if (by_suffix)
		mw_err("%s '%s' is %s in %s", opt, f->symbol,
		       symname__source(m[0].name), m[0].obj->shown);
	if (check_clones(f, m, n) < 0) {
		free(m);
		return -1;
	}
	if (glob)
		mw_err("%s '%s' matches %zu function%s in pid %d", opt, f->symbol,
		       n, n == 1 ? "" : "s", (int)t->pid);
	say_clones(t, f, m, n, glob);
	if (!glob && !inlined_probed(t, f, m, n, heap, tab, &err))
		say_inlined(f, m, n);
	for (size_t i = 0; i < n && err >= 0; i++) {
		struct mw_abi abi = { .go = false };
		uint64_t c = cookie;
		int h = head_of(m, n, i), go = go_function(f, &m[i], &abi, &c);

		if (go < 0 || roots__arg(opts, f, m[i].obj->path, m[i].sym->vaddr, go != 0,
					 m[i].obj->shown, roots, &c) < 0) {
			err = -1;
			break;
		}
		if (go == 1 && heap && !f->remove && !said_go_heap++)
			mw_err("%s '%s': Go code allocates from Go's heap, not malloc's: its structure's _bytes count none of it",
			       opt, f->symbol);
		if (h >= 0)
			c |= MW_SF_PART;
		for (size_t k = 0; k < n && h < 0; k++)
			if (head_of(m, n, k) == (int)i)
				c |= MW_SF_HEAD;
		err = add_function(t, f, &m[i], c, unwinds, go != 0, go == 1 ? &abi : NULL, tab);
	}
	free(m);
	return err < 0 ? -1 : (int)n;
}

int structs__resolve(const struct mw_target *t, const struct mw_objects *o,
		     const struct mw_options *opts, enum mw_missing missing,
		     struct mw_root_fns *roots, struct mw_probe_table *tab)
{
	bool unwinds = unwind__runtime(o), scopes = false;
	int n = 0, r = 0;

	for (int i = 0; i < opts->nfuncs && r >= 0; i++) {
		r = resolve_func(t, opts, &opts->funcs[i], o, unwinds, missing, roots, tab);
		n += r;
		scopes |= (cookie_of(&opts->funcs[i], !opts->no_heap, unwinds) &
			   (MW_SF_SCOPE | MW_SF_UNWIND)) != 0;
	}
	if (r < 0 || roots__drops(opts, o, roots, tab) < 0)
		return -1;
	/* which frame handles an exception: the scopes below it are over */
	if (scopes && unwinds && unwind__resolve(o, tab) < 0) {
		mw_err("out of memory");
		return -1;
	}
	return n;
}
