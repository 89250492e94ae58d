// SPDX-License-Identifier: GPL-2.0
/*
 * procmaps.c - parse /proc/PID/maps into mappings. Lines look like
 *   7f0c1a200000-7f0c1a228000 r--p 00000000 fe:01 1835 /usr/lib/libc.so.6
 * The path may hold spaces and may end in " (deleted)".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "process/procmaps.h"

static const char deleted_suffix[] = " (deleted)";

/* One line into @m; 0, or -1 if the line is not a mapping. */
static int parse_line(char *line, struct mw_mapping *m)
{
	char *path, *nl;
	size_t len, dl = sizeof(deleted_suffix) - 1;
	int n = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*x:%*x %" SCNu64 "%n",
		   &m->start, &m->end, m->perms, &m->offset, &m->inode, &n) != 5 ||
	    n == 0 || m->end < m->start)
		return -1;
	path = line + n;
	while (*path == ' ' || *path == '\t')
		path++;
	nl = strchr(path, '\n');
	if (nl)
		*nl = '\0';
	len = strlen(path);
	if (len > dl && !strcmp(path + len - dl, deleted_suffix)) {
		path[len - dl] = '\0';
		m->deleted = 1;
	}
	m->path = strdup(path);
	return m->path ? 0 : -1;
}

int procmaps__parse(FILE *f, struct mw_maps *out)
{
	size_t cap = 0, linecap = 0;
	char *line = NULL;
	struct mw_mapping m;

	out->v = NULL;
	out->n = 0;
	while (getline(&line, &linecap, f) >= 0) {
		if (parse_line(line, &m))
			continue;
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct mw_mapping *nv = realloc(out->v, ncap * sizeof(*nv));

			if (!nv) {
				free(m.path);
				free(line);
				procmaps__free(out);
				return -ENOMEM;
			}
			out->v = nv;
			cap = ncap;
		}
		out->v[out->n++] = m;
	}
	free(line);
	return 0;
}

int procmaps__load(pid_t pid, struct mw_maps *out)
{
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = procmaps__parse(f, out);
	fclose(f);
	return err;
}

void procmaps__free(struct mw_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

bool procmaps__is_libc(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int minor;
	char end;

	if (!strcmp(base, "libc.so.6"))
		return 1;
	/* glibc before 2.34 installed libc-2.NN.so */
	return sscanf(base, "libc-2.%d.s%c", &minor, &end) == 2 && end == 'o' &&
	       !strcmp(strrchr(base, '.'), ".so");
}

const struct mw_mapping *procmaps__find_libc(const struct mw_maps *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *p = m->v[i].path;

		if (p[0] != '/')
			continue;
		if (procmaps__is_libc(p))
			return &m->v[i];
	}
	return NULL;
}

const struct mw_mapping *procmaps__find_path(const struct mw_maps *m,
					     const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].path, path))
			return &m->v[i];
	return NULL;
}
