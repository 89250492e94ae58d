// SPDX-License-Identifier: GPL-2.0
/*
 * oom.c - when an allocation must fail. Linux refuses a mapping larger
 * than the user address space, than the process's RLIMIT_AS, or than the
 * overcommit rule allows: under strict accounting (vm.overcommit_memory=2)
 * one larger than CommitLimit; under the default heuristic (0) one larger
 * than RAM plus swap, unless it is mapped MAP_NORESERVE (which jemalloc
 * and mimalloc do when the kernel overcommits; measured here: a new of
 * RAM + 1 GiB succeeds on both, fails on glibc and tcmalloc). No allocator
 * can hand out a block it could not map.
 */
#include <stdlib.h>
#include <string.h>
#include "probes/oom.h"

uint64_t oom__parse_limits(FILE *f)
{
	char line[256], soft[64];

	while (fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long v;

		if (strncmp(line, "Max address space", 17) ||
		    sscanf(line + 17, "%63s", soft) != 1)
			continue;
		v = strtoull(soft, &end, 10);
		return *end || end == soft ? UINT64_MAX : v;	/* "unlimited" */
	}
	return UINT64_MAX;
}

uint64_t oom__parse_meminfo(FILE *f, const char *field)
{
	char line[256];
	size_t len = strlen(field);
	unsigned long long kb;

	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%llu", &kb) == 1)
			return kb * 1024;
	return 0;
}

static uint64_t read_with(const char *path, const char *field)
{
	FILE *f = fopen(path, "re");
	uint64_t v;

	if (!f)
		return field ? 0 : UINT64_MAX;
	v = field ? oom__parse_meminfo(f, field) : oom__parse_limits(f);
	fclose(f);
	return v;
}

static int overcommit_mode(void)
{
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "re");
	int mode = 0;

	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = 0;
		fclose(f);
	}
	return mode;
}

const char *oom__never_fits(pid_t pid, struct mw_fits *fits)
{
	const char *why = NULL;
	uint64_t limit, v;
	char path[64];
	int mode = overcommit_mode();

	fits->any = MW_ADDRESS_SPACE;
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	limit = read_with(path, NULL);
	if (limit < fits->any) {
		fits->any = limit;
		why = "it has an address-space limit (ulimit -v)";
	}
	if (mode == 2) {	/* counts MAP_NORESERVE mappings too */
		v = read_with("/proc/meminfo", "CommitLimit");
		if (v && v < fits->any)
			fits->any = v;
		why = "the kernel accounts memory strictly (vm.overcommit_memory=2)";
	}
	fits->reserved = fits->any;
	if (mode == 0) {	/* refused: more pages than RAM + swap */
		v = read_with("/proc/meminfo", "MemTotal") +
		    read_with("/proc/meminfo", "SwapTotal") + 1;
		if (v > 1 && v < fits->reserved)
			fits->reserved = v;
	}
	return why;
}
