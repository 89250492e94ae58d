// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the config file: each line "KEY VALUE" means "--KEY VALUE" on
 * the command line (a flag is its KEY alone), for every long option but
 * config, help and version, so both share one parser (cli__apply) and
 * one meaning. VALUE is the rest of the line, trimmed, so a C++ signature
 * with spaces needs no quoting:
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
	char *line = NULL, where[512];
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, err = 0;

	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		char *key, *value;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len >= MW_CONFIG_LINE_MAX) {
			mw_err("%s: line longer than %d bytes", where, MW_CONFIG_LINE_MAX - 1);
			err = -1;
			break;
		}
		if ((size_t)len != strlen(line)) {	/* getline counts past a NUL */
			mw_err("%s: a NUL byte in the line", where);
			err = -1;
			break;
		}
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		value = key + strcspn(key, " \t");
		if (*value)
			*value++ = '\0';
		value = trim(value);
		/* options keep pointers to their values: the line is reused */
		value = cli__keep(o, value);
		err = value ? cli__apply(o, key, value, where) : (mw_err("out of memory"), -1);
	}
	if (!err && ferror(f)) {
		mw_err("cannot read %s: %s", name, strerror(errno));
		err = -1;
	}
	free(line);
	return err ? -1 : 0;
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
