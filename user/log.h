/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - the one error funnel. Every message is a single line on stderr
 * that starts with "memwatch: "; stdout carries only the feed.
 */
#ifndef MW_LOG_H
#define MW_LOG_H

#include <stdbool.h>

void mw_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True when MEMWATCH_DEBUG is set in the environment. */
bool mw_debugging(void);
/* A line as mw_err's, said only when debugging: what memwatch did, for
 * whoever reads a bug report. */
void mw_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
