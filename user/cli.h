/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - the command line, parsed into one options struct (options.h).
 * Parsing has no side effects beyond messages on stderr, so it is unit
 * tested directly.
 */
#ifndef MW_CLI_H
#define MW_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include "options.h"

/*
 * Parses argv into @opts. Returns 0 to run, 1 when --help or --version was
 * printed (exit 0), or -1 after printing one usage error (exit 2).
 */
int cli__parse(int argc, char **argv, struct mw_options *opts);

/* The parser's long options, ended by an entry with a NULL name: what
 * --help and memwatch.8 must list (tests/unit/test_docs.c checks). */
const struct option *cli__options(void);
/* Frees what cli__parse allocated. */
void cli__free(struct mw_options *opts);

/* Applies one option read from a config file, by its long name (a flag
 * with an empty value); errors are reported as "memwatch: WHERE: ...".
 * 0 or -1. */
int cli__apply(struct mw_options *o, const char *name, const char *value,
	       const char *where);

/* A copy of @value owned by @o until cli__free (options point at their
 * values); NULL when out of memory. */
char *cli__keep(struct mw_options *o, const char *value);

/* Strict number parsers: the whole string, in range, or -1. */
int cli__parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int cli__parse_seconds(const char *s, double *out);
/* --max-overhead: a percent of one CPU in (0, MW_MAX_OVERHEAD_PERCENT]. */
int cli__parse_percent(const char *s, double *out);

#endif
