// SPDX-License-Identifier: GPL-2.0
/*
 * test_docs.c - docs/metrics.md is what fields.c's tables say today, and
 * every figure the writers name is in it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/fields.h"

#define METRICS_DOC "docs/metrics.md"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	FILE *mem = open_memstream(&buf, &cap);
	int c;

	cr_assert(f, "%s exists", path);
	cr_assert(mem, "memory");
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(f);
	fclose(mem);
	*len = cap;
	return buf;
}

Test(docs, metrics_md__is_what_fields_c_says)
{
	char *want = NULL, *have;
	size_t wlen = 0, hlen;
	FILE *mem = open_memstream(&want, &wlen);

	cr_assert(mem, "memory");
	fields__document(mem);
	fclose(mem);
	have = slurp(METRICS_DOC, &hlen);
	cr_expect(hlen == wlen && !memcmp(have, want, wlen),
		  "%s is stale: run make docs and commit it", METRICS_DOC);
	free(want);
	free(have);
}

Test(docs, metrics_md__names_every_figure)
{
	size_t len;
	char *doc = slurp(METRICS_DOC, &len);

	for (size_t i = 0; i < mw_ncounter_fields; i++)
		cr_expect(strstr(doc, mw_counter_fields[i].csv), "%s documented",
			  mw_counter_fields[i].csv);
	for (int k = 0; k < MW_TF__COUNT; k++)
		cr_expect(strstr(doc, mw_target_fields[k].csv ? mw_target_fields[k].csv :
				 mw_target_fields[k].metric), "target figure %d documented", k);
	for (int k = 0; k < MW_STF__COUNT; k++)
		cr_expect(strstr(doc, mw_struct_fields[k].metric), "%s documented",
			  mw_struct_fields[k].metric);
	for (int k = 0; k < MW_SITE__COUNT; k++)
		cr_expect(strstr(doc, mw_site_fields[k].metric), "%s documented",
			  mw_site_fields[k].metric);
	for (size_t i = 0; i < mw_nglibc_fields; i++)
		cr_expect(strstr(doc, mw_glibc_fields[i].metric), "%s documented",
			  mw_glibc_fields[i].metric);
	free(doc);
}
