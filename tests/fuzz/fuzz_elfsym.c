// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_elfsym.c - libFuzzer harness for the ELF symbol reader. The input is
 * written to a memfd and opened through /proc/self/fd/N, as a target's
 * object would be; then every symbol, the lookup, the build-id and the
 * debug-file adoption (the same bytes) run over it. A hostile object must
 * never crash memwatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbols/elfsym.h"

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz_elfsym", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

/* Replaces the memfd's contents with @data. */
static void put(const uint8_t *data, size_t size)
{
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("memfd");
		abort();
	}
}

/* Touches every symbol's fields, so a name pointing out of bounds shows. */
static void walk(const struct mw_elf *e)
{
	size_t n = elfsym__count(e), total = 0;

	for (size_t i = 0; i <= n; i++) {
		const struct mw_sym *s = elfsym__at(e, i);

		if (!s)
			break;
		total += strlen(s->name) + s->bind + s->dynamic;
	}
	if (n) {
		elfsym__find(e, elfsym__at(e, 0)->name);
		elfsym__find(e, elfsym__at(e, n - 1)->name);
	}
	elfsym__find(e, "main");
	/* keep the sum alive */
	__asm__ volatile("" : : "r"(total));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_elf *e;
	char id[128], small[9];

	put(data, size);
	if (elfsym__open(path, &e))
		return 0;
	elfsym__has_symtab(e);
	walk(e);
	elfsym__build_id(e, id, sizeof(id));
	elfsym__build_id(e, small, sizeof(small));
	if (!elfsym__add_debug(e, path))
		walk(e);
	elfsym__close(e);
	return 0;
}
