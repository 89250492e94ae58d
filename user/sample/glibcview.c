// SPDX-License-Identifier: GPL-2.0
/*
 * glibcview.c - mallinfo2()'s figures for another process, read from
 * outside. Opening finds the libc's debug file by build-id and takes the
 * addresses of main_arena, mp_ and __libc_version and the layouts of struct
 * malloc_state, malloc_chunk and malloc_par from its DWARF (libdw); reading
 * walks the arena ring with process_vm_readv, checking every pointer and
 * link, since the target keeps running and its memory is not to be trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include "debugfile.h"
#include "glibcview.h"

#define MAX_BUILD_ID	64
#define PAGE_SIZE_MIN	4096ull
/* Lowest and one past the highest user address this file follows (x86-64,
 * generous enough for 5-level paging); sizes above it are garbage too. */
#define USER_ADDR_MIN	4096ull
#define USER_ADDR_END	(1ull << 56)
/* safe-linking (glibc 2.32+) hides fastbin and tcache next pointers as
 * ptr ^ (address of the pointer >> 12) */
#define SAFE_LINK_SHIFT	12
#define MAX_STATE_BYTES	65536
#define MAX_PAR_BYTES	4096
#define MAX_CHUNK_HDR	64

struct mw_field {
	uint32_t off, size;
};

/* What the walk needs to know of glibc's structures, all from DWARF. */
struct mw_glibc_layout {
	uint32_t state_size, par_size;
	struct mw_field mutex, fastbins, top, bins, next, system_mem; /* malloc_state */
	struct mw_field size, fd, bk;		/* malloc_chunk */
	uint32_t min_chunk;			/* offsetof(malloc_chunk, fd_nextsize) */
	uint32_t chunk_hdr;			/* bytes read per chunk */
	struct mw_field n_mmaps, mmapped_mem, mmap_threshold, trim_threshold; /* malloc_par */
	uint32_t nfastbins, nbins;		/* nbins as glibc's NBINS */
	bool has_mutex;
};

struct mw_glibcview {
	pid_t pid;
	uint64_t main_arena, mp;		/* run-time addresses */
	bool safe_linking;
	struct mw_glibc_layout l;
	unsigned char *state_a, *state_b;	/* l.state_size bytes each */
	unsigned char par_a[MAX_PAR_BYTES], par_b[MAX_PAR_BYTES];
	uint64_t seen[MW_GLIBC_MAX_ARENAS];	/* arenas of the current walk */
};

/* ---------------------------------------------------------- target memory */

/* Reads @len bytes at @addr of @pid. 0; -EFAULT when the range is not
 * (wholly) mapped, which to a walk means "changed under us"; -ESRCH, -EPERM. */
static int mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno == ENOMEM ? -EFAULT : -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static bool user_range_ok(uint64_t addr, uint64_t len)
{
	return addr >= USER_ADDR_MIN && addr < USER_ADDR_END &&
	       len <= USER_ADDR_END - addr;
}

/* Little-endian field of 1..8 bytes out of a copy of a structure. */
static uint64_t field_get(const unsigned char *buf, struct mw_field f)
{
	uint64_t v = 0;

	memcpy(&v, buf + f.off, f.size);
	return v;
}

static uint64_t ptr_at(const unsigned char *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* -------------------------------------------------------- the libc object */

struct libc_id {
	unsigned char build_id[MAX_BUILD_ID];
	size_t build_id_len;
	uint64_t build_id_vaddr;	/* link-time address of the build-id bytes */
	uint64_t first_vaddr;		/* page of the lowest PT_LOAD */
};

static int note_build_id(Elf *elf, const GElf_Phdr *ph, struct libc_id *id)
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
		    nh.n_descsz == 0 || nh.n_descsz > MAX_BUILD_ID)
			continue;
		memcpy(id->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
		id->build_id_len = nh.n_descsz;
		id->build_id_vaddr = ph->p_vaddr + desc_off;
		return 0;
	}
	return -ENOENT;
}

/* The build-id of the libc file and where its bytes and its first page
 * load. -ENOENT: no build-id (so no way to find its debug file). */
static int libc_identify(Elf *elf, struct libc_id *id)
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

/* Opens a regular file only: a path under the target's root may name a
 * FIFO or a device, whose open or read would block. -errno on failure. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int path_join(char *buf, size_t len, const char *root, const char *path)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ------------------------------------------------------------ DWARF side */

struct dw_vars {
	Dwarf_Die main_arena, mp;
	uint64_t main_arena_addr, mp_addr, version_addr;
	bool have_main_arena, have_mp, have_version;
};

/* The address of a global variable: a location that is one DW_OP_addr. */
static bool var_address(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

static void note_var(Dwarf_Die *die, struct dw_vars *v)
{
	const char *name = dwarf_diename(die);
	uint64_t addr;

	if (!name || !var_address(die, &addr))
		return;
	if (!v->have_main_arena && !strcmp(name, "main_arena")) {
		v->main_arena = *die;
		v->main_arena_addr = addr;
		v->have_main_arena = true;
	} else if (!v->have_mp && !strcmp(name, "mp_")) {
		v->mp = *die;
		v->mp_addr = addr;
		v->have_mp = true;
	} else if (!v->have_version && !strcmp(name, "__libc_version")) {
		v->version_addr = addr;
		v->have_version = true;
	}
}

/* Scans the file-scope variables of every compilation unit. */
static void find_vars(Dwarf *dw, struct dw_vars *v)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_child(&cu, &die)) {
			do {
				if (dwarf_tag(&die) == DW_TAG_variable)
					note_var(&die, v);
			} while (!dwarf_siblingof(&die, &die));
		}
		if (v->have_main_arena && v->have_mp && v->have_version)
			return;
		off = next;
	}
}

/* @die's DW_AT_type, typedefs and qualifiers peeled. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, &t) && dwarf_peel_type(&t, out) == 0;
}

static bool struct_type(Dwarf_Die *var, Dwarf_Die *out, uint32_t *size, uint32_t max)
{
	int n;

	if (!type_of(var, out) || dwarf_tag(out) != DW_TAG_structure_type)
		return false;
	n = dwarf_bytesize(out);
	if (n <= 0 || (uint32_t)n > max)
		return false;
	*size = (uint32_t)n;
	return true;
}

static bool member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return false;
	if (!dwarf_formudata(&a, off))
		return true;
	/* DWARF 2 style: an expression DW_OP_plus_uconst N */
	if (dwarf_getlocation(&a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_plus_uconst)
		return false;
	*off = ops[0].number;
	return true;
}

/* Member @name of structure @st: offset and size (within @st_size), and
 * its peeled type if @type. 0 or -ENODATA. */
static int member(Dwarf_Die *st, uint32_t st_size, const char *name,
		  struct mw_field *f, Dwarf_Die *type)
{
	Dwarf_Die m, t;
	Dwarf_Word off, size;

	if (dwarf_child(st, &m))
		return -ENODATA;
	do {
		const char *n = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, name))
			continue;
		if (dwarf_hasattr(&m, DW_AT_bit_size) || !member_offset(&m, &off) ||
		    !type_of(&m, &t) || dwarf_aggregate_size(&t, &size) ||
		    size == 0 || off > st_size || size > st_size - off)
			return -ENODATA;
		f->off = (uint32_t)off;
		f->size = (uint32_t)size;
		if (type)
			*type = t;
		return 0;
	} while (!dwarf_siblingof(&m, &m));
	return -ENODATA;
}

static bool is_word(struct mw_field f)
{
	return f.size == 4 || f.size == 8;
}

static bool is_ptr(struct mw_field f)
{
	return f.size == sizeof(uint64_t);
}

static int state_layout(Dwarf_Die *arena_var, struct mw_glibc_layout *l, Dwarf_Die *chunk)
{
	Dwarf_Die st, top_type;
	uint32_t chunk_size;

	if (!struct_type(arena_var, &st, &l->state_size, MAX_STATE_BYTES))
		return -ENODATA;
	l->has_mutex = !member(&st, l->state_size, "mutex", &l->mutex, NULL) &&
		       is_word(l->mutex);
	if (member(&st, l->state_size, "fastbinsY", &l->fastbins, NULL) ||
	    member(&st, l->state_size, "top", &l->top, &top_type) ||
	    member(&st, l->state_size, "bins", &l->bins, NULL) ||
	    member(&st, l->state_size, "next", &l->next, NULL) ||
	    member(&st, l->state_size, "system_mem", &l->system_mem, NULL))
		return -ENODATA;
	if (!is_ptr(l->top) || !is_ptr(l->next) || !is_word(l->system_mem) ||
	    l->fastbins.size % 8 || l->bins.size % 16)
		return -ENODATA;
	l->nfastbins = l->fastbins.size / 8;
	l->nbins = l->bins.size / 16 + 1;	/* bins[NBINS * 2 - 2] */
	if (l->nfastbins > 64 || l->nbins < 2 || l->nbins > 1024)
		return -ENODATA;
	/* the chunk type: mchunkptr top is a pointer to struct malloc_chunk */
	if (dwarf_tag(&top_type) != DW_TAG_pointer_type ||
	    !struct_type(&top_type, chunk, &chunk_size, MAX_CHUNK_HDR))
		return -ENODATA;
	return 0;
}

static int chunk_layout(Dwarf_Die *chunk, struct mw_glibc_layout *l)
{
	uint32_t size = (uint32_t)dwarf_bytesize(chunk);
	struct mw_field fd_nextsize;
	uint32_t end;

	if (member(chunk, size, "mchunk_size", &l->size, NULL) ||
	    member(chunk, size, "fd", &l->fd, NULL) ||
	    member(chunk, size, "bk", &l->bk, NULL) ||
	    member(chunk, size, "fd_nextsize", &fd_nextsize, NULL))
		return -ENODATA;
	if (!is_word(l->size) || !is_ptr(l->fd) || !is_ptr(l->bk))
		return -ENODATA;
	l->min_chunk = fd_nextsize.off;		/* glibc's MIN_CHUNK_SIZE */
	end = l->size.off + l->size.size;
	if (l->fd.off + 8 > end)
		end = l->fd.off + 8;
	if (l->bk.off + 8 > end)
		end = l->bk.off + 8;
	l->chunk_hdr = end;
	/* a bin head is a pseudo-chunk whose fd is bins[2i]: it must lie inside */
	if (l->fd.off > l->bins.off || l->bk.off != l->fd.off + 8 ||
	    l->size.off + l->size.size > l->fd.off || l->min_chunk == 0)
		return -ENODATA;
	return 0;
}

static int par_layout(Dwarf_Die *mp_var, struct mw_glibc_layout *l)
{
	Dwarf_Die st;

	if (!struct_type(mp_var, &st, &l->par_size, MAX_PAR_BYTES))
		return -ENODATA;
	if (member(&st, l->par_size, "n_mmaps", &l->n_mmaps, NULL) ||
	    member(&st, l->par_size, "mmapped_mem", &l->mmapped_mem, NULL) ||
	    member(&st, l->par_size, "mmap_threshold", &l->mmap_threshold, NULL) ||
	    member(&st, l->par_size, "trim_threshold", &l->trim_threshold, NULL))
		return -ENODATA;
	if (!is_word(l->n_mmaps) || !is_word(l->mmapped_mem) ||
	    !is_word(l->mmap_threshold) || !is_word(l->trim_threshold))
		return -ENODATA;
	return 0;
}

/* ---------------------------------------------------------- debug file */

/* Fills @g's layout and link-time addresses from @elf's DWARF, if @elf is
 * the debug file of @id (or carries its own DWARF). -ENOENT: no DWARF or
 * another build; -ENODATA: DWARF without glibc's malloc in it. */
static int layouts_from(Elf *elf, const struct libc_id *id, struct mw_glibcview *g,
			uint64_t *version_addr)
{
	const void *bid;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
	struct dw_vars v = { 0 };
	Dwarf_Die chunk;
	Dwarf *dw;
	int err;

	if (n != (ssize_t)id->build_id_len || memcmp(bid, id->build_id, (size_t)n))
		return -ENOENT;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return -ENOENT;
	find_vars(dw, &v);
	err = -ENODATA;
	if (v.have_main_arena && v.have_mp &&
	    !state_layout(&v.main_arena, &g->l, &chunk) &&
	    !chunk_layout(&chunk, &g->l) && !par_layout(&v.mp, &g->l)) {
		g->main_arena = v.main_arena_addr;
		g->mp = v.mp_addr;
		*version_addr = v.have_version ? v.version_addr : 0;
		err = 0;
	}
	dwarf_end(dw);
	return err;
}

static int layouts_from_path(const char *path, const struct libc_id *id,
			     struct mw_glibcview *g, uint64_t *version_addr)
{
	int fd = open_regular(path);
	Elf *elf;
	int err;

	if (fd < 0)
		return -ENOENT;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? layouts_from(elf, id, g, version_addr) : -ENOENT;
	elf_end(elf);
	close(fd);
	return err;
}

/* Tries the build's debug files (debugfile.h: the host's first), then the
 * libc itself (an unstripped build). -ENOENT if none has DWARF for this
 * build; -ENODATA if one has DWARF but no glibc malloc state. */
static int find_layouts(Elf *libc, const struct libc_id *id, const char *root,
			struct mw_glibcview *g, uint64_t *version_addr)
{
	char hex[2 * MAX_BUILD_ID + 1], paths[MW_DEBUG_CANDIDATES][PATH_MAX];
	int err, best = -ENOENT, n;

	hex[0] = '\0';
	for (size_t i = 0; i < id->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id->build_id[i]);
	n = debugfile__candidates(root, hex, paths);
	for (int i = 0; i < n; i++) {
		err = layouts_from_path(paths[i], id, g, version_addr);
		if (!err)
			return 0;
		if (err == -ENODATA)
			best = err;
	}
	err = layouts_from(libc, id, g, version_addr);
	return err == -ENOENT ? best : err;
}

/* ------------------------------------------------------------- the walk */

/* A chunk header as the walk needs it: size without its flag bits. */
struct chunk {
	uint64_t size, fd, bk;
};

struct arena_tally {
	uint64_t system_mem, top_size, next;
	uint64_t nblocks, avail;		/* ordblks, fordblks */
	uint64_t nfast, fastavail;		/* smblks, fsmblks */
};

/* Brent's cycle detection over one list: true once @p was seen before. */
struct cycle {
	uint64_t saved, power, steps;
};

static bool cycle__seen(struct cycle *c, uint64_t p)
{
	if (p == c->saved)
		return true;
	if (++c->steps == c->power) {
		c->saved = p;
		c->power *= 2;
		c->steps = 0;
	}
	return false;
}

/* Reads the chunk at @p. -EAGAIN: @p is not a chunk address (misaligned,
 * outside user space, unmapped), i.e. the list changed or is corrupt. */
static int chunk_read(struct mw_glibcview *g, uint64_t p, struct chunk *c)
{
	const struct mw_glibc_layout *l = &g->l;
	unsigned char buf[MAX_CHUNK_HDR];
	int err;

	if ((p & (2 * l->size.size - 1)) || !user_range_ok(p, l->chunk_hdr))
		return -EAGAIN;
	err = mem_read(g->pid, p, buf, l->chunk_hdr);
	if (err)
		return err == -EFAULT ? -EAGAIN : err;
	c->size = field_get(buf, l->size) & ~7ull;	/* PREV_INUSE, IS_MMAPPED, NON_MAIN_ARENA */
	c->fd = ptr_at(buf, l->fd.off);
	c->bk = ptr_at(buf, l->bk.off);
	return 0;
}

/* glibc's fastbin_index() */
static uint64_t fastbin_index(const struct mw_glibcview *g, uint64_t size)
{
	return (size >> (g->l.size.size == 8 ? 4 : 3)) - 2;
}

static int walk_fastbin(struct mw_glibcview *g, const unsigned char *st,
			uint32_t i, struct arena_tally *t)
{
	uint64_t p = ptr_at(st, g->l.fastbins.off + 8 * i);
	struct cycle cy = { 0, 1, 0 };
	struct chunk c;
	int err;

	for (uint32_t n = 0; p; n++) {
		if (n >= MW_GLIBC_MAX_CHUNKS_PER_BIN || cycle__seen(&cy, p))
			return -EAGAIN;
		err = chunk_read(g, p, &c);
		if (err)
			return err;
		if (c.size < g->l.min_chunk || fastbin_index(g, c.size) != i)
			return -EAGAIN;
		t->nfast++;
		t->fastavail += c.size;
		if (t->avail + t->fastavail > t->system_mem)
			return -EAGAIN;
		p = g->safe_linking ? ((p + g->l.fd.off) >> SAFE_LINK_SHIFT) ^ c.fd : c.fd;
	}
	return 0;
}

/* Bin @i (1..NBINS-1) from its last chunk back to its head (as glibc's
 * int_mallinfo), checking that each chunk's fd points back where we came
 * from: a list being relinked under us breaks that. */
static int walk_bin(struct mw_glibcview *g, const unsigned char *st, uint64_t arena,
		    uint32_t i, struct arena_tally *t)
{
	const struct mw_glibc_layout *l = &g->l;
	uint32_t slot = l->bins.off + (i - 1) * 16;
	uint64_t head = arena + slot - l->fd.off;	/* glibc's bin_at(av, i) */
	uint64_t p = ptr_at(st, slot + 8), prev = head;	/* last(b) = b->bk */
	struct cycle cy = { 0, 1, 0 };
	struct chunk c;
	int err;

	for (uint32_t n = 0; p != head; n++) {
		if (n >= MW_GLIBC_MAX_CHUNKS_PER_BIN || cycle__seen(&cy, p))
			return -EAGAIN;
		err = chunk_read(g, p, &c);
		if (err)
			return err;
		if (c.fd != prev || c.size < l->min_chunk)
			return -EAGAIN;
		t->nblocks++;
		t->avail += c.size;
		if (t->avail + t->fastavail > t->system_mem)
			return -EAGAIN;
		prev = p;
		p = c.bk;
	}
	return ptr_at(st, slot) == prev ? 0 : -EAGAIN;	/* b->fd is the first */
}

/* The top chunk; main_arena's starts as glibc's initial_top, the
 * unsorted bin's head inside the arena itself, whose size reads as 0. */
static int walk_top(struct mw_glibcview *g, const unsigned char *st, uint64_t arena,
		    struct arena_tally *t)
{
	const struct mw_glibc_layout *l = &g->l;
	uint64_t top = ptr_at(st, l->top.off);
	uint64_t initial_top = arena + l->bins.off - l->fd.off;
	struct chunk c;
	int err;

	t->nblocks = 1;			/* top always exists */
	if (top == initial_top) {
		struct mw_field size = { l->bins.off - l->fd.off + l->size.off, l->size.size };

		c.size = field_get(st, size) & ~7ull;
	} else {
		err = chunk_read(g, top, &c);
		if (err)
			return err;
	}
	if (c.size > t->system_mem)
		return -EAGAIN;
	t->top_size = c.size;
	t->avail = c.size;
	return 0;
}

static int state_read(struct mw_glibcview *g, uint64_t arena, unsigned char *buf)
{
	int err = mem_read(g->pid, arena, buf, g->l.state_size);

	if (err)
		return err == -EFAULT ? -EAGAIN : err;
	if (g->l.has_mutex && field_get(buf, g->l.mutex))
		return -EAGAIN;		/* locked: being changed right now */
	return 0;
}

/* The parts of an arena the walk depends on are the same in @a and @b. */
static bool state_same(const struct mw_glibc_layout *l, const unsigned char *a,
		       const unsigned char *b)
{
	const struct mw_field f[] = { l->fastbins, l->top, l->bins, l->next,
				      l->system_mem };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (memcmp(a + f[i].off, b + f[i].off, f[i].size))
			return false;
	return true;
}

/* One walk of the arena at @arena into @t. -EAGAIN: it changed under the
 * walk or does not hold together; other -errno: cannot read the target. */
static int arena_walk(struct mw_glibcview *g, uint64_t arena, struct arena_tally *t)
{
	const unsigned char *st = g->state_a;
	int err;

	memset(t, 0, sizeof(*t));
	err = state_read(g, arena, g->state_a);
	if (err)
		return err;
	t->next = ptr_at(st, g->l.next.off);
	t->system_mem = field_get(st, g->l.system_mem);
	if (t->system_mem >= USER_ADDR_END)
		return -EAGAIN;
	if (!ptr_at(st, g->l.top.off)) {	/* main_arena before malloc's first call */
		t->nblocks = 1;
		return state_read(g, arena, g->state_b);
	}
	err = walk_top(g, st, arena, t);
	for (uint32_t i = 0; !err && i < g->l.nfastbins; i++)
		err = walk_fastbin(g, st, i, t);
	for (uint32_t i = 1; !err && i < g->l.nbins; i++)
		err = walk_bin(g, st, arena, i, t);
	if (!err)
		err = state_read(g, arena, g->state_b);
	if (!err && !state_same(&g->l, g->state_a, g->state_b))
		err = -EAGAIN;
	return err;
}

/* Walks @arena until two reads agree, at most 1 + MW_GLIBC_RETRIES times;
 * *@ok false if they never did (@t then holds the last, partial walk). */
static int arena_sample(struct mw_glibcview *g, uint64_t arena,
			struct arena_tally *t, bool *ok)
{
	int err = -EAGAIN;

	for (int i = 0; err == -EAGAIN && i <= MW_GLIBC_RETRIES; i++) {
		if (i)
			sched_yield();
		err = arena_walk(g, arena, t);
	}
	*ok = !err;
	if (err != -EAGAIN && err)
		return err;
	t->avail += t->fastavail;
	if (t->avail > t->system_mem)
		t->avail = t->system_mem;
	if (t->fastavail > t->avail)
		t->fastavail = t->avail;
	return 0;
}

/* mp_'s figures, read twice until both reads agree. */
static int par_sample(struct mw_glibcview *g, struct mw_glibc_sample *out)
{
	const struct mw_glibc_layout *l = &g->l;
	bool same = false;
	int err;

	for (int i = 0; !same && i <= MW_GLIBC_RETRIES; i++) {
		err = mem_read(g->pid, g->mp, g->par_a, l->par_size);
		if (!err)
			err = mem_read(g->pid, g->mp, g->par_b, l->par_size);
		if (err)
			return err == -EFAULT ? -ESTALE : err;
		same = !memcmp(g->par_a, g->par_b, l->par_size);
	}
	out->consistent &= same;
	if (field_get(g->par_b, l->mmapped_mem) >= USER_ADDR_END)
		out->consistent = false;
	out->hblks = field_get(g->par_b, l->n_mmaps);
	out->hblkhd = field_get(g->par_b, l->mmapped_mem);
	out->mmap_threshold = field_get(g->par_b, l->mmap_threshold);
	out->trim_threshold = field_get(g->par_b, l->trim_threshold);
	return 0;
}

static bool arena_seen(const struct mw_glibcview *g, size_t n, uint64_t arena)
{
	for (size_t i = 0; i < n; i++)
		if (g->seen[i] == arena)
			return true;
	return false;
}

static void tally_add(struct mw_glibc_sample *out, const struct arena_tally *t)
{
	out->arena += t->system_mem;
	out->ordblks += t->nblocks;
	out->smblks += t->nfast;
	out->fordblks += t->avail;
	out->fsmblks += t->fastavail;
}

/* ------------------------------------------------------------------ API */

int glibcview__read(struct mw_glibcview *g, struct mw_glibc_sample *out)
{
	uint64_t arena = g->main_arena;
	struct arena_tally t;
	size_t n = 0;
	bool ok;
	int err;

	memset(out, 0, sizeof(*out));
	out->consistent = true;
	err = par_sample(g, out);
	while (!err) {
		err = arena_sample(g, arena, &t, &ok);
		if (err)
			break;
		if (t.system_mem > USER_ADDR_END - out->arena) {
			out->consistent = false;	/* more than an address space */
			break;
		}
		out->consistent &= ok;
		tally_add(out, &t);
		if (arena == g->main_arena)
			out->keepcost = t.top_size;
		g->seen[n++] = arena;
		arena = t.next;
		if (arena == g->main_arena)
			break;
		if (n == MW_GLIBC_MAX_ARENAS || (arena & 7) ||
		    !user_range_ok(arena, g->l.state_size) || arena_seen(g, n, arena)) {
			out->consistent = false;	/* a ring that does not close */
			break;
		}
	}
	if (err)
		return err;
	out->arenas = n;
	out->uordblks = out->arena - out->fordblks;
	out->fragmentation = out->arena ? (double)out->fordblks / out->arena : 0;
	return 0;
}

/* The version in the target's __libc_version ("2.36"): safe-linking from
 * 2.32 on. Assumed on when unknown: every glibc of the last years has it. */
static bool has_safe_linking(pid_t pid, uint64_t version_addr)
{
	char v[16] = "";
	unsigned major, minor;

	if (!version_addr || mem_read(pid, version_addr, v, sizeof(v) - 1) ||
	    sscanf(v, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 2 || (major == 2 && minor >= 32);
}

/* The build-id bytes in the target at @bias must be the file's: else the
 * file on disk was replaced, or @libc_base is not this libc's. */
static int check_mapped(pid_t pid, const struct libc_id *id, uint64_t bias)
{
	unsigned char mapped[MAX_BUILD_ID];
	uint64_t at = bias + id->build_id_vaddr;
	int err;

	if (!user_range_ok(at, id->build_id_len))
		return -EINVAL;
	err = mem_read(pid, at, mapped, id->build_id_len);
	if (err)
		return err == -EFAULT ? -ESTALE : err;
	return memcmp(mapped, id->build_id, id->build_id_len) ? -ESTALE : 0;
}

static int view_setup(struct mw_glibcview *g, Elf *libc, const char *root,
		      uint64_t libc_base)
{
	struct libc_id id = { 0 };
	uint64_t bias, version_addr = 0;
	int err;

	err = libc_identify(libc, &id);
	if (err)
		return err;
	bias = libc_base - id.first_vaddr;
	err = check_mapped(g->pid, &id, bias);
	if (err)
		return err;
	err = find_layouts(libc, &id, root, g, &version_addr);
	if (err)
		return err;
	g->main_arena += bias;
	g->mp += bias;
	if (!user_range_ok(g->main_arena, g->l.state_size) ||
	    !user_range_ok(g->mp, g->l.par_size))
		return -EINVAL;
	g->safe_linking = has_safe_linking(g->pid, version_addr ? version_addr + bias : 0);
	g->state_a = malloc(g->l.state_size);
	g->state_b = malloc(g->l.state_size);
	return g->state_a && g->state_b ? 0 : -ENOMEM;
}

int glibcview__open(struct mw_glibcview **out, pid_t pid, const char *root,
		    const char *libc_path, uint64_t libc_base)
{
	struct mw_glibcview *g;
	char path[PATH_MAX];
	Elf *elf = NULL;
	int fd = -1, err;

	*out = NULL;
	err = path_join(path, sizeof(path), root, libc_path);
	if (err)
		return err;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->pid = pid;
	elf_version(EV_CURRENT);
	fd = open_regular(path);
	err = fd < 0 ? fd : 0;
	if (!err) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		err = elf ? view_setup(g, elf, root, libc_base) : -ENOEXEC;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (err) {
		glibcview__close(g);
		return err;
	}
	*out = g;
	return 0;
}

void glibcview__close(struct mw_glibcview *g)
{
	if (!g)
		return;
	free(g->state_a);
	free(g->state_b);
	free(g);
}
