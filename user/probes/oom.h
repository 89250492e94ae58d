/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oom.h - the request size from which no allocation can succeed in a
 * target. A throwing operator new of that size throws, and memwatch must
 * not give that call a return probe (see memwatch.bpf.c).
 */
#ifndef MW_OOM_H
#define MW_OOM_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "memwatch.h"

/* The user address space of x86-64 (mmap stays below it by default). */
#define MW_ADDRESS_SPACE	(1ull << 47)

/*
 * The smallest sizes no allocation of @pid can reach, into @fits: for any
 * allocator, the address space, its soft RLIMIT_AS and, under strict
 * overcommit (vm.overcommit_memory=2), the commit limit; for one whose
 * mappings reserve memory, also RAM plus swap under the default heuristic
 * (mode 0), which refuses larger mappings. Returns what also makes smaller
 * requests fail at times (an address-space limit, strict overcommit), or
 * NULL.
 */
const char *oom__never_fits(pid_t pid, struct mw_fits *fits);

/* Parsers, for the tests: the soft "Max address space" of a
 * /proc/PID/limits text (UINT64_MAX: unlimited or absent), and a
 * /proc/meminfo field in bytes (0: absent). */
uint64_t oom__parse_limits(FILE *f);
uint64_t oom__parse_meminfo(FILE *f, const char *field);

#endif
