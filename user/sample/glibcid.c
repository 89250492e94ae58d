// SPDX-License-Identifier: GPL-2.0
/*
 * glibcid.c - the libc a target maps, identified from outside: its build-id
 * (from the file's PT_NOTE, checked against the bytes in the target), its
 * version's safe-linking, and the debug file that describes that build
 * (debugfile.h's candidates, then the libc itself), handed to glibclayout.c.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include "symbols/debugfile.h"
#include "sample/glibcid.h"
#include "sample/glibcmem.h"

#define PAGE_SIZE_MIN	4096ull

/* -------------------------------------------------------- the libc object */

static int note_build_id(Elf *elf, const GElf_Phdr *ph, struct mw_libc_id *id)
{
	Elf_Data *d = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz,
					   ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return -ENOENT;
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
		    nh.n_descsz == 0 || nh.n_descsz > MW_GLIBC_MAX_BUILD_ID)
			continue;
		memcpy(id->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
		id->build_id_len = nh.n_descsz;
		id->build_id_vaddr = ph->p_vaddr + desc_off;
		return 0;
	}
	return -ENOENT;
}

int glibcid__identify(Elf *elf, struct mw_libc_id *id)
{
	uint64_t lowest = UINT64_MAX;
	int err = -ENOENT;
	GElf_Phdr ph;
	size_t n;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
			lowest = ph.p_vaddr;
		if (ph.p_type == PT_NOTE && err)
			err = note_build_id(elf, &ph, id);
	}
	if (lowest == UINT64_MAX)
		return -ENOEXEC;
	id->first_vaddr = lowest & ~(PAGE_SIZE_MIN - 1);
	return err;
}

int glibcid__check_mapped(pid_t pid, const struct mw_libc_id *id, uint64_t bias)
{
	unsigned char mapped[MW_GLIBC_MAX_BUILD_ID];
	uint64_t at = bias + id->build_id_vaddr;
	int err;

	if (!memory__range_ok(at, id->build_id_len))
		return -EINVAL;
	err = memory__read(pid, at, mapped, id->build_id_len);
	if (err)
		return err == -EFAULT ? -ESTALE : err;
	return memcmp(mapped, id->build_id, id->build_id_len) ? -ESTALE : 0;
}

bool glibcid__safe_linking(pid_t pid, uint64_t version_addr)
{
	char v[16] = "";
	unsigned major, minor;

	if (!version_addr || memory__read(pid, version_addr, v, sizeof(v) - 1) ||
	    sscanf(v, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 2 || (major == 2 && minor >= 32);
}

/* ---------------------------------------------------------- debug file */

/* The layouts from @elf's DWARF, if @elf is the debug file of @id (or
 * carries its own DWARF). -ENOENT: no DWARF or another build; -ENODATA:
 * DWARF without glibc's malloc in it. */
static int layouts_from(Elf *elf, const struct mw_libc_id *id,
			struct mw_glibc_layout *l, struct mw_glibc_vars *v)
{
	const void *bid;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);

	if (n != (ssize_t)id->build_id_len || memcmp(bid, id->build_id, (size_t)n))
		return -ENOENT;
	return glibclayout__read(elf, l, v);
}

static int layouts_from_path(const char *path, const struct mw_libc_id *id,
			     struct mw_glibc_layout *l, struct mw_glibc_vars *v)
{
	int fd = glibcmem__open_regular(path);
	Elf *elf;
	int err;

	if (fd < 0)
		return -ENOENT;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? layouts_from(elf, id, l, v) : -ENOENT;
	elf_end(elf);
	close(fd);
	return err;
}

/*
 * Layouts read from the host's own debug files, by build-id: reading one
 * walks the libc's DWARF (60-100 ms here), and every process of a
 * follow mode or a prefork server maps the same libc; a process found
 * while others queue for their attach would wait that long each. Only
 * the host's file is remembered: one under a target's root is that
 * container's word, not to be handed to another. A build-id names one
 * build, so an entry never goes stale. One thread (the main loop) uses it.
 */
#define MW_LAYOUT_CACHE 8

static struct {
	unsigned char build_id[MW_GLIBC_MAX_BUILD_ID];
	size_t build_id_len;
	struct mw_glibc_layout l;
	struct mw_glibc_vars v;
} cache[MW_LAYOUT_CACHE];
static int ncached, next_slot;
static unsigned long dwarf_reads;

static bool cached(const struct mw_libc_id *id, struct mw_glibc_layout *l,
		   struct mw_glibc_vars *v)
{
	for (int i = 0; i < ncached; i++)
		if (cache[i].build_id_len == id->build_id_len &&
		    !memcmp(cache[i].build_id, id->build_id, id->build_id_len)) {
			*l = cache[i].l;
			*v = cache[i].v;
			return true;
		}
	return false;
}

static void remember(const struct mw_libc_id *id, const struct mw_glibc_layout *l,
		     const struct mw_glibc_vars *v)
{
	int i = ncached < MW_LAYOUT_CACHE ? ncached++ : next_slot++ % MW_LAYOUT_CACHE;

	memcpy(cache[i].build_id, id->build_id, id->build_id_len);
	cache[i].build_id_len = id->build_id_len;
	cache[i].l = *l;
	cache[i].v = *v;
}

unsigned long glibcid__dwarf_reads(void)
{
	return dwarf_reads;
}

int glibcid__find_layouts(Elf *libc, const struct mw_libc_id *id, const char *root,
			  struct mw_glibc_layout *l, struct mw_glibc_vars *v)
{
	char hex[2 * MW_GLIBC_MAX_BUILD_ID + 1], paths[MW_DEBUG_CANDIDATES][PATH_MAX];
	int err, best = -ENOENT, n;

	if (cached(id, l, v))
		return 0;
	hex[0] = '\0';
	for (size_t i = 0; i < id->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id->build_id[i]);
	n = debugfile__candidates(root, hex, paths);
	for (int i = 0; i < n; i++) {
		dwarf_reads++;
		err = layouts_from_path(paths[i], id, l, v);
		if (!err && i == 0)	/* the host's: "" is candidate 0 */
			remember(id, l, v);
		if (!err)
			return 0;
		if (err == -ENODATA)
			best = err;
	}
	err = layouts_from(libc, id, l, v);
	return err == -ENOENT ? best : err;
}
