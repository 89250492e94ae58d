/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode.h - a container's header (shape.h), as read from the target,
 * made into what it says: its elements, and the bytes its buffers were
 * allocated with. Nothing is read here: the fuzzer drives it with any
 * bytes at all.
 */
#ifndef MW_DECODE_H
#define MW_DECODE_H

#include <stdint.h>
#include "read/shape.h"

#define MW_BTREE_HEIGHT_MAX	48	/* a BTreeMap deeper holds more than memory */

struct mw_figures {
	uint64_t n;		/* elements */
	uint64_t bytes;		/* its buffers' bytes (not a BTreeMap's nodes) */
	uint64_t probe;		/* a buffer's first byte, for the caller to prove
				 * it is mapped; 0: none */
};

/* The figures of @s's header @hdr, read at @addr: 0, or -EAGAIN when its
 * fields do not hold together (torn by a writer, or not that type). */
int decode__header(const struct mw_shape *s, const uint8_t *hdr, uint64_t addr,
		   struct mw_figures *f);
/* The integer a header of an integer shape holds, sign-extended. */
int64_t decode__integer(const struct mw_shape *s, const uint8_t *hdr);
/* One 8-byte field of a header. */
uint64_t decode__word(const struct mw_shape *s, const uint8_t *hdr, enum mw_shape_field f);

#endif
