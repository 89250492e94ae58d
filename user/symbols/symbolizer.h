/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbolizer.h - turn an address in the target into "function+0xoff" in
 * its object, from the target's mappings and the object's symbols.
 * Results are cached per address: a site is named once.
 */
#ifndef MW_SYMBOLIZER_H
#define MW_SYMBOLIZER_H

#include <stdint.h>
#include "process/target.h"

struct mw_symbolizer;

int symbolizer__new(struct mw_symbolizer **out, const struct mw_target *t);
void symbolizer__free(struct mw_symbolizer *s);
/* "function+0x1a (libfoo.so.1)", or "0x7f..." when unknown. The string
 * lives as long as the symbolizer. */
const char *symbolizer__name(struct mw_symbolizer *s, uint64_t addr);
/* The function alone, for folded stacks: "libfoo.so.1`function". */
const char *symbolizer__frame(struct mw_symbolizer *s, uint64_t addr);

/* Where @addr is, for profiles: its mapping, and its function and source
 * line when known. The strings live as long as the symbolizer. */
struct mw_where {
	uint64_t map_start, map_limit, map_offset;	/* 0: no mapping */
	const char *object;	/* the mapped file, as the target sees it; NULL */
	const char *build_id;	/* lowercase hex; "" when none */
	const char *function;	/* demangled, without parameters; NULL */
	const char *file;	/* source file, from DWARF; NULL */
	int64_t line;		/* 0 when unknown */
};
/* 0, or -ENOMEM (then @out says nothing is known). */
int symbolizer__where(struct mw_symbolizer *s, uint64_t addr, struct mw_where *out);

#endif
