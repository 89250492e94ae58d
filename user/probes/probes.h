/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probes.h - the probe table: every uprobe memwatch will attach, resolved
 * to a file and offset, before anything is attached. Built by allocator.c
 * (heap probes), structs.c (structure functions), roots.c (the drops of
 * --read roots) and unwind.c (exception handlers); attached by attach.c.
 */
#ifndef MW_PROBES_H
#define MW_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "probes/placement.h"

enum mw_prog {
	MW_PROG_ALLOC,		/* alloc_enter, or with a return a session
				 * (attach.c: alloc_session, malloc_session) */
	MW_PROG_ALLOC_SESSION,	/* a throwing one: always a session, whose
				 * entry declines the return of a call that
				 * must fail */
	MW_PROG_STRUCT,		/* struct_enter [+ struct_return] */
	MW_PROG_STRUCT_EXIT,	/* struct_exit, on a return instruction */
	MW_PROG_ROOT_DROP,	/* root_drop, on the drop of a --read root's type */
	MW_PROG_HANDLER,	/* unwind_handler, on a personality routine */
	MW_PROG_THREAD_EXIT,	/* thread_exit, on glibc's __libc_thread_freeres */
	MW_PROG_LOADER,		/* loader_hook, on the dynamic loader's
				 * _dl_debug_state: rare, left where it is */
};

struct mw_probe {
	char *path;		/* the object, through /proc/PID/root */
	uint64_t offset;	/* file offset of the probed instruction */
	uint64_t size;		/* bytes of its function (0: unknown) */
	uint64_t cookie;	/* enum mw_op, or the structure cookie */
	enum mw_prog prog;
	bool retprobe;		/* also attach the return program */
	char *what;		/* symbol, for messages */
	struct mw_placement at;	/* where, past the function's start */
};

struct mw_probe_table {
	struct mw_probe *v;
	size_t n, cap;
	bool at_entry;		/* --probe-entry: never move a probe */
	size_t shifted;		/* probes moved past single-stepped code */
	size_t stepped;		/* probes left on a single-stepped instruction */
};

/*
 * Adds a probe on the function at @path+@offset, @size bytes long, whose
 * arguments are where @abi says (NULL: System V's), unless one of the
 * same program is already there. Unless the table is at_entry, the probe
 * moves to the first instruction the kernel emulates when the entry's
 * state stays recoverable for what its program reads (placement.h; a
 * probe on a return instruction, MW_PROG_STRUCT_EXIT, never moves); Go
 * code is probed past its stack check, at_entry or not. Exported names
 * that share an address get one probe; structure probes differ by cookie
 * too. Returns 1 if added, 0 if it was a duplicate, -ENOMEM, or -EDOM
 * when Go code overwrites an argument read before its stack check.
 */
int probes__add(struct mw_probe_table *t, const char *path, uint64_t offset,
		uint64_t size, uint64_t cookie, enum mw_prog prog, bool retprobe,
		const struct mw_abi *abi, const char *what);
/* The same for a probe that must stay at @path+@offset, on an instruction
 * inside a function (an inlined copy's entry): never moved; single-stepped
 * unless the kernel emulates that instruction. */
int probes__add_here(struct mw_probe_table *t, const char *path, uint64_t offset,
		     uint64_t cookie, enum mw_prog prog, const struct mw_abi *abi,
		     const char *what);
/* Takes out the structure probes of the structures in @ids (a bit per
 * id): their probes were detached for good (--max-overhead). */
void probes__drop_structs(struct mw_probe_table *t, uint64_t ids);
void probes__free(struct mw_probe_table *t);

#endif
