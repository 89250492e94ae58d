// SPDX-License-Identifier: GPL-2.0
/*
 * allocator.c - the allocator families memwatch knows, as data: each entry
 * point with the operation its BPF cookie carries. The libc is the one the
 * target really maps, opened through /proc/PID/root.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "allocator.h"
#include "elfsym.h"
#include "log.h"
#include "memwatch.h"

struct mw_entry_point {
	const char *name;
	enum mw_op op;
	bool required;		/* absent: this is not the family we think */
};

/* glibc: every public allocation entry point. valloc and pvalloc take the
 * size first, like malloc; aligned_alloc and memalign are one function. */
static const struct mw_entry_point glibc_family[] = {
	{ "malloc",		MW_OP_MALLOC,		true },
	{ "calloc",		MW_OP_CALLOC,		true },
	{ "realloc",		MW_OP_REALLOC,		true },
	{ "free",		MW_OP_FREE,		true },
	{ "reallocarray",	MW_OP_REALLOCARRAY,	false },
	{ "posix_memalign",	MW_OP_POSIX_MEMALIGN,	false },
	{ "aligned_alloc",	MW_OP_MEMALIGN,		false },
	{ "memalign",		MW_OP_MEMALIGN,		false },
	{ "valloc",		MW_OP_MALLOC,		false },
	{ "pvalloc",		MW_OP_MALLOC,		false },
};

static int add_family(struct mw_elf *elf, const char *path,
		      const struct mw_entry_point *fam, size_t n,
		      struct mw_probe_table *tab)
{
	int added = 0;

	for (size_t i = 0; i < n; i++) {
		const struct mw_sym *s = elfsym__find(elf, fam[i].name);
		int err;

		if (!s) {
			if (!fam[i].required)
				continue;
			mw_err("symbol %s not found in %s; is this glibc?", fam[i].name, path);
			return -1;
		}
		/* free has no return probe: its work is done at entry */
		err = probes__add(tab, path, s->offset, fam[i].op, MW_PROG_ALLOC,
				  fam[i].op != MW_OP_FREE, fam[i].name);
		if (err < 0) {
			mw_err("out of memory");
			return -1;
		}
		added += err;
	}
	return added;
}

int allocator__resolve(const struct mw_target *t, const struct mw_maps *maps,
		       struct mw_probe_table *tab)
{
	const struct mw_mapping *libc = procmaps__find_libc(maps);
	char path[PATH_MAX];
	struct mw_elf *elf;
	int err, n;

	if (!libc) {
		mw_err("pid %d maps no glibc (libc.so.6); statically linked or another libc, which this version cannot observe (use --no-heap)",
		       (int)t->pid);
		return -1;
	}
	target__object_path(t, libc, path, sizeof(path));
	err = elfsym__open(path, &elf);
	if (err) {
		mw_err("cannot read %s: %s", path, strerror(-err));
		return -1;
	}
	n = add_family(elf, path, glibc_family,
		       sizeof(glibc_family) / sizeof(glibc_family[0]), tab);
	elfsym__close(elf);
	return n;
}
