// SPDX-License-Identifier: GPL-2.0
/*
 * page.c - the page's files, by path. Each is a C array the Makefile made
 * from its source with xxd: user/web/assets/ for the page, and dygraphs'
 * minified script and style from Debian's libjs-dygraphs
 * (/usr/share/javascript/dygraphs), the charting library, MIT licensed.
 */
#include <string.h>
#include "web/page.h"

extern const unsigned char mw_web_index_html[], mw_web_page_js[], mw_web_page_css[],
	mw_web_dygraph_js[], mw_web_dygraph_css[];
extern const unsigned int mw_web_index_html_len, mw_web_page_js_len, mw_web_page_css_len,
	mw_web_dygraph_js_len, mw_web_dygraph_css_len;

#define MW_CT_HTML	"text/html; charset=utf-8"
#define MW_CT_JS	"text/javascript; charset=utf-8"
#define MW_CT_CSS	"text/css; charset=utf-8"

/* The lengths are variables of other objects, so not constants here. */
static const struct {
	const char *path, *type;
	const unsigned char *body;
	const unsigned int *len;
} files[] = {
	{ "/", MW_CT_HTML, mw_web_index_html, &mw_web_index_html_len },
	{ "/static/page.js", MW_CT_JS, mw_web_page_js, &mw_web_page_js_len },
	{ "/static/page.css", MW_CT_CSS, mw_web_page_css, &mw_web_page_css_len },
	{ "/static/dygraph.min.js", MW_CT_JS, mw_web_dygraph_js, &mw_web_dygraph_js_len },
	{ "/static/dygraph.min.css", MW_CT_CSS, mw_web_dygraph_css, &mw_web_dygraph_css_len },
};

int page__find(const char *path, struct mw_page_file *out)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (strcmp(path, files[i].path))
			continue;
		*out = (struct mw_page_file){ files[i].path, files[i].type, files[i].body,
					      *files[i].len };
		return 0;
	}
	return -1;
}
