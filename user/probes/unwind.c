// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - the target's exception runtime, by name in every object it
 * maps: libgcc_s and LLVM's libunwind (the unwinders), libstdc++ and
 * libc++abi, and executables that link these in (a Rust program's
 * personality routine is its own).
 */
#include <errno.h>
#include <elf.h>
#include <string.h>
#include "memwatch.h"
#include "probes/unwind.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Called by the unwinder for each frame with unwind actions, and, in its
 * second phase, for the frame that handles the exception. */
static const char *const personalities[] = {
	"__gxx_personality_v0",		/* C++: libstdc++, libc++abi */
	"rust_eh_personality",		/* Rust */
	"__gcc_personality_v0",		/* C cleanups */
	"__gnat_personality_v0",	/* Ada */
	"__gdc_personality_v0",		/* D */
	"__gnu_objc_personality_v0",	/* Objective-C */
};

/* Where a throw, a panic or pthread_cancel starts to unwind. */
static const char *const unwinders[] = {
	"_Unwind_RaiseException", "_Unwind_ForcedUnwind",
};

/* A global definition of @name in @o. glibc has local wrappers of the same
 * names (its pthread_cancel reaches libgcc_s through them, and libgcc_s
 * is where unwinding happens): those do not count. */
static const struct mw_sym *global(const struct mw_object *o, const char *name)
{
	for (size_t i = 0; i < elfsym__count(o->elf); i++) {
		const struct mw_sym *s = elfsym__at(o->elf, i);

		if (s->offset && s->bind != STB_LOCAL && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

int unwind__resolve(const struct mw_objects *o, struct mw_probe_table *tab)
{
	int n = 0;

	for (size_t i = 0; i < o->n; i++) {
		for (size_t k = 0; k < N(personalities); k++) {
			const struct mw_sym *s = global(&o->v[i], personalities[k]);
			int r;

			if (!s)
				continue;
			r = probes__add(tab, o->v[i].path, s->offset, s->size, 0,
					MW_PROG_HANDLER, false, NULL, personalities[k]);
			if (r < 0)
				return -ENOMEM;
			n += r;
		}
	}
	return n;
}

bool unwind__runtime(const struct mw_objects *o)
{
	for (size_t i = 0; i < o->n; i++)
		for (size_t k = 0; k < N(unwinders); k++)
			if (global(&o->v[i], unwinders[k]))
				return true;
	return false;
}
