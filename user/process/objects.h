/* SPDX-License-Identifier: GPL-2.0 */
/*
 * objects.h - the ELF objects a target maps (executable first, then the
 * libraries, each once), opened through /proc/PID/root with their function
 * symbols and demangled names. Symbol resolution for the allocator and for
 * structures works over this one list.
 */
#ifndef MW_OBJECTS_H
#define MW_OBJECTS_H

#include <stddef.h>
#include "symbols/elfsym.h"
#include "process/procmaps.h"
#include "symbols/symmatch.h"
#include "process/target.h"

struct mw_object {
	struct mw_elf *elf;
	char *path;			/* as opened, through /proc/PID/root */
	char *shown;			/* as the target maps it */
	struct mw_symname *names;	/* one per symbol, demangled once */
};

struct mw_objects {
	struct mw_object *v;
	size_t n;
};

/* Opens every distinct ELF file in @maps, in address order (the
 * executable comes first); unreadable or non-ELF files are skipped, and a
 * stripped object adopts its build-id debug file. 0 or -ENOMEM. */
int objects__open(const struct mw_target *t, const struct mw_maps *maps,
		  struct mw_objects *out);
void objects__close(struct mw_objects *o);
/* The object mapped from @path (as the target sees it), or NULL. */
const struct mw_object *objects__find(const struct mw_objects *o, const char *path);

#endif
