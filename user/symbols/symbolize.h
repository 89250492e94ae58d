/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbolize.h - turn an address in the target into "function+0xoff" in
 * its object, from the target's mappings and the object's symbols.
 * Results are cached per address: a site is named once.
 */
#ifndef MW_SYMBOLIZE_H
#define MW_SYMBOLIZE_H

#include <stdint.h>
#include "target.h"

struct mw_symbolizer;

int symbolizer__new(struct mw_symbolizer **out, const struct mw_target *t);
void symbolizer__free(struct mw_symbolizer *s);
/* "function+0x1a (libfoo.so.1)", or "0x7f..." when unknown. The string
 * lives as long as the symbolizer. */
const char *symbolizer__name(struct mw_symbolizer *s, uint64_t addr);
/* The function alone, for folded stacks: "libfoo.so.1`function". */
const char *symbolizer__frame(struct mw_symbolizer *s, uint64_t addr);

#endif
