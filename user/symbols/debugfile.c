// SPDX-License-Identifier: GPL-2.0
/* debugfile.c - the trust order of debugfile.h. */
#include <stdio.h>
#include <string.h>
#include "symbols/debugfile.h"

int debugfile__candidates(const char *root, const char *hex,
			  char out[MW_DEBUG_CANDIDATES][PATH_MAX])
{
	const char *roots[MW_DEBUG_CANDIDATES] = { "", root };
	int n = 0;

	if (strlen(hex) < 3)
		return 0;
	for (int i = 0; i < MW_DEBUG_CANDIDATES; i++) {
		int len;

		if (i > 0 && (!roots[i] || !*roots[i]))
			continue;
		len = snprintf(out[n], PATH_MAX, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			       roots[i], hex, hex + 2);
		if (len > 0 && len < PATH_MAX)
			n++;
	}
	return n;
}
