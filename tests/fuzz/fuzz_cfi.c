// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cfi.c - libFuzzer harness for the unwind-table builder. The input
 * is an ELF object, written to a memfd and opened through
 * /proc/self/fd/N as a target's object would be; its table is built
 * (.eh_frame_hdr's search table, libdw's CFI interpreter), checked sorted,
 * and looked up at every row and between them. A hostile object must
 * never crash memwatch, nor make it allocate without bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "stacks/cfi.h"

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_cfi t;

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("memfd");
		abort();
	}
	if (cfi__build(path, &t))
		return 0;
	for (size_t i = 0; i < t.n; i++) {
		if (i && t.rows[i].pc <= t.rows[i - 1].pc)
			abort();	/* unsorted: a lookup would miss */
		cfi__find(&t, t.rows[i].pc);
		cfi__find(&t, t.rows[i].pc - 1);
	}
	cfi__find(&t, 0);
	cfi__find(&t, UINT64_MAX);
	cfi__free(&t);
	return 0;
}
