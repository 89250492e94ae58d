// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the config file: each line "KEY VALUE" means "--KEY VALUE" on
 * the command line, so both share one parser (cli__apply) and one
 * meaning. VALUE is the rest of the line, trimmed, so a C++ signature with
 * spaces needs no quoting:
 *
 *   # consensus DAG
 *   struct dag
 *   insert dag::Consensus::insert_certificate
 *   delta  ret
 *   remove dag::Consensus::gc
 *   delta  ret
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "config.h"
#include "log.h"

#define MW_CONFIG_LINE_MAX 4096

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int config__parse(struct mw_options *o, FILE *f, const char *name)
{
	char line[MW_CONFIG_LINE_MAX], where[512];
	int lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		char *key, *value;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			mw_err("%s: line longer than %d bytes", where, MW_CONFIG_LINE_MAX - 1);
			return -1;
		}
		if (strlen(line) != strcspn(line, "\n") + (strchr(line, '\n') != NULL)) {
			mw_err("%s: a NUL byte in the line", where);
			return -1;
		}
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		value = key + strcspn(key, " \t");
		if (*value)
			*value++ = '\0';
		value = trim(value);
		if (!*value) {
			mw_err("%s: '%s' needs a value", where, key);
			return -1;
		}
		if (cli__apply(o, key, value, where))
			return -1;
	}
	if (ferror(f)) {
		mw_err("cannot read %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

int config__load(struct mw_options *o, const char *path)
{
	FILE *f = fopen(path, "re");
	int err;

	if (!f) {
		mw_err("cannot open config file %s: %s", path, strerror(errno));
		return -1;
	}
	err = config__parse(o, f, path);
	fclose(f);
	return err;
}
