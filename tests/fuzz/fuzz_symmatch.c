// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_symmatch.c - libFuzzer harness for symbol matching. The input is
 * "PATTERN\nSYMBOL" (split at the first newline or NUL): the symbol is
 * demangled (libiberty) and matched against the pattern, and the edit
 * distance between the two, and the demangled names, is measured.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/symmatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = 0;
	char *pattern, *raw;
	struct mw_symname n;

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
	symmatch__distance(pattern, raw, 3);
	symmatch__distance(raw, pattern, 300);
	if (n.full)
		symmatch__distance(pattern, n.full, 8);
	if (n.bare)
		symmatch__distance(n.bare, pattern, 0);
	symname__free(&n);
	free(pattern);
	free(raw);
	return 0;
}
