/* SPDX-License-Identifier: GPL-2.0 */
/*
 * say.h - how every C and C++ test target replies: one formatted line
 * written with write(2), so a reply allocates nothing (what a target
 * tallies must be all it allocates), and exit 3 if stdout is gone.
 */
#ifndef MW_TARGET_SAY_H
#define MW_TARGET_SAY_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) || write(STDOUT_FILENO, line, (size_t)n) != n)
		_exit(3);
}

#endif
