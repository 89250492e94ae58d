/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roots.h - --read roots that are parameters of a structure's insert or
 * remove function ('self.dag'): the argument register each of its
 * functions' entry probes reads the instance from, and a probe on the
 * drop of the type it points at (Rust's drop_in_place::<T>, a C++
 * destructor), which ends an instance. The instances themselves live in
 * the BPF roots table; session/reads.c reads each every interval.
 */
#ifndef MW_ROOTS_H
#define MW_ROOTS_H

#include <stdbool.h>
#include <stdint.h>
#include "options.h"
#include "memwatch.h"
#include "probes/probes.h"
#include "process/objects.h"

/* Per structure: the first function found with the root parameter, for
 * the plan (read/plan.h) and the drop probe. */
struct mw_root_fn {
	char *path;		/* NULL: no function of it has the parameter */
	uint64_t vaddr;
	char pointee[256];	/* the type the parameter points at */
};

struct mw_root_fns {
	struct mw_root_fn v[MW_MAX_STRUCTS];
};

/*
 * For the function at link-time @vaddr of @path (@what, for messages),
 * one of structure @f->struct_id's, in Go code if @go: when the
 * structure's --read starts at a parameter this function has, the bits
 * that make its entry probe note the instance, into @cookie, and the
 * function into @found. 0; -1 after one message (the parameter is there
 * but cannot be read at the entry, or it is Go code).
 */
int roots__arg(const struct mw_options *o, const struct mw_func_spec *f, const char *path,
	       uint64_t vaddr, bool go, const char *what, struct mw_root_fns *found,
	       uint64_t *cookie);

/* Adds a root_drop probe on the drop of each root type of @found among
 * @objs; says once when a type has none (its instances then end only
 * when their memory stops reading as one). -1 if out of memory. */
int roots__drops(const struct mw_options *o, const struct mw_objects *objs,
		 const struct mw_root_fns *found, struct mw_probe_table *tab);

void roots__free(struct mw_root_fns *found);

#endif
