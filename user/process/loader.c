// SPDX-License-Identifier: GPL-2.0
/* loader.c - find a process's dynamic loader hook and its r_debug. */
#include <errno.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "process/loader.h"
#include "memwatch.h"

#define HOOK	"_dl_debug_state"
#define R_DEBUG	"_r_debug"

/* AT_BASE from /proc/PID/auxv: the interpreter's load address, 0 if none. */
static int at_base(pid_t pid, uint64_t *base)
{
	char path[64];
	Elf64_auxv_t v[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, v, sizeof(v));
	close(fd);
	if (n < 0)
		return -errno;
	*base = 0;
	for (size_t i = 0; i < (size_t)n / sizeof(v[0]) && v[i].a_type != AT_NULL; i++)
		if (v[i].a_type == AT_BASE)
			*base = v[i].a_un.a_val;
	return 0;
}

/* The mapping that contains @addr. */
static const struct mw_mapping *mapping_at(const struct mw_maps *maps, uint64_t addr)
{
	for (size_t i = 0; i < maps->n; i++)
		if (addr >= maps->v[i].start && addr < maps->v[i].end)
			return &maps->v[i];
	return NULL;
}

/* Where @o's link-time address @vaddr is in the process: its first
 * mapping's start, less the link-time address of that mapping's offset. */
static uint64_t runtime_addr(const struct mw_maps *maps, const struct mw_object *o,
			     uint64_t vaddr)
{
	const struct mw_mapping *m = procmaps__find_path(maps, o->shown);

	if (!m || !vaddr)
		return 0;
	return m->start + vaddr - elfsym__offset_to_vaddr(o->elf, m->offset);
}

int loader__find(const struct mw_target *t, const struct mw_maps *maps,
		 const struct mw_objects *objs, struct mw_loader_info *out)
{
	const struct mw_object *cand[2] = { NULL, objs->n ? &objs->v[0] : NULL };
	const struct mw_mapping *m;
	uint64_t base;
	int err = at_base(t->pid, &base);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	if (base && (m = mapping_at(maps, base))) {
		out->dynamic = true;
		cand[0] = objects__find(objs, m->path);
	}
	for (int i = 0; i < 2 && !out->obj; i++) {
		const struct mw_sym *s = cand[i] ? elfsym__find(cand[i]->elf, HOOK) : NULL;

		if (!s)
			continue;
		out->obj = cand[i];
		out->hook_offset = s->offset;
		out->r_debug = runtime_addr(maps, cand[i],
					    elfsym__data_vaddr(cand[i]->elf, R_DEBUG));
	}
	return 0;
}

/*
 * glibc's loader makes r_debug RT_CONSISTENT when it sets it up, before
 * it turns RT_ADD to map the startup objects: consistent with nothing
 * but the executable and the loader mapped is that moment (its hook
 * follows), not the end of loading.
 */
bool loader__consistent(const struct mw_target *t, uint64_t r_debug)
{
	struct mw_maps maps;
	size_t files = 0;

	struct { int32_t version; int32_t pad; uint64_t map, brk; int32_t state; } r;
	struct iovec local = { &r, sizeof(r) };
	struct iovec remote = { (void *)(uintptr_t)r_debug, sizeof(r) };

	_Static_assert(__builtin_offsetof(__typeof__(r), state) == MW_R_STATE_OFFSET,
		       "r_state where the BPF hook reads it");
	if (!r_debug || process_vm_readv(t->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(r))
		return false;
	if (r.version == 0 || r.state != MW_RT_CONSISTENT || procmaps__load(t->pid, &maps))
		return false;
	for (size_t i = 0; i < maps.n; i++)
		files += maps.v[i].inode && maps.v[i].path[0] == '/' &&
			 procmaps__find_path(&maps, maps.v[i].path) == &maps.v[i];
	procmaps__free(&maps);
	return files > 2;
}
