// SPDX-License-Identifier: GPL-2.0
/*
 * cfi.c - an object's unwind table from its .eh_frame. The FDEs are found
 * through the search table of .eh_frame_hdr (PT_GNU_EH_FRAME), whose
 * entries give each FDE's first address (or, in an object with no
 * .eh_frame, by reading its .debug_frame's FDEs); libdw runs the CFI program of
 * the FDE to each row (dwarf_cfi_addrframe gives the row at an address,
 * and the range it covers), and each row is reduced to what a walker on
 * x86-64 can follow. The file is the target's, so untrusted: the search
 * table is bounded by its segment, and every count by what was read.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include "stacks/cfi.h"

#define MW_REG_RBP	6	/* DWARF's x86-64 register numbers */
#define MW_REG_RSP	7
#define MW_REG_RA	16
#define MW_EH_HDR_MAX	(64u << 20)	/* a larger search table is refused */

#define DW_EH_PE_udata4	0x03
#define DW_EH_PE_sdata4	0x0b
#define DW_EH_PE_udata8	0x04
#define DW_EH_PE_sdata8	0x0c
#define DW_EH_PE_datarel 0x30

/* ---------------------------------------------------------- the rows */

/* An offset from the CFA (DW_OP_call_frame_cfa; DW_OP_plus_uconst N or
 * DW_OP_consts N, DW_OP_plus), into *@off; false for anything else. */
static bool cfa_offset(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	if (n == 3 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_consts &&
	    ops[2].atom == DW_OP_plus) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* The PLT's rule, as GNU ld and lld write it: %rsp + 8, and 8 more once
 * (%rip & 15) >= N (the entry's push has run). */
static bool plt_rule(const Dwarf_Op *ops, size_t n, struct mw_cfi_row *r)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3,
		DW_OP_shl, DW_OP_plus,
	};

	if (n != sizeof(shape))
		return false;
	for (size_t i = 0; i < n; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return false;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31 || ops[1].number != 0 ||
	    (int64_t)ops[0].number < 0 || (int64_t)ops[0].number > 64)
		return false;
	r->kind = MW_CFA_PLT;
	r->off = (int32_t)ops[0].number;
	r->plt = (uint8_t)(ops[4].atom - DW_OP_lit0);
	return true;
}

/* @f reduced to a row: the CFA's rule, the return address at CFA-8, and
 * where %rbp was saved. */
static void reduce(Dwarf_Frame *f, struct mw_cfi_row *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	r->kind = MW_CFA_OTHER;
	if (dwarf_frame_register(f, MW_REG_RA, mem, &ops, &n) == 0 && n == 0 && ops == mem) {
		r->kind = MW_CFA_END;	/* undefined: nothing called this */
		return;
	}
	if (dwarf_frame_register(f, MW_REG_RA, mem, &ops, &n) || !cfa_offset(ops, n, &off) ||
	    off != -8)
		return;
	if (dwarf_frame_cfa(f, &ops, &n) || n == 0)
		return;
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == MW_REG_RSP || ops[0].number == MW_REG_RBP) &&
	    (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
		r->kind = ops[0].number == MW_REG_RSP ? MW_CFA_RSP : MW_CFA_RBP;
		r->off = (int32_t)ops[0].number2;
	} else if (!plt_rule(ops, n, r)) {
		return;
	}
	if (dwarf_frame_register(f, MW_REG_RBP, mem, &ops, &n))
		return;
	if (n == 0)	/* same value, or undefined (the walk keeps what it has) */
		return;
	if (!cfa_offset(ops, n, &off) || off < INT16_MIN || off > INT16_MAX || !off) {
		r->kind = MW_CFA_OTHER;
		return;
	}
	r->rbp = (int16_t)off;
}

static bool same_rule(const struct mw_cfi_row *a, const struct mw_cfi_row *b)
{
	return a->kind == b->kind && a->off == b->off && a->rbp == b->rbp && a->plt == b->plt;
}

/* Appends @r unless it only repeats the last row's rule. */
static int push(struct mw_cfi *t, size_t *cap, const struct mw_cfi_row *r)
{
	if (t->n && same_rule(&t->rows[t->n - 1], r))
		return 0;
	if (t->n && t->rows[t->n - 1].pc == r->pc) {	/* replaces an empty one */
		t->rows[t->n - 1] = *r;
		return 0;
	}
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct mw_cfi_row *v = realloc(t->rows, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		*cap = ncap;
	}
	t->rows[t->n++] = *r;
	return 0;
}

/* The rows of the FDE that starts at @pc, up to @limit (the next FDE's
 * start); a gap after it. *@reached: where its rows end. */
static int fde_rows(Dwarf_CFI *cfi, uint64_t pc, uint64_t limit, struct mw_cfi *t,
		    size_t *cap, uint64_t *reached)
{
	int err = 0;

	while (!err && pc < limit) {
		struct mw_cfi_row r = { .pc = pc };
		Dwarf_Addr start, end;
		Dwarf_Frame *f;
		bool signal;

		if (dwarf_cfi_addrframe(cfi, pc, &f))
			break;
		dwarf_frame_info(f, &start, &end, &signal);
		reduce(f, &r);
		free(f);
		if (end <= pc)
			break;	/* a malformed range: go no further */
		err = push(t, cap, &r);
		pc = end;
	}
	if (!err && pc < limit)
		err = push(t, cap, &(struct mw_cfi_row){ .pc = pc, .kind = MW_CFA_NONE });
	*reached = pc < limit ? pc + 1 : limit;	/* past its gap row */
	return err;
}

/* --------------------------------------------------- the search table */

struct eh_hdr {
	uint64_t vaddr;		/* of .eh_frame_hdr: the table's base */
	const uint8_t *table;	/* (initial location, FDE) pairs */
	uint32_t count;
};

static int ptr_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	}
	return -1;
}

/* The search table in @buf (@len bytes of PT_GNU_EH_FRAME at @vaddr). */
static int parse_hdr(const uint8_t *buf, size_t len, uint64_t vaddr, struct eh_hdr *h)
{
	int p;
	uint32_t count;

	if (len < 4 || buf[0] != 1)
		return -EINVAL;
	p = ptr_size(buf[1]);
	/* the count as udata4 and the table as datarel sdata4: what GNU ld,
	 * gold and lld write */
	if (p < 0 || buf[2] != DW_EH_PE_udata4 || buf[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOTSUP;
	if (len < 4 + (size_t)p + 4)
		return -EINVAL;
	memcpy(&count, buf + 4 + p, 4);
	if (count > (len - 8 - (size_t)p) / 8)
		return -EINVAL;
	h->vaddr = vaddr;
	h->table = buf + 8 + p;
	h->count = count;
	return 0;
}

static uint64_t entry_pc(const struct eh_hdr *h, uint32_t i)
{
	int32_t loc;

	memcpy(&loc, h->table + 8 * (size_t)i, 4);
	return h->vaddr + (uint64_t)(int64_t)loc;
}

/* PT_GNU_EH_FRAME of @e, read from @fd into a new *@buf. */
static int read_hdr(Elf *e, int fd, uint8_t **buf, size_t *len, uint64_t *vaddr)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_filesz < 4 || ph.p_filesz > MW_EH_HDR_MAX)
			return -EINVAL;
		*buf = malloc(ph.p_filesz);
		if (!*buf)
			return -ENOMEM;
		if (pread(fd, *buf, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
			free(*buf);
			*buf = NULL;
			return -EINVAL;
		}
		*len = ph.p_filesz;
		*vaddr = ph.p_vaddr;
		return 0;
	}
	return -ENOENT;
}

/* Whether every section of @e (@size bytes) lies inside the file: libdw
 * reads .eh_frame through them, and libelf leaks on some that do not. */
static bool sections_sane(Elf *e, uint64_t size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------- table */

/* The rows of every FDE, from @pcs (@n first addresses, sorted): each
 * FDE's rows up to the next one's start. */
static int rows_of(Dwarf_CFI *cfi, const uint64_t *pcs, size_t n, struct mw_cfi *out)
{
	uint64_t done = 0;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		uint64_t limit = i + 1 < n ? pcs[i + 1] : UINT64_MAX;

		/* an entry inside rows already made: skipped, so that the rows
		 * stay sorted */
		if (pcs[i] < done || limit < pcs[i])
			continue;
		err = fde_rows(cfi, pcs[i], limit, out, &cap, &done);
	}
	return err;
}

/* The first addresses in the search table @h, in its order (sorted, as
 * the linker writes it; one out of order is skipped by rows_of). */
static int hdr_pcs(const struct eh_hdr *h, uint64_t **pcs, size_t *n)
{
	*pcs = malloc((h->count ? h->count : 1) * sizeof(**pcs));
	if (!*pcs)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->count; i++)
		(*pcs)[i] = entry_pc(h, i);
	*n = h->count;
	return 0;
}

/* ------------------------------------------------------- .debug_frame */

static int by_pc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first addresses of the FDEs in @e's .debug_frame, sorted: what an
 * object built without .eh_frame (-fno-asynchronous-unwind-tables -g)
 * has. Its FDEs give their address whole (the address size, 8 here). */
static int debug_frame_pcs(Elf *e, uint64_t **pcs, size_t *n)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	size_t shstrndx, cap = 0;
	Dwarf_Off off = 0, next;
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);

	*pcs = NULL;
	*n = 0;
	if (!ident || elf_getshdrstrndx(e, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_frame")) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!data || !data->d_buf)
		return -ENOENT;
	for (;;) {
		Dwarf_CFI_Entry entry;
		int r = dwarf_next_cfi(ident, data, false, off, &next, &entry);
		uint64_t pc;

		if (r)
			break;	/* the end, or a malformed entry: what was read stands */
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		if (entry.fde.end < entry.fde.start ||
		    (size_t)(entry.fde.end - entry.fde.start) < 2 * sizeof(pc))
			continue;
		memcpy(&pc, entry.fde.start, sizeof(pc));
		if (*n == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			uint64_t *grown = realloc(*pcs, ncap * sizeof(*grown));

			if (!grown) {
				free(*pcs);
				*pcs = NULL;
				return -ENOMEM;
			}
			*pcs = grown;
			cap = ncap;
		}
		(*pcs)[(*n)++] = pc;
	}
	if (!*n) {
		free(*pcs);
		*pcs = NULL;
		return -ENOENT;
	}
	qsort(*pcs, *n, sizeof(**pcs), by_pc);
	return 0;
}

/* ------------------------------------------------------------- table */

int cfi__build(const char *path, struct mw_cfi *out)
{
	Dwarf_CFI *cfi = NULL;
	Dwarf *dw = NULL;
	struct eh_hdr h;
	uint8_t *buf = NULL;
	uint64_t *pcs = NULL;
	size_t len = 0, n = 0;
	uint64_t vaddr = 0;
	Elf *e = NULL;
	struct stat st;
	int fd, err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* mapped, not read: libelf then copies no section (and leaks none
	 * of a malformed file's) */
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = e && elf_kind(e) == ELF_K_ELF && fstat(fd, &st) == 0 &&
	      sections_sane(e, (uint64_t)st.st_size) ? 0 : -EINVAL;
	if (!err)
		err = read_hdr(e, fd, &buf, &len, &vaddr);
	if (!err) {
		err = parse_hdr(buf, len, vaddr, &h);
		if (!err)
			err = hdr_pcs(&h, &pcs, &n);
		if (!err && !(cfi = dwarf_getcfi_elf(e)))
			err = -ENOENT;
	} else if (err == -ENOENT) {
		/* no .eh_frame search table: .debug_frame, where that is all
		 * the object has (the Dwarf owns its CFI) */
		err = debug_frame_pcs(e, &pcs, &n);
		if (!err && (!(dw = dwarf_begin_elf(e, DWARF_C_READ, NULL)) ||
			     !(cfi = dwarf_getcfi(dw))))
			err = -ENOENT;
	}
	if (!err)
		err = rows_of(cfi, pcs, n, out);
	if (cfi && !dw)
		dwarf_cfi_end(cfi);
	if (dw)
		dwarf_end(dw);
	if (e)
		elf_end(e);
	close(fd);
	free(buf);
	free(pcs);
	if (err)
		cfi__free(out);
	return err;
}

void cfi__free(struct mw_cfi *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

const struct mw_cfi_row *cfi__find(const struct mw_cfi *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {	/* the last row with rows[i].pc <= pc */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->rows[lo - 1].kind == MW_CFA_NONE)
		return NULL;
	return &t->rows[lo - 1];
}
