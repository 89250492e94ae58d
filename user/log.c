// SPDX-License-Identifier: GPL-2.0
/* log.c - one line on stderr per message, prefixed "memwatch: ". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"

static void say(const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* one write, so lines from several threads never interleave */
	fprintf(stderr, "memwatch: %s\n", line);
}

void mw_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

bool mw_debugging(void)
{
	return getenv("MEMWATCH_DEBUG") != NULL;
}

void mw_debug(const char *fmt, ...)
{
	va_list ap;

	if (!mw_debugging())
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}
