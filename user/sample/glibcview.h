/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glibcview.h - glibc's own view of a target's heap, from outside: the
 * figures mallinfo2() would report, computed by reading the target's
 * allocator state (main_arena, the arena ring, mp_) with process_vm_readv.
 * Layouts and addresses come from the libc's DWARF (libc6-dbg), never from
 * hard-coded offsets; the target pays nothing and may be hostile.
 */
#ifndef MW_GLIBCVIEW_H
#define MW_GLIBCVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds of one walk: arenas in the ring, chunks in one bin or fastbin. */
#define MW_GLIBC_MAX_ARENAS		1024
#define MW_GLIBC_MAX_CHUNKS_PER_BIN	(1u << 20)
/* Extra walks of an arena that changed under the first one. */
#define MW_GLIBC_RETRIES		3

struct mw_glibc_sample {
	uint64_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks,
		 uordblks, fordblks, keepcost;	/* as struct mallinfo2 */
	uint64_t arenas;		/* number of arenas in the ring */
	uint64_t mmap_threshold, trim_threshold; /* mp_, current (dynamic) values */
	double fragmentation;		/* fordblks / arena, 0 if arena == 0 */
	bool consistent;		/* false: the lists changed under the walk even after retries */
};

struct mw_glibcview;

/* Locates main_arena and mp_ through the target libc's separate debug file
 * (found by build-id: the host's /usr/lib/debug/.build-id/xx/yyyy.debug, then
 * the same under <root>, whose files the target controls; Debian's libc6-dbg
 * provides it; a libc that keeps its own DWARF serves too) and takes the
 * layouts of struct malloc_state, malloc_chunk, malloc_par from its DWARF
 * with elfutils' libdw. Only regular files are opened.
 * @pid: the target; @root: "/proc/PID/root" (NULL or "": @libc_path is
 * opened as given); @libc_path: the libc file as the target maps it (e.g.
 * /usr/lib/x86_64-linux-gnu/libc.so.6); @libc_base: the load address (start
 * of the mapping with file offset 0) in the target.
 * 0; -ENOENT when no debug file (print nothing: the caller says "install
 * libc6-dbg"); -ENODATA when the debug file does not describe glibc's
 * malloc (no main_arena or mp_: not glibc); -ESTALE when the libc file's
 * build-id is not the one mapped at @libc_base (replaced on disk); other
 * -errno on failure. Prints nothing. */
int glibcview__open(struct mw_glibcview **out, pid_t pid, const char *root,
		    const char *libc_path, uint64_t libc_base);

/* One walk: every arena in the ring from main_arena (next pointers), their
 * bins, fastbins, top chunk, and mp_, computing what glibc's mallinfo2
 * computes (tcache blocks count as in use). Bounded (MW_GLIBC_MAX_*); every
 * pointer is checked before it is followed; an arena that changed under the
 * walk (its lock held, its header different when read again, a list whose
 * links disagree) is walked again up to MW_GLIBC_RETRIES times, after which
 * the sample keeps the last figures (free bytes clamped to the arena's) with
 * consistent = false. 0, or -errno (-ESRCH: the target has exited; -EPERM;
 * -ESTALE: mp_ is no longer mapped, e.g. the target exec'd). */
int glibcview__read(struct mw_glibcview *g, struct mw_glibc_sample *out);

void glibcview__close(struct mw_glibcview *g);

#endif
