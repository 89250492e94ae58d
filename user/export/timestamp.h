/* SPDX-License-Identifier: GPL-2.0 */
/* timestamp.h - times as every output writes them. */
#ifndef MW_TIMESTAMP_H
#define MW_TIMESTAMP_H

#include <stddef.h>
#include <time.h>

/* @ts as "2026-12-03T08:31:37.123Z" (RFC 3339, UTC, milliseconds) into
 * @buf, truncated to @len. */
void timestamp__rfc3339(const struct timespec *ts, char *buf, size_t len);

#endif
