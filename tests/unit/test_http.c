// SPDX-License-Identifier: GPL-2.0
/* test_http.c - the --listen address parser and the atomic file writer. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "export/atomicfile.h"
#include "export/feed.h"
#include "web/http.h"

static int parse(const char *spec, struct sockaddr_storage *ss)
{
	socklen_t len;
	char why[256];

	return http__parse_listen(spec, ss, &len, why, sizeof(why));
}

Test(http, parse_listen__port_only__loopback)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;

	cr_assert_eq(parse("9100", &ss), 0, "a bare port parses");
	cr_expect_eq(in->sin_family, AF_INET, "IPv4");
	cr_expect_eq(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK, "127.0.0.1 by default, never all interfaces");
	cr_expect_eq(ntohs(in->sin_port), 9100, "the port");
}

Test(http, parse_listen__address_and_v6)
{
	struct sockaddr_storage ss;

	cr_expect_eq(parse("0.0.0.0:80", &ss), 0, "all interfaces when asked");
	cr_expect_eq(((struct sockaddr_in *)&ss)->sin_addr.s_addr, 0, "0.0.0.0");
	cr_expect_eq(parse("[::1]:9100", &ss), 0, "bracketed IPv6");
	cr_expect_eq(ss.ss_family, AF_INET6, "IPv6 family");
}

Test(http, parse_listen__bad__rejected)
{
	struct sockaddr_storage ss;
	const char *bad[] = { "", "0", "65536", "abc", "9100x", ":9100", "1.2.3.4:", "-1",
			      "300.1.1.1:80" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(parse(bad[i], &ss), -1, "'%s' is rejected", bad[i]);
}

Test(feed, replace_file__whole_and_0644_and_link_replaced)
{
	char dir[] = "/tmp/mw-unit-XXXXXX", path[256], target[256], buf[64];
	struct stat st;
	FILE *f;

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	f = fopen(target, "w");
	fputs("precious", f);
	fclose(f);
	cr_assert_eq(symlink(target, path), 0, "a symlink planted at the output path");
	cr_assert_eq(atomicfile__replace(path, "# EOF\n", 6), 0, "replace succeeds");
	cr_expect_eq(lstat(path, &st), 0, "the path exists");
	cr_expect(S_ISREG(st.st_mode), "the link was replaced by a file, not followed");
	cr_expect_eq(st.st_mode & 0777, 0644, "mode 0644");
	f = fopen(target, "r");
	cr_expect(fgets(buf, sizeof(buf), f) && !strcmp(buf, "precious"), "the link's target is untouched");
	fclose(f);
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	cr_expect_eq(system(buf), 0, "clean up");
}
