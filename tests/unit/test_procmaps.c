// SPDX-License-Identifier: GPL-2.0
/*
 * test_procmaps.c - the /proc/PID/maps parser on fixture text: whole files
 * under tests/fixtures/maps_*.txt and short inline snippets, plus the libc
 * and path look-ups the attach step relies on.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "process/procmaps.h"

#define LIBC_PATH "/usr/lib/x86_64-linux-gnu/libc.so.6"

/* ------------------------------------------------------------ helpers */

static struct mw_maps parse_file(const char *path)
{
	struct mw_maps m;
	FILE *f = fopen(path, "r");
	int err;

	cr_assert_not_null(f, "fixture %s opens (run from the repo root)", path);
	err = procmaps__parse(f, &m);
	fclose(f);
	cr_assert_eq(err, 0, "procmaps__parse(%s) returns 0, got %d", path, err);
	return m;
}

static struct mw_maps parse_text(const char *text)
{
	struct mw_maps m;
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	cr_assert_not_null(f, "fmemopen of the snippet succeeds");
	err = procmaps__parse(f, &m);
	fclose(f);
	cr_assert_eq(err, 0, "procmaps__parse returns 0 on a snippet, got %d", err);
	return m;
}

/* ------------------------------------------------------------ parse */

Test(procmaps, parse__typical_file__every_line_read)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_eq(m.n, 19, "all 19 lines of maps_typical.txt are mappings, got %zu", m.n);
	cr_assert_str_eq(m.v[18].path, "[vsyscall]", "the last line is the last mapping");
	procmaps__free(&m);
}

Test(procmaps, parse__file_backed_line__every_field_read)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");
	const struct mw_mapping *x = &m.v[9];	/* libc's r-xp line */

	cr_assert_eq(x->start, 0x7f0c1a228000ull, "start address is read as hex");
	cr_assert_eq(x->end, 0x7f0c1a3bd000ull, "end address is read as hex");
	cr_assert_str_eq(x->perms, "r-xp", "permissions are the four flag letters");
	cr_assert_eq(x->offset, 0x28000ull, "file offset is read as hex");
	cr_assert_eq(x->inode, 1835ull, "inode is read as decimal");
	cr_assert_str_eq(x->path, LIBC_PATH, "path is the text after the padding");
	cr_assert_eq(x->deleted, 0, "a live file is not flagged deleted");
	procmaps__free(&m);
}

Test(procmaps, parse__path_with_spaces__kept_whole)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_str_eq(m.v[0].path, "/opt/my app/bin/server v2",
			 "a path with spaces is kept whole, got '%s'", m.v[0].path);
	procmaps__free(&m);
}

Test(procmaps, parse__deleted_suffix__flagged_and_stripped)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_str_eq(m.v[13].path, "/tmp/plugin.so",
			 "' (deleted)' is cut off the path, got '%s'", m.v[13].path);
	cr_assert_eq(m.v[13].deleted, 1, "an unlinked file is flagged deleted");
	cr_assert_str_eq(m.v[6].path, "/memfd:jit-cache",
			 "a deleted memfd loses the suffix too, got '%s'", m.v[6].path);
	cr_assert_eq(m.v[6].deleted, 1, "a deleted memfd is flagged deleted");
	procmaps__free(&m);
}

Test(procmaps, parse__deleted_inside_path__not_flagged)
{
	struct mw_maps m = parse_text(
		"7f0000000000-7f0000001000 r--p 00000000 fe:01 7 /srv/a (deleted) b\n"
		"7f0000001000-7f0000002000 r--p 00000000 fe:01 8 /srv/(deleted)\n");

	cr_assert_eq(m.n, 2, "both lines are mappings");
	cr_assert_str_eq(m.v[0].path, "/srv/a (deleted) b",
			 "' (deleted)' in the middle of a path is part of the name");
	cr_assert_eq(m.v[0].deleted, 0, "only a trailing ' (deleted)' flags deletion");
	cr_assert_str_eq(m.v[1].path, "/srv/(deleted)",
			 "'(deleted)' without the space is part of the name");
	cr_assert_eq(m.v[1].deleted, 0, "'(deleted)' without the space does not flag");
	procmaps__free(&m);
}

Test(procmaps, parse__anonymous_mapping__empty_path)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_not_null(m.v[7].path, "an anonymous mapping still has a path string");
	cr_assert_str_eq(m.v[7].path, "", "an anonymous mapping's path is empty");
	cr_assert_eq(m.v[7].inode, 0ull, "an anonymous mapping has inode 0");
	cr_assert_eq(m.v[7].start, 0x7f0c1a1ff000ull, "an anonymous mapping keeps its range");
	procmaps__free(&m);
}

Test(procmaps, parse__anonymous_without_trailing_space__empty_path)
{
	struct mw_maps m = parse_text("7f0000000000-7f0000001000 rw-p 00000000 00:00 0\n");

	cr_assert_eq(m.n, 1, "a line ending right after the inode is a mapping");
	cr_assert_str_eq(m.v[0].path, "", "its path is empty");
	procmaps__free(&m);
}

Test(procmaps, parse__pseudo_paths__kept_verbatim)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_str_eq(m.v[3].path, "[heap]", "[heap] is kept as its path");
	cr_assert_str_eq(m.v[15].path, "[stack]", "[stack] is kept as its path");
	cr_assert_str_eq(m.v[17].path, "[vdso]", "[vdso] is kept as its path");
	cr_assert_str_eq(m.v[17].perms, "r-xp", "[vdso] permissions are read");
	cr_assert_eq(m.v[18].start, 0xffffffffff600000ull,
		     "a 64-bit address with the top bit set is read whole");
	procmaps__free(&m);
}

Test(procmaps, parse__malformed_lines__skipped)
{
	struct mw_maps m = parse_text(
		"00400000-00401000 r-xp 00000000 08:01 11 /bin/first\n"
		"\n"
		"garbage line\n"
		"00402000 r--p 00000000 08:01 11 /bin/no-dash\n"
		"00403000-00404000\n"
		"00403000-00404000 r--p\n"
		"00403000-00404000 r--p zzzz 08:01 11 /bin/bad-offset\n"
		"00403000-00404000 r--p 00000000 0801 11 /bin/bad-device\n"
		"00403000-00404000 r--p 00000000 08:01 /bin/no-inode\n"
		"00405000-00404000 r--p 00000000 08:01 11 /bin/end-before-start\n"
		"00406000-00407000 rw-p 00001000 08:01 11 /bin/last\n");

	cr_assert_eq(m.n, 2, "only the two well-formed lines are kept, got %zu", m.n);
	cr_assert_str_eq(m.v[0].path, "/bin/first", "the first good line is first");
	cr_assert_str_eq(m.v[1].path, "/bin/last",
			 "a good line after malformed ones is still read");
	cr_assert_eq(m.v[1].offset, 0x1000ull, "the line after the junk is read whole");
	procmaps__free(&m);
}

Test(procmaps, parse__empty_input__no_mappings)
{
	/* stale values, to see that the parser resets them */
	struct mw_maps m = { .v = (void *)1, .n = 99 };
	FILE *f = tmpfile();
	int err;

	cr_assert_not_null(f, "tmpfile() succeeds");
	err = procmaps__parse(f, &m);
	fclose(f);
	cr_assert_eq(err, 0, "empty input parses without error, got %d", err);
	cr_assert_eq(m.n, 0, "empty input has no mappings");
	cr_assert_null(m.v, "empty input leaves no array behind");
	procmaps__free(&m);
}

Test(procmaps, parse__last_line_without_newline__read)
{
	struct mw_maps m = parse_text(
		"00400000-00401000 r-xp 00000000 08:01 11 /bin/a\n"
		"00401000-00402000 r--p 00001000 08:01 11 /bin/b");

	cr_assert_eq(m.n, 2, "a last line without '\\n' is still a mapping");
	cr_assert_str_eq(m.v[1].path, "/bin/b", "its path has nothing cut off");
	procmaps__free(&m);
}

Test(procmaps, parse__long_path_and_many_lines__kept_whole)
{
	enum { NLINES = 300, PATHLEN = 5000 };
	char *path = malloc(PATHLEN + 1);
	char *buf;
	size_t buflen;
	FILE *f = open_memstream(&buf, &buflen);
	struct mw_maps m;

	cr_assert_not_null(path, "path buffer allocates");
	cr_assert_not_null(f, "open_memstream succeeds");
	path[0] = '/';
	memset(path + 1, 'p', PATHLEN - 1);
	path[PATHLEN] = '\0';
	for (int i = 0; i < NLINES; i++)
		fprintf(f, "%x-%x r--p 00000000 08:01 %d %s\n",
			0x10000 * (i + 1), 0x10000 * (i + 2), i, path);
	fclose(f);
	m = parse_text(buf);
	cr_assert_eq(m.n, (size_t)NLINES, "all %d lines are read past the first array growth", NLINES);
	cr_assert_eq(strlen(m.v[NLINES - 1].path), (size_t)PATHLEN,
		     "a %d-byte path is not truncated", PATHLEN);
	cr_assert_eq(m.v[NLINES - 1].inode, (uint64_t)(NLINES - 1), "the last line's own fields are kept");
	procmaps__free(&m);
	free(buf);
	free(path);
}

/* ------------------------------------------------------------ free, load */

Test(procmaps, free__parsed_maps__left_empty)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	procmaps__free(&m);
	cr_assert_eq(m.n, 0, "free leaves no mappings counted");
	cr_assert_null(m.v, "free leaves no dangling array");
}

Test(procmaps, load__own_process__libc_found)
{
	struct mw_maps m;
	int err = procmaps__load(getpid(), &m);

	cr_assert_eq(err, 0, "reading our own /proc/PID/maps works, got %d", err);
	cr_assert_gt(m.n, 0, "our own process has mappings");
	cr_assert_not_null(procmaps__find_libc(&m), "the test binary maps glibc's libc");
	procmaps__free(&m);
}

Test(procmaps, load__no_such_process__enoent)
{
	struct mw_maps m;
	/* above PID_MAX_LIMIT (4194304): never a live process */
	int err = procmaps__load(4194305 + 7, &m);

	cr_assert_eq(err, -ENOENT, "a pid with no /proc entry gives -ENOENT, got %d", err);
}

/* ------------------------------------------------------------ find_libc */

Test(procmaps, find_libc__libc_so_6__first_libc_mapping)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");
	const struct mw_mapping *libc = procmaps__find_libc(&m);

	cr_assert_not_null(libc, "libc.so.6 is found");
	cr_assert_str_eq(libc->path, LIBC_PATH, "the libc mapping is returned, not libcrypto");
	cr_assert_eq(libc, &m.v[8], "the first of libc's five mappings is returned");
	procmaps__free(&m);
}

Test(procmaps, find_libc__old_libc_2_31__found)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_old_libc.txt");
	const struct mw_mapping *libc = procmaps__find_libc(&m);

	cr_assert_not_null(libc, "libc-2.31.so (glibc before 2.34) is found");
	cr_assert_str_eq(libc->path, "/lib/x86_64-linux-gnu/libc-2.31.so",
			 "the old-style libc path is returned");
	cr_assert_eq(libc, &m.v[2], "its first mapping is returned");
	procmaps__free(&m);
}

Test(procmaps, find_libc__lookalike_names_only__null)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_no_libc.txt");
	const struct mw_mapping *libc = procmaps__find_libc(&m);

	cr_assert_eq(m.n, 10, "all look-alike lines parse");
	cr_assert_null(libc, "libcrypto.so.3, libc.so.6.bak, libc-2.31.so.bak, mylibc.so.6, "
		       "a libc.so.6 directory, musl libc.so, libc-2.so and [anon:libc.so.6] "
		       "are not glibc; got '%s'", libc ? libc->path : "");
	procmaps__free(&m);
}

Test(procmaps, find_libc__each_lookalike__not_matched)
{
	static const char *const names[] = {
		"/usr/lib/libcrypto.so.3", "/usr/lib/libc.so.6.bak",
		"/usr/lib/libc.so.60", "/usr/lib/libc.so", "/usr/lib/libc.so.6~",
		"/usr/lib/libc-2.31.so.bak", "/usr/lib/libc-2.31.so~",
		"/usr/lib/libc-2.31.xo", "/usr/lib/libc-2.so",
		"/usr/lib/libc-3.1.so", "/usr/lib/mylibc.so.6",
		"/libc.so.6/libm.so.6",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char line[256];
		struct mw_maps m;

		snprintf(line, sizeof(line),
			 "7f0000000000-7f0000001000 r--p 00000000 fe:01 9 %s\n", names[i]);
		m = parse_text(line);
		cr_assert_eq(m.n, 1, "the line for %s parses", names[i]);
		cr_assert_null(procmaps__find_libc(&m), "%s is not taken for libc", names[i]);
		procmaps__free(&m);
	}
}

Test(procmaps, find_libc__deleted_libc__found_without_suffix)
{
	struct mw_maps m = parse_text(
		"7f0000000000-7f0000001000 r--p 00000000 fe:01 9 /usr/lib/libc.so.6 (deleted)\n");
	const struct mw_mapping *libc = procmaps__find_libc(&m);

	cr_assert_not_null(libc, "a libc replaced by an upgrade is still the process's libc");
	cr_assert_eq(libc->deleted, 1, "and it is flagged deleted");
	procmaps__free(&m);
}

Test(procmaps, find_libc__empty_maps__null)
{
	struct mw_maps m = { 0 };

	cr_assert_null(procmaps__find_libc(&m), "no mappings means no libc");
}

/* ------------------------------------------------------------ find_path */

Test(procmaps, find_path__mapped_file__first_mapping)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");
	const struct mw_mapping *x = procmaps__find_path(&m, "/opt/my app/bin/server v2");

	cr_assert_eq(x, &m.v[0], "the first mapping of the executable is returned");
	x = procmaps__find_path(&m, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	cr_assert_eq(x, &m.v[14], "the loader's only mapping is returned");
	procmaps__free(&m);
}

Test(procmaps, find_path__deleted_file__matched_without_suffix)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_eq(procmaps__find_path(&m, "/tmp/plugin.so"), &m.v[13],
		     "a deleted file is found by its path without ' (deleted)'");
	procmaps__free(&m);
}

Test(procmaps, find_path__unmapped_or_partial_path__null)
{
	struct mw_maps m = parse_file("tests/fixtures/maps_typical.txt");

	cr_assert_null(procmaps__find_path(&m, "/usr/lib/x86_64-linux-gnu/libz.so.1"),
		       "an unmapped file is not found");
	cr_assert_null(procmaps__find_path(&m, "/usr/lib/x86_64-linux-gnu/libc.so"),
		       "a prefix of a mapped path does not match");
	cr_assert_null(procmaps__find_path(&m, "libc.so.6"),
		       "a base name alone does not match a full path");
	cr_assert_null(procmaps__find_path(&m, "/opt/my app/bin/server"),
		       "a path cut at a space does not match");
	procmaps__free(&m);
}

Test(procmaps, is_libc__glibc_names_only)
{
	cr_expect(procmaps__is_libc("/usr/lib/x86_64-linux-gnu/libc.so.6"), "glibc 2.34 and later");
	cr_expect(procmaps__is_libc("libc-2.31.so"), "glibc before 2.34");
	cr_expect(!procmaps__is_libc("/usr/lib/libc.so.6.bak"), "not a copy beside it");
	cr_expect(!procmaps__is_libc("/usr/lib/libcrypt.so.1"), "not another libc*");
	cr_expect(!procmaps__is_libc("/lib/libc-2.31.so.old"), "not an old one's leftover");
}
