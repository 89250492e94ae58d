/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibcid.h - which libc a target maps and where its DWARF is: the libc
 * file's build-id, checked against the bytes the target has mapped; whether
 * its version hides list pointers (safe-linking); and its debug file, found
 * in debugfile.h's trust order, from which glibclayout.h reads the layouts.
 */
#ifndef MW_GLIBCID_H
#define MW_GLIBCID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libelf.h>
#include "sample/glibclayout.h"

#define MW_GLIBC_MAX_BUILD_ID	64

struct mw_libc_id {
	unsigned char build_id[MW_GLIBC_MAX_BUILD_ID];
	size_t build_id_len;
	uint64_t build_id_vaddr;	/* link-time address of the build-id bytes */
	uint64_t first_vaddr;		/* page of the lowest PT_LOAD */
};

/* The build-id of the libc file @elf and where its bytes and its first
 * page load. 0; -ENOENT: no build-id (so no way to find its debug file);
 * -ENOEXEC: not an ELF object with a PT_LOAD. */
int glibcid__identify(Elf *elf, struct mw_libc_id *id);

/* The build-id bytes in the target at @bias must be the file's: else the
 * file on disk was replaced, or the load address is not this libc's. 0;
 * -EINVAL: they would lie outside user space; -ESTALE: not mapped there, or
 * other bytes; other -errno: cannot read the target. */
int glibcid__check_mapped(pid_t pid, const struct mw_libc_id *id, uint64_t bias);

/* The version in the target's __libc_version at @version_addr (run time;
 * 0: unknown) has safe-linking: 2.32 on. Assumed on when unknown: every
 * glibc of the last years has it. */
bool glibcid__safe_linking(pid_t pid, uint64_t version_addr);

/* Fills @l and @v from the DWARF of @libc's build: its debug files
 * (debugfile.h: the host's first, then under @root, which may be NULL or
 * ""), then @libc itself (an unstripped build). 0; -ENOENT if none has
 * DWARF for this build; -ENODATA if one has DWARF but no glibc malloc
 * state. */
int glibcid__find_layouts(Elf *libc, const struct mw_libc_id *id, const char *root,
			  struct mw_glibc_layout *l, struct mw_glibc_vars *v);
/* Debug files read for their DWARF so far: a build found in the host's
 * debug file once is not read again (for tests). */
unsigned long glibcid__dwarf_reads(void);

#endif
