// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_symmatch.c - libFuzzer harness for symbol matching. The input is
 * "PATTERN\nSYMBOL" (split at the first newline or NUL): the symbol is
 * demangled (libiberty) and matched against the pattern, whole and as a
 * "::" suffix; its paths are split into segments and stripped of generic
 * arguments, and the nearest-name measure weighs them against the pattern.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/nearest.h"
#include "symbols/pathname.h"
#include "symbols/symmatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = 0;
	char *pattern, *raw;
	struct mw_symname n;
	struct mw_nearest near;
	char buf[256], *plain;

	while (cut < size && data[cut] != '\n' && data[cut] != '\0')
		cut++;
	pattern = strndup((const char *)data, cut);
	raw = cut < size ? strndup((const char *)data + cut + 1, size - cut - 1)
			 : strdup("");
	if (!pattern || !raw)
		abort();
	symname__init(&n, raw);
	symmatch__is_glob(pattern);
	symmatch__match(pattern, &n);
	symmatch__suffix(pattern, &n);
	pathname__distance(pattern, raw, 3);
	pathname__distance(raw, pattern, 300);
	nearest__init(&near, pattern);
	nearest__offer(&near, raw);
	if (n.full)
		pathname__distance(pattern, n.full, 8);
	if (n.bare) {
		pathname__distance(n.bare, pattern, 0);
		nearest__offer(&near, n.bare);
		pathname__tail(n.bare, pathname__segments(pattern));
	}
	nearest__format(&near, buf, sizeof(buf));
	/* raw, as a path: the splitting meets any bytes, not only a
	 * demangler's */
	pathname__is_suffix(raw, pattern);
	pathname__tail(raw, 2);
	plain = pathname__plain(raw);
	free(plain);
	symname__free(&n);
	free(pattern);
	free(raw);
	return 0;
}
