// SPDX-License-Identifier: GPL-2.0
/*
 * test_placement_libs.c - placement over Debian's real allocators: every
 * entry point memwatch probes in libc, libstdc++, libjemalloc,
 * libtcmalloc_minimal and libmimalloc must land on an instruction the
 * kernel emulates. Judged by the kernel's list as written here from
 * arch/x86/kernel/uprobes.c (Linux 6.18), not by placement.c's own
 * predicate. The only exemptions are those the design cannot avoid: a
 * return probe whose function moves the stack pointer first, and glibc's
 * reallocarray, whose first instructions multiply its two counts away.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probes/allocator.h"
#include "process/objects.h"
#include "probes/probes.h"
#include "process/procmaps.h"
#include "process/target.h"

#define LIBDIR "/usr/lib/x86_64-linux-gnu/"

/* The kernel's emulated instructions, as byte patterns: @n bytes of @b
 * under @mask (a 0 bit: any value). */
static const struct { unsigned n; uint8_t b[8], mask[8]; } kernel_list[] = {
	{ 1, { 0x90 }, { 0xff } },					/* nop */
	{ 2, { 0x66, 0x90 }, { 0xff, 0xff } },
	{ 3, { 0x0f, 0x1f, 0x00 }, { 0xff, 0xff, 0xff } },		/* canonical nops */
	{ 4, { 0x0f, 0x1f, 0x40, 0x00 }, { 0xff, 0xff, 0xff, 0xff } },
	{ 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, { 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ 1, { 0x50 }, { 0xf8 } },					/* push reg */
	{ 2, { 0x41, 0x50 }, { 0xff, 0xf8 } },				/* push r8-r15 */
	{ 1, { 0xe8 }, { 0xff } }, { 1, { 0xe9 }, { 0xff } },		/* call, jmp */
	{ 1, { 0xeb }, { 0xff } }, { 1, { 0x70 }, { 0xf0 } },		/* jmp8, jcc8 */
	{ 2, { 0x0f, 0x80 }, { 0xff, 0xf0 } },				/* jcc32 */
	{ 2, { 0xf2, 0xe9 }, { 0xff, 0xff } },				/* bnd jmp */
};

static bool kernel_emulates(const uint8_t *c)
{
	for (size_t k = 0; k < sizeof(kernel_list) / sizeof(kernel_list[0]); k++) {
		unsigned i;

		for (i = 0; i < kernel_list[k].n; i++)
			if ((c[i] & kernel_list[k].mask[i]) != kernel_list[k].b[i])
				break;
		if (i == kernel_list[k].n)
			return true;
	}
	return false;
}

/* The probes allocator.c adds for @family with @libs mapped (and libc). */
static void check_family(const char *family, const char *const libs[])
{
	struct mw_target t = { .pid = getpid(), .root = "" };
	struct mw_probe_table tab = { 0 };
	struct mw_objects objs = { 0 };
	char text[4096] = "";
	struct mw_maps maps;
	size_t used = 0;
	FILE *f;
	int stepped = 0;

	for (int i = 0; libs[i]; i++) {
		if (access(libs[i], R_OK))
			cr_skip_test("%s not installed", libs[i]);
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "7f%02x00000000-7f%02x00800000 r-xp 00000000 08:01 %d %s\n",
					 i, i, 100 + i, libs[i]);
	}
	f = fmemopen(text, strlen(text), "r");
	cr_assert(f && !procmaps__parse(f, &maps), "the maps parse");
	fclose(f);
	cr_assert_eq(objects__open(&t, &maps, &objs), 0, "the objects open");
	cr_assert_gt(allocator__resolve(&t, &objs, family, &tab), 0, "%s's entry points", family);
	for (size_t i = 0; i < tab.n; i++) {
		const struct mw_probe *p = &tab.v[i];
		uint8_t code[16] = { 0 };
		int fd = open(p->path, O_RDONLY);
		bool exempt = p->at.why == MW_STEP_RETURN ||
			      (!strcmp(family, "glibc") && !strcmp(p->what, "reallocarray"));

		cr_assert(fd >= 0 && pread(fd, code, sizeof(code), (off_t)p->offset) > 0,
			  "%s's code reads", p->what);
		close(fd);
		if (kernel_emulates(code))
			continue;
		stepped++;
		cr_log_info("%s: %s at +%llu stays single-stepped (%s)", family, p->what,
			    (unsigned long long)p->at.shift, p->at.insn);
		cr_expect(exempt, "%s in %s lands on a single-stepped instruction (%02x %02x %02x), why %d: %s",
			  p->what, p->path, code[0], code[1], code[2], p->at.why, p->at.insn);
		cr_expect(p->at.stepped, "and placement knows it: %s", p->what);
	}
	cr_expect_eq((size_t)stepped, tab.stepped, "%s: the table counts what the kernel steps", family);
	probes__free(&tab);
	objects__close(&objs);
	procmaps__free(&maps);
}

Test(placement_libs, glibc_and_libstdcxx)
{
	const char *const libs[] = { LIBDIR "libc.so.6", LIBDIR "libstdc++.so.6", NULL };

	check_family("glibc", libs);
}

Test(placement_libs, jemalloc)
{
	const char *const libs[] = { LIBDIR "libjemalloc.so.2", LIBDIR "libc.so.6", NULL };

	check_family("jemalloc", libs);
}

Test(placement_libs, tcmalloc)
{
	const char *const libs[] = { LIBDIR "libtcmalloc_minimal.so.4", LIBDIR "libc.so.6", NULL };

	check_family("tcmalloc", libs);
}

Test(placement_libs, mimalloc)
{
	const char *const libs[] = { LIBDIR "libmimalloc.so.2", LIBDIR "libc.so.6", NULL };

	check_family("mimalloc", libs);
}
