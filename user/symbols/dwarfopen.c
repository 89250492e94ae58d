// SPDX-License-Identifier: GPL-2.0
/*
 * dwarfopen.c - libdwfl's offline reporting, with its standard search for
 * debug files and the default search path.
 */
#include <stddef.h>
#include "symbols/dwarfopen.h"

static char *debuginfo_path;	/* NULL: libdwfl's default search */
static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

int dwarfopen__object(const char *path, const char *name, Dwfl **dwfl, Dwfl_Module **mod)
{
	*mod = NULL;
	*dwfl = dwfl_begin(&callbacks);
	if (!*dwfl)
		return -1;
	*mod = dwfl_report_offline(*dwfl, name, path, -1);
	dwfl_report_end(*dwfl, NULL, NULL);
	if (!*mod) {
		dwfl_end(*dwfl);
		*dwfl = NULL;
		return 0;
	}
	return 1;
}
