// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_webconfig.c - libFuzzer harness for the --web-config parser: the
 * input is the YAML file, parsed by webconfig__parse (libyaml, then the
 * tables of keys) as webconfig__load would after reading it; no file it
 * names is opened. Its messages (stderr) are silenced.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "web/webconfig.h"
#include "quiet.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet_stderr();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_webconfig wc;

	if (size > MW_WEB_FILE_BYTES)
		return 0;	/* webconfig__load reads no more */
	webconfig__parse(&wc, (const char *)data, size, "/etc/memwatch/web.yml");
	webconfig__clear(&wc);
	return 0;
}
