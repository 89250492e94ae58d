// SPDX-License-Identifier: GPL-2.0
/* log.c - one line on stderr per message, prefixed "memwatch: ". */
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

void mw_err(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write, so lines from several threads never interleave */
	fprintf(stderr, "memwatch: %s\n", line);
}
