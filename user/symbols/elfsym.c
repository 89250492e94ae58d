// SPDX-License-Identifier: GPL-2.0
/*
 * elfsym.c - read an ELF object's function symbols with libelf and map
 * each address to the file offset a uprobe needs (through the PT_LOAD
 * segments). Works for PIE and non-PIE executables and shared libraries;
 * a stripped object can adopt the symbols of its separate debug file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/debugfile.h"
#include "symbols/elfsym.h"

#define MW_MAX_SEGMENTS 64

struct mw_elf {
	int fd, debug_fd;
	Elf *elf, *debug_elf;
	GElf_Phdr loads[MW_MAX_SEGMENTS];
	size_t nloads;
	struct mw_sym *syms;
	size_t nsyms, cap;
	bool has_symtab;
};

static uint64_t vaddr_to_offset(const struct mw_elf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const GElf_Phdr *p = &e->loads[i];

		if (vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz)
			return vaddr - p->p_vaddr + p->p_offset;
	}
	return 0;
}

static int read_segments(struct mw_elf *e)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n && e->nloads < MW_MAX_SEGMENTS; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD)
			e->loads[e->nloads++] = ph;
	}
	return 0;
}

static int push_sym(struct mw_elf *e, const struct mw_sym *s)
{
	if (e->nsyms == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 1024;
		struct mw_sym *nv = realloc(e->syms, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		e->syms = nv;
		e->cap = ncap;
	}
	e->syms[e->nsyms++] = *s;
	return 0;
}

/* Appends the defined functions of every symbol table of type @type. */
static int read_symtab(struct mw_elf *e, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		if (type == SHT_SYMTAB)
			e->has_symtab = true;
		if (sh.sh_entsize != sizeof(Elf64_Sym))
			continue;	/* bogus: skip rather than misread */
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = data->d_size / sizeof(Elf64_Sym);
		for (size_t i = 0; i < n; i++) {
			struct mw_sym s = { 0 };
			GElf_Sym sym;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			s.name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!s.name || !*s.name)
				continue;
			s.vaddr = sym.st_value;
			s.size = sym.st_size;
			s.offset = vaddr_to_offset(e, sym.st_value);
			s.bind = GELF_ST_BIND(sym.st_info);
			s.dynamic = type == SHT_DYNSYM;
			if (push_sym(e, &s))
				return -ENOMEM;
		}
	}
	return 0;
}

/* An executable or shared object for this machine: probes hold x86-64
 * breakpoints and the BPF side reads x86-64 registers. */
static bool runs_here(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getclass(elf) == ELFCLASS64 && gelf_getehdr(elf, &eh) &&
	       eh.e_machine == EM_X86_64 &&
	       (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
}

static int open_elf(const char *path, int *fd, Elf **elf)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF || !runs_here(*elf)) {
		if (*elf)
			elf_end(*elf);
		close(*fd);
		*fd = -1;
		*elf = NULL;
		return -ENOEXEC;
	}
	return 0;
}

int elfsym__open(const char *path, struct mw_elf **out)
{
	struct mw_elf *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->debug_fd = -1;
	err = open_elf(path, &e->fd, &e->elf);
	if (err) {
		free(e);
		return err;
	}
	err = read_segments(e);
	if (!err)
		err = read_symtab(e, e->elf, SHT_SYMTAB);
	if (!err)
		err = read_symtab(e, e->elf, SHT_DYNSYM);
	if (err) {
		elfsym__close(e);
		return err;
	}
	*out = e;
	return 0;
}

uint64_t elfsym__data_vaddr(const struct mw_elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    sh.sh_entsize != sizeof(Elf64_Sym) || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < data->d_size / sizeof(Elf64_Sym); i++) {
			const char *n;
			GElf_Sym sym;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e->elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

long elfsym__section(const struct mw_elf *e, const char *name, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *n;
		Elf_Data *data;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e->elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		if (sh.sh_type == SHT_NOBITS || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			return 0;
		k = data->d_size < len ? data->d_size : len;
		memcpy(buf, data->d_buf, k);
		return (long)k;
	}
	return -ENOENT;
}

static int build_id_of(Elf *elf, char *buf, size_t len);

int elfsym__add_debug(struct mw_elf *e, const char *debug_path)
{
	char want[128], got[128];
	int err;

	if (e->debug_elf)
		return -EEXIST;
	err = open_elf(debug_path, &e->debug_fd, &e->debug_elf);
	if (err)
		return err;
	/* a debug file of another build would give wrong offsets */
	if (!build_id_of(e->elf, want, sizeof(want)) &&
	    (build_id_of(e->debug_elf, got, sizeof(got)) || strcmp(want, got)))
		return -ESTALE;
	return read_symtab(e, e->debug_elf, SHT_SYMTAB);
}

void elfsym__close(struct mw_elf *e)
{
	if (!e)
		return;
	if (e->debug_elf)
		elf_end(e->debug_elf);
	if (e->debug_fd >= 0)
		close(e->debug_fd);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->syms);
	free(e);
}

bool elfsym__has_symtab(const struct mw_elf *e)
{
	return e->has_symtab;
}

size_t elfsym__count(const struct mw_elf *e)
{
	return e->nsyms;
}

const struct mw_sym *elfsym__at(const struct mw_elf *e, size_t i)
{
	return i < e->nsyms ? &e->syms[i] : NULL;
}

const struct mw_sym *elfsym__find(const struct mw_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(e->syms[i].name, name) && e->syms[i].offset)
			return &e->syms[i];
	return NULL;
}

static int build_id_of(Elf *elf, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
			const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
				continue;
			if (nh.n_descsz == 0 || len < nh.n_descsz * 2 + 1)
				return -ENOSPC;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", d[i]);
			return 0;
		}
	}
	return -ENOENT;
}

int elfsym__build_id(const struct mw_elf *e, char *buf, size_t len)
{
	return build_id_of(e->elf, buf, len);
}

const struct mw_sym *elfsym__at_offset(const struct mw_elf *e, uint64_t offset,
				       uint64_t *into)
{
	const struct mw_sym *best = NULL;

	for (size_t i = 0; i < e->nsyms; i++) {
		const struct mw_sym *s = &e->syms[i];

		if (!s->offset || s->offset > offset)
			continue;
		if (s->size && offset - s->offset >= s->size)
			continue;
		/* sized symbols win over unsized ones; then the nearest */
		if (!best || (s->size && !best->size) ||
		    (!!s->size == !!best->size && s->offset > best->offset))
			best = s;
	}
	if (best)
		*into = offset - best->offset;
	return best;
}

uint64_t elfsym__bias(const struct mw_elf *e, uint64_t start, uint64_t offset, bool *ok)
{
	const GElf_Phdr *best = NULL;

	/* a page may hold the end of one segment and the start of the next
	 * (lld, rustc): the mapping is of the one that starts latest there */
	for (size_t i = 0; i < e->nloads; i++) {
		const GElf_Phdr *p = &e->loads[i];
		uint64_t from = p->p_offset & ~0xfffull;

		if (offset >= from && offset < p->p_offset + p->p_filesz &&
		    (!best || p->p_offset > best->p_offset))
			best = p;
	}
	*ok = best != NULL;
	return best ? start - offset + best->p_offset - best->p_vaddr : 0;
}

uint64_t elfsym__vaddr_to_offset(const struct mw_elf *e, uint64_t vaddr)
{
	return vaddr_to_offset(e, vaddr);
}

uint64_t elfsym__offset_to_vaddr(const struct mw_elf *e, uint64_t offset)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const GElf_Phdr *p = &e->loads[i];

		if (offset >= p->p_offset && offset - p->p_offset < p->p_filesz)
			return offset - p->p_offset + p->p_vaddr;
	}
	return 0;
}

void elfsym__adopt_debug(struct mw_elf *elf, const char *root)
{
	char id[128], paths[MW_DEBUG_CANDIDATES][PATH_MAX];
	int n;

	if (elfsym__has_symtab(elf) || elfsym__build_id(elf, id, sizeof(id)))
		return;
	n = debugfile__candidates(root, id, paths);
	for (int i = 0; i < n; i++)
		if (elfsym__add_debug(elf, paths[i]) == 0)	/* checks the build-id */
			return;
}
