// SPDX-License-Identifier: GPL-2.0
/*
 * test_docs.c - what users read agrees with the code: docs/metrics.md is
 * what fields.c's tables say today; --help and memwatch.8 list every
 * option the parser has, and they, the README and docs/ name no option it
 * does not have; each exit status of exitcodes.h is in --help, the man
 * page and the README.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "cli.h"
#include "exitcodes.h"
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
		cr_expect(strstr(doc, mw_struct_fields[k].metric ? mw_struct_fields[k].metric :
				 mw_struct_fields[k].csv), "structure figure %d documented", k);
	for (int k = 0; k < MW_SITE__COUNT; k++)
		cr_expect(strstr(doc, mw_site_fields[k].metric), "%s documented",
			  mw_site_fields[k].metric);
	for (size_t i = 0; i < mw_nglibc_fields; i++)
		cr_expect(strstr(doc, mw_glibc_fields[i].metric), "%s documented",
			  mw_glibc_fields[i].metric);
	free(doc);
}

/* ---------------------------------------------------------- options */

#define MAN_PAGE "user/memwatch.8"

/* Other programs' options that the documents quote (Prometheus's
 * --web.*, chromium's, systemd-run's, prlimit's). */
static const char *const foreign[] = { "web", "headless", "screenshot", "scope", "dry-run", "as" };

/* memwatch --help, as the parser prints it. */
static char *help_text(void)
{
	char *argv[] = { "memwatch", "--help", NULL };
	struct mw_options o;
	struct capture out;
	char *text;

	capture__start(&out, stdout);
	cr_assert_eq(cli__parse(2, argv, &o), 1, "--help is printed");
	text = capture__end(&out);
	cli__free(&o);
	return text;
}

/* The man page with roff's \- read as -. */
static char *man_text(void)
{
	size_t len;
	char *t = slurp(MAN_PAGE, &len), *o = t;

	for (char *i = t; *i; i++) {
		if (i[0] == '\\' && i[1] == '-')
			i++;
		*o++ = *i;
	}
	*o = '\0';
	return t;
}

static bool is_option(const char *name, size_t len)
{
	for (const struct option *o = cli__options(); o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return true;
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		if (strlen(foreign[i]) == len && !strncmp(foreign[i], name, len))
			return true;
	return false;
}

/* Every --name in @text is the parser's (or a foreign program's). */
static void expect_known(const char *text, const char *what)
{
	for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
		const char *n = p + 2;
		size_t len = 0;

		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-'))
			continue;	/* a ---- rule, or x--y */
		while (isalnum((unsigned char)n[len]) || n[len] == '-')
			len++;
		if (!len || !isalpha((unsigned char)n[0]))
			continue;
		cr_expect(is_option(n, len), "%s names --%.*s, which memwatch does not have",
			  what, (int)len, n);
	}
}

/* Whether @text has --@name as a whole option. */
static bool has_option(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--"))
		if (!strncmp(p + 2, name, len) &&
		    !(isalnum((unsigned char)p[2 + len]) || p[2 + len] == '-'))
			return true;
	return false;
}

Test(docs, options__help_and_man_page_list_every_option)
{
	char *help = help_text(), *man = man_text();

	for (const struct option *o = cli__options(); o->name; o++) {
		cr_expect(has_option(help, o->name), "--help lists --%s", o->name);
		cr_expect(has_option(man, o->name), "memwatch.8 lists --%s", o->name);
	}
	free(help);
	free(man);
}

Test(docs, options__no_document_names_one_memwatch_lacks)
{
	const char *docs[] = { "README.md", "docs/metrics.md" };
	char *help = help_text(), *man = man_text();

	expect_known(help, "--help");
	expect_known(man, "memwatch.8");
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		size_t len;
		char *t = slurp(docs[i], &len);

		expect_known(t, docs[i]);
		free(t);
	}
	free(help);
	free(man);
}

/* -------------------------------------------------------- exit codes */

/* Whether @text[0..len) has @code as a number of its own. */
static bool has_code(const char *text, size_t len, int code)
{
	char word[16];
	size_t n = (size_t)snprintf(word, sizeof(word), "%d", code);

	for (size_t i = 0; i + n <= len; i++) {
		if (strncmp(text + i, word, n))
			continue;
		if ((i && (isdigit((unsigned char)text[i - 1]) || text[i - 1] == '.')) ||
		    (i + n < len && (isdigit((unsigned char)text[i + n]) || text[i + n] == '.')))
			continue;
		return true;
	}
	return false;
}

/* The part of @text from @from up to @to (or its end). */
static size_t part(const char *text, const char *from, const char *to, const char **out)
{
	const char *a = strstr(text, from), *b;

	cr_assert(a, "the text has [%s]", from);
	b = to ? strstr(a + strlen(from), to) : NULL;
	*out = a;
	return b ? (size_t)(b - a) : strlen(a);
}

Test(docs, exit_codes__each_in_help_man_page_and_readme)
{
	static const int codes[] = {
		MW_EXIT_OK, MW_EXIT_FAIL, MW_EXIT_USAGE, MW_EXIT_LAUNCH_FAIL,
		MW_EXIT_CANNOT_EXEC, MW_EXIT_NOT_FOUND, MW_EXIT_SIGNALED,
	};
	char *help = help_text(), *man = man_text(), *readme;
	const char *h, *m, *r;
	size_t len, hlen, mlen, rlen;

	readme = slurp("README.md", &len);
	hlen = part(help, "Exit:", NULL, &h);
	mlen = part(man, ".SH EXIT STATUS", "\n.SH", &m);
	rlen = part(readme, "Exit codes:", "\n\n", &r);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		cr_expect(has_code(h, hlen, codes[i]), "--help gives exit status %d", codes[i]);
		cr_expect(has_code(m, mlen, codes[i]), "memwatch.8's EXIT STATUS gives %d", codes[i]);
		cr_expect(has_code(r, rlen, codes[i]), "the README's exit codes give %d", codes[i]);
	}
	free(help);
	free(man);
	free(readme);
}
