/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quiet.h - for harnesses whose code reports through mw_err (stderr):
 * point the stdio stream at /dev/null. Fd 2 stays open, so sanitizer
 * reports (written to fd 2) and libFuzzer's own output (its FILE * was
 * taken at start-up) still show.
 */
#ifndef MW_FUZZ_QUIET_H
#define MW_FUZZ_QUIET_H

#include <stdio.h>

static inline void fuzz_quiet_stderr(void)
{
	FILE *null = fopen("/dev/null", "we");

	if (null)
		stderr = null;
}

#endif
