/* SPDX-License-Identifier: GPL-2.0 */
/* atomicfile.h - files replaced whole, never seen half-written. */
#ifndef MW_ATOMICFILE_H
#define MW_ATOMICFILE_H

#include <stddef.h>

/* Replaces @path with @len bytes of @data: a temporary ".NAME.XXXXXX" in
 * the same directory (mode 0644), renamed over @path (which replaces a
 * symlink there rather than following it). 0 or -errno. */
int atomicfile__replace(const char *path, const char *data, size_t len);

#endif
