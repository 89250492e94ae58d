/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfile.h - where a build's separate debug file may be, in the order
 * memwatch trusts them: the host's /usr/lib/debug/.build-id/xx/yyyy.debug
 * first (for one build-id it describes the same build, and it is not the
 * target's to forge), then the same under the target's root (a container's
 * own -dbg package). Both the symbol reader and glibc's view use this one
 * policy; each checks that the file's build-id matches.
 */
#ifndef MW_DEBUGFILE_H
#define MW_DEBUGFILE_H

#include <limits.h>
#include <stddef.h>

#define MW_DEBUG_CANDIDATES	2

/* The candidate paths for the build-id @hex (lowercase hex) into @out, at
 * most MW_DEBUG_CANDIDATES; @root ("/proc/PID/root") may be NULL or "".
 * Returns how many. */
int debugfile__candidates(const char *root, const char *hex,
			  char out[MW_DEBUG_CANDIDATES][PATH_MAX]);

#endif
