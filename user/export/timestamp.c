// SPDX-License-Identifier: GPL-2.0
/* timestamp.c - the one way memwatch writes a time: RFC 3339, UTC, ms. */
#include <stdio.h>
#include <time.h>
#include "export/timestamp.h"

void timestamp__rfc3339(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char sec[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", sec, ts->tv_nsec / 1000000);
}

