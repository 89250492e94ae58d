/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwarfopen.h - one ELF object's DWARF opened with libdwfl, offline: its
 * own sections, or the debug file libdwfl's standard search finds for
 * it (by build-id, .gnu_debuglink, /usr/lib/debug). Every reader of
 * DWARF (types, inlined copies, Go parameters, source lines) opens
 * objects here.
 */
#ifndef MW_DWARFOPEN_H
#define MW_DWARFOPEN_H

#include <elfutils/libdwfl.h>

/* Opens the object at @path, reported to libdwfl as @name (messages and
 * module names), into *@dwfl (dwfl_end it) and *@mod: 1; 0 when libdwfl
 * cannot report it (nothing to close, *@dwfl NULL); -1 when libdwfl
 * could not begin (out of memory). */
int dwarfopen__object(const char *path, const char *name, Dwfl **dwfl, Dwfl_Module **mod);

#endif
