// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config.c - libFuzzer harness for the config file parser (-c FILE).
 * The input is the file, read through fmemopen into a zeroed options
 * struct, as config__load does; its messages (stderr) are silenced.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "config.h"
#include "quiet.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet_stderr();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mw_options o;
	FILE *f;

	if (size == 0)
		return 0;	/* fmemopen refuses an empty buffer */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	memset(&o, 0, sizeof(o));
	config__parse(&o, f, "fuzz.conf");
	fclose(f);
	cli__free(&o);
	return 0;
}
