/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwtype.h - what the planner asks of a DWARF type (libdw): through
 * typedefs and qualifiers, its members by name (through unnamed members
 * and base classes), its template parameters, size and alignment, and
 * whether values of it can own heap memory. The target's file is
 * untrusted input: every chain is followed to a fixed depth.
 */
#ifndef MW_DWTYPE_H
#define MW_DWTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#define MW_TYPE_DEPTH	16	/* typedefs, qualifiers, nested members */

/* The object at @path for its DWARF (its own, or a build-id debug file
 * found as gdb finds it): the module into @mod. NULL on failure; else
 * dwfl_end() it. */
Dwfl *dwtype__open(const char *path, Dwfl_Module **mod);

/* @die's type; false if it has none (void). */
bool dwtype__of(Dwarf_Die *die, Dwarf_Die *out);
/* @t through typedefs and qualifiers; its tag, or 0 for void. */
int dwtype__peel(Dwarf_Die *t);
bool dwtype__is_pointer(int tag);
bool dwtype__is_record(int tag);
/* A type's name for messages ("a pointer", "an array" when unnamed). */
const char *dwtype__name(Dwarf_Die *t, char *buf, size_t len);
/* @t's size and alignment in bytes; false when DWARF does not say. */
bool dwtype__size(Dwarf_Die *t, uint64_t *size);
uint64_t dwtype__align(Dwarf_Die *t);

/* A member's byte offset in what holds it: a constant, or
 * DW_OP_plus_uconst; 0 for a union's. False for any other location. */
bool dwtype__offset(Dwarf_Die *m, int64_t *off);

/*
 * The member @name of the record @t, searched through unnamed members and
 * base classes: its type into @m and offset into @off. 0; -1 if none; -2
 * for a bit-field or a location that is not a constant offset.
 */
int dwtype__member(Dwarf_Die *t, const char *name, Dwarf_Die *m, int64_t *off);
/* The same along a dotted path of members ("buf.inner.cap"), each step
 * peeled. */
int dwtype__path(Dwarf_Die *t, const char *path, Dwarf_Die *m, int64_t *off);
/* The template type parameter @name of @t ("T", "_Tp"), into @out. */
bool dwtype__param(Dwarf_Die *t, const char *name, Dwarf_Die *out);
/* @t's name starts with @prefix (through typedefs). */
bool dwtype__named(Dwarf_Die *t, const char *prefix);

/* Whether values of @t can own heap memory: a pointer or reference
 * anywhere inside them (Box, Vec, String, Rc and C++ containers all hold
 * one). Plain data (integers, floats, arrays and records of them) owns
 * none. */
bool dwtype__may_own(Dwarf_Die *t);

/* Writes why a type cannot be read (printf's @fmt) into @err, @len
 * bytes: the message layout.c, shape.c and ownership.c fail with. */
void dwtype__why(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
