/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture.h - what a unit under test writes to stdout or stderr, caught
 * through a temporary file (the parser prints --help and its one error
 * line itself).
 */
#ifndef MW_TEST_CAPTURE_H
#define MW_TEST_CAPTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* What went to one of stdout or stderr meanwhile. */
struct capture {
	int fd, saved;
	FILE *file, *stream;
};

static inline void capture__start(struct capture *c, FILE *stream)
{
	c->stream = stream;
	c->fd = fileno(stream);
	fflush(stream);
	c->file = tmpfile();
	cr_assert_not_null(c->file, "tmpfile() works");
	c->saved = dup(c->fd);
	cr_assert(c->saved >= 0 && dup2(fileno(c->file), c->fd) >= 0, "fd %d is redirected", c->fd);
}

/* Ends the capture; returns what was written, malloc'd. */
static inline char *capture__end(struct capture *c)
{
	long len;
	char *text;

	fflush(c->stream);
	dup2(c->saved, c->fd);
	close(c->saved);
	len = ftell(c->file);
	text = calloc(1, (size_t)len + 1);
	cr_assert_not_null(text, "the capture is read");
	rewind(c->file);
	cr_assert_eq(fread(text, 1, (size_t)len, c->file), (size_t)len, "the capture is read whole");
	fclose(c->file);
	return text;
}

#endif
