// SPDX-License-Identifier: GPL-2.0
/*
 * allocator.c - the allocator families memwatch knows, as data: each entry
 * point with the operation its BPF cookie carries, and how to tell the
 * family from the symbols an object defines.
 *
 * Discovery (auto): the object the dynamic linker binds malloc to - the
 * executable first (a statically linked allocator sits in its .symtab),
 * then LD_PRELOAD libraries, then the other libraries, libc last - gives
 * the main family. Allocators linked into the executable under prefixed
 * names (tikv-jemallocator's _rjem_*, je_*, mi_*, tc_*) serve allocations
 * that never reach malloc: they are probed too.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probes/allocator.h"
#include "symbols/golang.h"
#include "process/procmaps.h"
#include "log.h"
#include "memwatch.h"

struct entry_point {
	const char *name;
	enum mw_op op;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The C and POSIX names, which every family exports (some prefixed). */
static const struct entry_point standard[] = {
	{ "malloc", MW_OP_MALLOC },		{ "calloc", MW_OP_CALLOC },
	{ "realloc", MW_OP_REALLOC },		{ "free", MW_OP_FREE },
	{ "reallocarray", MW_OP_REALLOCARRAY },	{ "posix_memalign", MW_OP_POSIX_MEMALIGN },
	{ "aligned_alloc", MW_OP_MEMALIGN },	{ "memalign", MW_OP_MEMALIGN },
	{ "valloc", MW_OP_MALLOC },		{ "pvalloc", MW_OP_MALLOC },
	{ "cfree", MW_OP_FREE },
};

/* C++ operators new and delete (plain, array, nothrow, aligned, sized),
 * probed where the allocator implements them itself. */
static const struct entry_point cxx_operators[] = {
	{ "_Znwm", MW_OP_MALLOC },		{ "_Znam", MW_OP_MALLOC },
	{ "_ZnwmRKSt9nothrow_t", MW_OP_MALLOC },	{ "_ZnamRKSt9nothrow_t", MW_OP_MALLOC },
	{ "_ZnwmSt11align_val_t", MW_OP_MALLOC },	{ "_ZnamSt11align_val_t", MW_OP_MALLOC },
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", MW_OP_MALLOC },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", MW_OP_MALLOC },
	{ "_ZdlPv", MW_OP_FREE },			{ "_ZdaPv", MW_OP_FREE },
	{ "_ZdlPvm", MW_OP_FREE },			{ "_ZdaPvm", MW_OP_FREE },
	{ "_ZdlPvRKSt9nothrow_t", MW_OP_FREE },	{ "_ZdaPvRKSt9nothrow_t", MW_OP_FREE },
	{ "_ZdlPvSt11align_val_t", MW_OP_FREE },	{ "_ZdaPvSt11align_val_t", MW_OP_FREE },
	{ "_ZdlPvmSt11align_val_t", MW_OP_FREE },	{ "_ZdaPvmSt11align_val_t", MW_OP_FREE },
	{ "_ZdlPvSt11align_val_tRKSt9nothrow_t", MW_OP_FREE },
	{ "_ZdaPvSt11align_val_tRKSt9nothrow_t", MW_OP_FREE },
};

/* The entry points above and below that throw std::bad_alloc when they
 * fail, rather than return NULL. */
static const char *const throwing[] = {
	"_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
	"tc_new", "tc_newarray", "tc_new_aligned", "tc_newarray_aligned",
	"mi_new", "mi_new_n", "mi_new_aligned", "mi_new_realloc", "mi_new_reallocn",
};

static bool throws(const struct entry_point *p)
{
	for (size_t i = 0; i < sizeof(throwing) / sizeof(throwing[0]); i++)
		if (!strcmp(p->name, throwing[i]))
			return true;
	return false;
}

static const struct entry_point jemalloc_extra[] = {
	{ "mallocx", MW_OP_MALLOC },	{ "rallocx", MW_OP_REALLOC },
	{ "xallocx", MW_OP_XALLOCX },	{ "sdallocx", MW_OP_FREE },
	{ "dallocx", MW_OP_FREE },
};

static const struct entry_point tcmalloc_extra[] = {
	{ "tc_malloc", MW_OP_MALLOC },		{ "tc_free", MW_OP_FREE },
	{ "tc_calloc", MW_OP_CALLOC },		{ "tc_realloc", MW_OP_REALLOC },
	{ "tc_memalign", MW_OP_MEMALIGN },	{ "tc_posix_memalign", MW_OP_POSIX_MEMALIGN },
	{ "tc_valloc", MW_OP_MALLOC },		{ "tc_pvalloc", MW_OP_MALLOC },
	{ "tc_cfree", MW_OP_FREE },		{ "tc_free_sized", MW_OP_FREE },
	{ "tc_malloc_skip_new_handler", MW_OP_MALLOC },
	{ "tc_new", MW_OP_MALLOC },	{ "tc_newarray", MW_OP_MALLOC },
	{ "tc_new_nothrow", MW_OP_MALLOC },	{ "tc_newarray_nothrow", MW_OP_MALLOC },
	{ "tc_new_aligned", MW_OP_MALLOC },	{ "tc_newarray_aligned", MW_OP_MALLOC },
	{ "tc_new_aligned_nothrow", MW_OP_MALLOC },
	{ "tc_newarray_aligned_nothrow", MW_OP_MALLOC },
	{ "tc_delete", MW_OP_FREE },		{ "tc_deletearray", MW_OP_FREE },
	{ "tc_delete_sized", MW_OP_FREE },	{ "tc_deletearray_sized", MW_OP_FREE },
	{ "tc_delete_nothrow", MW_OP_FREE },	{ "tc_deletearray_nothrow", MW_OP_FREE },
	{ "tc_delete_aligned", MW_OP_FREE },	{ "tc_deletearray_aligned", MW_OP_FREE },
	{ "tc_delete_sized_aligned", MW_OP_FREE },
	{ "tc_deletearray_sized_aligned", MW_OP_FREE },
	{ "tc_delete_aligned_nothrow", MW_OP_FREE },
	{ "tc_deletearray_aligned_nothrow", MW_OP_FREE },
};

static const struct entry_point mimalloc_extra[] = {
	{ "mi_malloc", MW_OP_MALLOC },		{ "mi_zalloc", MW_OP_MALLOC },
	{ "mi_calloc", MW_OP_CALLOC },		{ "mi_mallocn", MW_OP_CALLOC },
	{ "mi_realloc", MW_OP_REALLOC },	{ "mi_reallocn", MW_OP_REALLOCARRAY },
	{ "mi_rezalloc", MW_OP_REALLOC },	{ "mi_recalloc", MW_OP_REALLOCARRAY },
	{ "mi_expand", MW_OP_EXPAND },		{ "mi_reallocarray", MW_OP_REALLOCARRAY },
	{ "mi_malloc_aligned", MW_OP_MALLOC },	{ "mi_zalloc_aligned", MW_OP_MALLOC },
	{ "mi_calloc_aligned", MW_OP_CALLOC },	{ "mi_realloc_aligned", MW_OP_REALLOC },
	{ "mi_posix_memalign", MW_OP_POSIX_MEMALIGN },
	{ "mi_memalign", MW_OP_MEMALIGN },	{ "mi_aligned_alloc", MW_OP_MEMALIGN },
	{ "mi_valloc", MW_OP_MALLOC },		{ "mi_pvalloc", MW_OP_MALLOC },
	{ "mi_new", MW_OP_MALLOC },	{ "mi_new_n", MW_OP_CALLOC },
	{ "mi_new_nothrow", MW_OP_MALLOC },	{ "mi_new_aligned", MW_OP_MALLOC },
	{ "mi_new_aligned_nothrow", MW_OP_MALLOC },
	{ "mi_new_realloc", MW_OP_REALLOC },
	{ "mi_new_reallocn", MW_OP_REALLOCARRAY },
	{ "mi_free", MW_OP_FREE },		{ "mi_free_size", MW_OP_FREE },
	{ "mi_free_aligned", MW_OP_FREE },	{ "mi_free_size_aligned", MW_OP_FREE },
	{ "mi_cfree", MW_OP_FREE },
};

struct family {
	const char *name;
	const char *marker;		/* a symbol only this family defines */
	const struct entry_point *extra;
	size_t nextra;
	bool prefixed_standard;		/* standard names carry the prefix */
	bool noreserve;			/* maps with MAP_NORESERVE (oom.h) */
};

/* Order matters: the first whose marker an object defines is its family;
 * glibc last, as the family of any other object that exports malloc. */
static const struct family families[] = {
	{ "jemalloc", "mallocx", jemalloc_extra, N(jemalloc_extra), true, true },
	{ "tcmalloc", "tc_malloc", tcmalloc_extra, N(tcmalloc_extra), false, false },
	{ "mimalloc", "mi_malloc", mimalloc_extra, N(mimalloc_extra), false, true },
	{ "glibc", "malloc", NULL, 0, false, false },
};
#define GLIBC (&families[N(families) - 1])

/* jemalloc builds that rename everything (tikv-jemallocator: _rjem_). */
static const char *const jemalloc_prefixes[] = { "", "je_", "_rjem_" };

/* A defined function named @prefix@name in @o, or NULL. */
static const struct mw_sym *defined(const struct mw_object *o,
				    const char *prefix, const char *name)
{
	char full[128];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	return elfsym__find(o->elf, full);
}

/* Which family @o implements, and under which prefix; NULL if none. */
static const struct family *family_of(const struct mw_object *o,
				      const char **prefix, bool prefixed_only)
{
	for (size_t f = 0; f + 1 < N(families); f++) {
		const struct family *fam = &families[f];
		size_t np = fam->prefixed_standard ? N(jemalloc_prefixes) : 1;

		for (size_t p = prefixed_only ? 1 : 0; p < np; p++) {
			if (defined(o, jemalloc_prefixes[p], fam->marker)) {
				*prefix = fam->prefixed_standard ? jemalloc_prefixes[p] : "";
				return fam;
			}
		}
		/* tcmalloc and mimalloc inside an executable keep their own
		 * prefix in the marker: found without malloc */
		if (prefixed_only && !fam->prefixed_standard && defined(o, "", fam->marker)) {
			*prefix = "";
			return fam;
		}
	}
	if (prefixed_only || !defined(o, "", "malloc"))
		return NULL;
	*prefix = "";
	return GLIBC;	/* the standard names only */
}

/* free itself does its work at entry and needs no return probe; other
 * free-type entry points (sized, aligned, operator delete) may call free or
 * each other, and get one so that the inner call is seen as nested. */
static bool return_probe(const struct entry_point *p)
{
	return p->op != MW_OP_FREE || (strcmp(p->name, "free") &&
				       strcmp(p->name, "mi_free") &&
				       strcmp(p->name, "tc_free"));
}

static uint64_t cookie_of(const struct entry_point *p, const struct family *fam)
{
	uint64_t c = MW_ALLOC_COOKIE(p->op);

	if (p->op == MW_OP_FREE && return_probe(p))
		c |= MW_ALLOC_PAIRED;
	if (throws(p))
		c |= MW_ALLOC_THROWS | (fam->noreserve ? MW_ALLOC_NORESERVE : 0);
	return c;
}

static int add_points(const struct mw_object *o, const struct family *fam,
		      const char *prefix, const struct entry_point *pts, size_t n,
		      struct mw_probe_table *tab)
{
	int added = 0;

	for (size_t i = 0; i < n; i++) {
		char name[128];
		const struct mw_sym *s = defined(o, prefix, pts[i].name);
		int r;

		if (!s)
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, pts[i].name);
		/* a throwing one is a session: see memwatch.bpf.c */
		r = probes__add(tab, o->path, s->offset, s->size, cookie_of(&pts[i], fam),
				throws(&pts[i]) ? MW_PROG_ALLOC_SESSION : MW_PROG_ALLOC,
				return_probe(&pts[i]), NULL, name);
		if (r < 0)
			return r;
		added += r;
	}
	return added;
}

/* Probes family @fam in @o; the number of probes added, or -1. */
static int add_family(const struct mw_object *o, const struct family *fam,
		      const char *prefix, struct mw_probe_table *tab)
{
	int n, m = 0, k = 0;

	n = add_points(o, fam, fam->prefixed_standard ? prefix : "", standard,
		       N(standard), tab);
	if (n >= 0 && fam->extra)
		m = add_points(o, fam, prefix, fam->extra, fam->nextra, tab);
	if (n >= 0 && m >= 0 && !*prefix)
		k = add_points(o, fam, "", cxx_operators, N(cxx_operators), tab);
	if (n < 0 || m < 0 || k < 0) {
		mw_err("out of memory");
		return -1;
	}
	return n + m + k;
}

static bool is_libc(const struct mw_object *o)
{
	return procmaps__is_libc(o->shown);
}

static bool is_loader(const struct mw_object *o)
{
	return strstr(strrchr(o->shown, '/'), "/ld-linux") != NULL;
}

/* LD_PRELOAD of the target (space- or colon-separated), into @buf. */
static void read_preload(pid_t pid, char *buf, size_t len)
{
	char path[64], env[65536];
	size_t n;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(env, 1, sizeof(env) - 1, f);
	fclose(f);
	env[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, "LD_PRELOAD=", 11))
			snprintf(buf, len, "%s", env + i + 11);
}

/* The object malloc binds to, in the dynamic linker's search order. */
static const struct mw_object *malloc_binder(const struct mw_target *t,
					     const struct mw_objects *objs)
{
	const struct mw_object *libc = NULL;
	char preload[4096];

	if (objs->n && defined(&objs->v[0], "", "malloc"))
		return &objs->v[0];	/* the executable */
	read_preload(t->pid, preload, sizeof(preload));
	for (char *tok = strtok(preload, " :"); tok; tok = strtok(NULL, " :")) {
		for (size_t i = 1; i < objs->n; i++) {
			const char *base = strrchr(objs->v[i].shown, '/') + 1;

			if ((!strcmp(objs->v[i].shown, tok) || !strcmp(base, tok)) &&
			    defined(&objs->v[i], "", "malloc"))
				return &objs->v[i];
		}
	}
	for (size_t i = 1; i < objs->n; i++) {
		if (is_loader(&objs->v[i]) || !defined(&objs->v[i], "", "malloc"))
			continue;
		if (!is_libc(&objs->v[i]))
			return &objs->v[i];
		libc = libc ? libc : &objs->v[i];
	}
	return libc;
}

/* "glibc in PATH", "jemalloc _rjem_ in PATH"; an object outside the
 * known families that exports malloc is probed by the standard names. */
static void describe(char *buf, size_t len, const struct family *fam,
		     const char *prefix, const struct mw_object *o)
{
	const char *name = fam == GLIBC && !is_libc(o) ? "malloc-compatible" : fam->name;

	snprintf(buf, len, "%s%s%s in %s", name, *prefix ? " " : "", prefix, o->shown);
}

static int report(const struct mw_target *t, const char *what, int n)
{
	mw_err("pid %d: allocator %s: %d probes", (int)t->pid, what, n);
	return n;
}

/* --allocator NAME or PATH. */
static int resolve_choice(const struct mw_target *t, const struct mw_objects *objs,
			  const char *choice, struct mw_probe_table *tab)
{
	char what[PATH_MAX + 64];

	for (size_t i = 0; i < objs->n; i++) {
		const struct mw_object *o = &objs->v[i];
		const struct family *fam;
		const char *prefix = "";
		int n;

		if (choice[0] == '/') {
			if (strcmp(o->shown, choice))
				continue;
			fam = family_of(o, &prefix, false);
			if (!fam) {
				mw_err("--allocator %s: it defines no malloc", choice);
				return -1;
			}
		} else {
			fam = family_of(o, &prefix, false);
			if (!fam || strcmp(fam->name, choice) ||
			    (fam == GLIBC && !is_libc(o)))
				continue;
		}
		n = add_family(o, fam, prefix, tab);
		describe(what, sizeof(what), fam, prefix, o);
		return n < 0 ? -1 : report(t, what, n);
	}
	mw_err("--allocator %s: pid %d maps no such %s; leave the option out to find the allocator it uses",
	       choice, (int)t->pid, choice[0] == '/' ? "object" : "allocator");
	return -1;
}

bool allocator__valid_choice(const char *choice)
{
	if (choice[0] == '/' || !strcmp(choice, "auto"))
		return true;
	for (size_t f = 0; f < N(families); f++)
		if (!strcmp(families[f].name, choice))
			return true;
	return false;
}

/* A Go program's heap is Go's own (new, make, append, its collector),
 * not malloc's: said once at attach, with what heap mode sees there. */
static bool say_go(const struct mw_target *t, const struct mw_objects *objs, bool has_malloc)
{
	char version[32];

	if (!objs->n || !golang__version(objs->v[0].elf, version, sizeof(version)))
		return false;
	mw_err("pid %d is a Go program (%s): heap figures count malloc's blocks only, %s; Go's own heap (new, make, append: its collector's) is not malloc's and is not seen",
	       (int)t->pid, version,
	       has_malloc ? "those of cgo and C libraries" : "and it maps no malloc (no cgo): they stay 0");
	return true;
}

/* glibc's thread exit, where it frees its per-thread cache (thread_exit
 * in memwatch.bpf.c): found in libc's symbols, which its debug file
 * (libc6-dbg) gives; 0 without them, 1 if probed, -1 out of memory. */
static int add_thread_exit(const struct mw_object *o, struct mw_probe_table *tab)
{
	const struct mw_sym *s = elfsym__find(o->elf, "__libc_thread_freeres");

	if (!is_libc(o) || !s || !s->offset)
		return 0;
	return probes__add(tab, o->path, s->offset, s->size, 0, MW_PROG_THREAD_EXIT, false,
			   NULL, "__libc_thread_freeres") < 0 ? -1 : 1;
}

int allocator__resolve(const struct mw_target *t, const struct mw_objects *objs,
		       const char *choice, struct mw_probe_table *tab)
{
	const struct mw_object *main_obj;
	const struct family *fam;
	const char *prefix = "";
	char what[2 * PATH_MAX + 128];
	int n, m;

	main_obj = malloc_binder(t, objs);
	if (say_go(t, objs, main_obj != NULL) && !main_obj && !strcmp(choice, "auto"))
		return 0;
	if (strcmp(choice, "auto"))
		return resolve_choice(t, objs, choice, tab);
	if (!main_obj) {
		mw_err("pid %d: no object it maps defines malloc; give --allocator PATH, or --no-heap",
		       (int)t->pid);
		return -1;
	}
	fam = family_of(main_obj, &prefix, false);
	n = add_family(main_obj, fam, prefix, tab);
	if (n < 0)
		return -1;	/* said */
	if (add_thread_exit(main_obj, tab) < 0) {
		mw_err("out of memory");
		return -1;
	}
	describe(what, sizeof(what), fam, prefix, main_obj);
	/* a prefixed allocator linked into the executable, besides */
	if (objs->n && main_obj != &objs->v[0] &&
	    (fam = family_of(&objs->v[0], &prefix, true))) {
		m = add_family(&objs->v[0], fam, prefix, tab);
		if (m < 0)
			return -1;
		n += m;
		strcat(what, ", and ");
		describe(what + strlen(what), sizeof(what) - strlen(what), fam,
			 prefix, &objs->v[0]);
	}
	return report(t, what, n);
}
