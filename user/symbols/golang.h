/* SPDX-License-Identifier: GPL-2.0 */
/*
 * golang.h - Go programs: whether an object is Go's (its .go.buildinfo)
 * and which Go built it, and, from a Go function's DWARF (which Go writes
 * by default), where its parameters are at its entry and what its first
 * result is. Go passes them by its own register ABI (Go 1.17 and later:
 * RAX, RBX, RCX, RDI, RSI, R8-R11), not System V's, and a string or a
 * slice takes several registers: structs.c reads argN and ret by this.
 */
#ifndef MW_GOLANG_H
#define MW_GOLANG_H

#include <stdbool.h>
#include <stddef.h>
#include "symbols/elfsym.h"
#include "memwatch.h"

/* The version of Go that built @e ("go1.19.8") into @buf, or "an unknown
 * Go" where it cannot be read. True if @e is a Go object. */
bool golang__version(const struct mw_elf *e, char *buf, size_t len);

/* Where a Go function's parameter is at its entry. */
struct mw_go_param {
	int reg;		/* enum mw_reg holding it; -1: not an integer
				 * in one register (then @why says what) */
	char name[48];
	char why[96];		/* e.g. "a string, in 2 registers" */
};

struct mw_gofunc {
	bool go;		/* Go code (its compile unit's language) */
	bool dwarf;		/* its DWARF was found (else only @go is known) */
	bool regabi;		/* by the register ABI (the compiler says so) */
	int nparams;		/* parameters, the receiver first (at most
				 * MW_NARGS described) */
	struct mw_go_param param[MW_NARGS];
	bool result_int;	/* the first result is an integer: in RAX when
				 * the function returns (the register ABI) */
	char result_why[96];	/* else what it is, or "no result" */
};

/*
 * Describes the function @sym of the Go object at @path: by its DWARF
 * where it has some, found by the function's address. Without DWARF
 * (built with -ldflags=-w) only @go is known, from its name (Go's are
 * qualified by their package: "main.f"; cgo's C functions are not).
 */
void golang__describe(const char *path, const struct mw_sym *sym, struct mw_gofunc *out);

#endif
