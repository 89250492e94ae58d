/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page.h - the live page at / (--listen) and the files it loads: its own
 * script and style, and Debian's dygraphs, all built into the binary
 * (user/web/assets/, the Makefile's web rules), so memwatch stays one file
 * and the page fetches nothing from the network.
 */
#ifndef MW_PAGE_H
#define MW_PAGE_H

#include <stddef.h>

struct mw_page_file {
	const char *path;	/* "/", "/static/page.js", ... */
	const char *type;	/* Content-Type */
	const unsigned char *body;
	size_t len;
};

/* The file served at @path into @out: 0, or -1 when there is none. */
int page__find(const char *path, struct mw_page_file *out);

#endif
