// SPDX-License-Identifier: GPL-2.0
/*
 * test_webauth.c - the web config applied: the password check (bcrypt
 * hashes made by htpasswd, the cache, the stand-in hash that makes an
 * unknown user cost the same), the TLS options handed to libmicrohttpd,
 * and the warning for an endpoint open to other hosts. Requests over
 * real TLS: tests/integration/test_webconfig.c.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "web/webauth.h"
#include "web/webconfig.h"
#include "webtest.h"

static int parse(struct mw_webconfig *wc, const char *text)
{
	return webconfig__parse(wc, text, strlen(text), FILE_NAME);
}

/* ------------------------------------------------------------ passwords */

Test(webauth, password__bcrypt_cache_and_standin)
{
	struct mw_webconfig wc;
	struct mw_webauth *a;
	unsigned long runs;

	cr_assert_eq(parse(&wc, "basic_auth_users:\n  alice: " HASH_SECRET "\n  bob: " HASH_HUNTER2
			       "\n  carol: " HASH_OTHER "\n"), 0, "parses");
	cr_assert_eq(webauth__new(&a, &wc), 0, "the state is made");
	runs = webauth__bcrypt_runs(a);
	cr_expect(webauth__password_ok(a, "alice", "secret"), "alice's password");
	cr_expect_eq(webauth__bcrypt_runs(a), runs + 1, "checked with bcrypt");
	cr_expect(webauth__password_ok(a, "alice", "secret"), "again");
	cr_expect_eq(webauth__bcrypt_runs(a), runs + 1, "remembered: no bcrypt the second time");
	cr_expect_not(webauth__password_ok(a, "alice", "secreT"), "a wrong password");
	cr_expect_not(webauth__password_ok(a, "alice", "secreT"), "the same wrong password again");
	cr_expect_eq(webauth__bcrypt_runs(a), runs + 3, "failures are never remembered");
	cr_expect_not(webauth__password_ok(a, "mallory", "secret"), "an unknown user");
	cr_expect_eq(webauth__bcrypt_runs(a), runs + 4,
		     "bcrypt runs for an unknown user too: timing does not tell who exists");
	cr_expect_not(webauth__password_ok(a, "bob", "secret"), "another user's password");
	cr_expect_not(webauth__password_ok(a, "mallory", "other"),
		      "an unknown user with the password of the user whose hash stands in");
	cr_expect_not(webauth__password_ok(a, "alic", "secret"), "a prefix of a name");
	cr_expect_not(webauth__password_ok(a, "alice", ""), "an empty password");
	cr_expect(webauth__password_ok(a, "bob", "hunter2"), "bob's password");
	cr_expect(webauth__password_ok(a, "carol", "other"), "carol's, at cost 6");
	webauth__free(a);
	cr_assert_eq(webauth__new(&a, NULL), 0, "no config");
	cr_expect_null(a, "no state: everything passes");
	cr_expect_eq(webauth__admit(NULL, NULL), 1, "admitted");
	webconfig__clear(&wc);
}

/* ------------------------------------------------------------ credentials */

/* The header's name and password, or NULL; "user\npass" for comparing. */
static char *credentials(const char *header)
{
	const char *pass;
	char *user = webauth__basic_credentials(header, &pass), *both = NULL;

	if (user && asprintf(&both, "%s\n%s", user, pass) < 0)
		both = NULL;
	free(user);
	return both;
}

Test(webauth, credentials__scheme_in_any_case_as_rfc_7235_says)
{
	static const struct {
		const char *header, *want;	/* want NULL: refused */
	} cases[] = {
		{ "Basic cHJvbTpzM2NyZXQ=", "prom\ns3cret" },	/* prom:s3cret */
		{ "basic cHJvbTpzM2NyZXQ=", "prom\ns3cret" },	/* Go's EqualFold takes these */
		{ "BASIC cHJvbTpzM2NyZXQ=", "prom\ns3cret" },
		{ "bAsIc   cHJvbTpzM2NyZXQ=", "prom\ns3cret" },	/* 1*SP */
		{ "Basic cHJvbTo=", "prom\n" },			/* prom: an empty password */
		{ "Basic OmFiYw==", "\nabc" },			/* :abc an empty name */
		{ "Basic YTpiOmM=", "a\nb:c" },			/* a:b:c the name ends at the first ':' */
		{ "Basic cHJvbQ==", NULL },			/* prom: no colon */
		{ "Basic", NULL },
		{ "Basic ", NULL },
		{ "Basicx cHJvbTpzM2NyZXQ=", NULL },
		{ "Bearer cHJvbTpzM2NyZXQ=", NULL },
		{ "Basic cHJvbTpzM2NyZXQ= extra", NULL },
		{ "Basic !!!!", NULL },				/* not base64 */
		{ "Basic YQBiOmM=", NULL },			/* a NUL b:c */
		{ "", NULL },
		{ NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = credentials(cases[i].header);

		if (cases[i].want)
			cr_expect(got && !strcmp(got, cases[i].want), "'%s' gives '%s', not '%s'",
				  cases[i].header, cases[i].want, got ? got : "(refused)");
		else
			cr_expect_null(got, "'%s' is refused, not read as '%s'",
				       cases[i].header ? cases[i].header : "(no header)", got);
		free(got);
	}
}

Test(webauth, mhd_options__tls_only_when_asked)
{
	struct MHD_OptionItem items[MW_WEBAUTH_MHD_OPTIONS];
	struct mw_webconfig wc;
	struct mw_webauth *a;
	bool trust = false, key = false, notify = false;
	int n;

	webauth__mhd_options(NULL, items);
	cr_expect_eq(items[0].option, MHD_OPTION_END, "without a config: no option");
	cr_expect_eq(webauth__mhd_flags(NULL), 0, "and no TLS flag");
	cr_assert_eq(parse(&wc, USERS), 0, "basic auth alone");
	cr_assert_eq(webauth__new(&a, &wc), 0, "state");
	webauth__mhd_options(a, items);
	cr_expect_eq(items[0].option, MHD_OPTION_END, "basic auth alone: no TLS option");
	cr_expect_eq(webauth__mhd_flags(a), 0, "nor the flag");
	webauth__free(a);
	webconfig__clear(&wc);
	cr_assert_eq(parse(&wc, TLS_OK "  client_auth_type: RequireAndVerifyClientCert\n"
			   "  client_ca_file: ca.pem\n"), 0, "TLS with client certificates");
	wc.key.text = strdup("KEY");
	wc.cert.text = strdup("CERT");
	wc.client_ca.text = strdup("CA");
	cr_assert_eq(webauth__new(&a, &wc), 0, "state");
	webauth__mhd_options(a, items);
	for (n = 0; n < MW_WEBAUTH_MHD_OPTIONS && items[n].option != MHD_OPTION_END; n++) {
		trust |= items[n].option == MHD_OPTION_HTTPS_MEM_TRUST && !strcmp(items[n].ptr_value, "CA");
		key |= items[n].option == MHD_OPTION_HTTPS_MEM_KEY && !strcmp(items[n].ptr_value, "KEY");
		notify |= items[n].option == MHD_OPTION_NOTIFY_CONNECTION;
	}
	cr_expect_lt(n, MW_WEBAUTH_MHD_OPTIONS, "ended by MHD_OPTION_END");
	cr_expect(trust && key && notify, "the key, the client authority, the handshake policy");
	cr_expect_eq(webauth__mhd_flags(a), MHD_USE_TLS, "MHD_USE_TLS");
	webauth__free(a);
	webconfig__clear(&wc);
}

/* ------------------------------------------------------------- exposure */

/* The warning for a socket bound to @addr (port 0), with @wc; malloc'd. */
static char *warning_for(const char *addr, const struct mw_webconfig *wc)
{
	struct sockaddr_storage ss = { 0 };
	bool v6 = strchr(addr, ':');
	FILE *saved = stderr;
	char *out = NULL;
	size_t len = 0;
	int fd;

	ss.ss_family = v6 ? AF_INET6 : AF_INET;
	cr_assert_eq(inet_pton(ss.ss_family, addr, v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
			       (void *)&((struct sockaddr_in *)&ss)->sin_addr), 1, "%s parses", addr);
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	cr_assert(fd >= 0, "socket");
	cr_assert_eq(bind(fd, (struct sockaddr *)&ss, v6 ? sizeof(struct sockaddr_in6) :
			  sizeof(struct sockaddr_in)), 0, "bind %s", addr);
	stderr = open_memstream(&out, &len);
	webauth__warn_exposure(wc, fd, addr);
	fclose(stderr);
	stderr = saved;
	close(fd);
	return out;
}

Test(webauth, warning__only_when_open_to_other_hosts)
{
	struct mw_webconfig users, tls;
	char *w;

	cr_assert_eq(parse(&users, USERS), 0, "users only");
	cr_assert_eq(parse(&tls, TLS_OK), 0, "TLS");
	w = warning_for("127.0.0.1", NULL);
	cr_expect_str_empty(w, "loopback: nothing to say, got '%s'", w);
	free(w);
	w = warning_for("127.0.0.2", NULL);
	cr_expect_str_empty(w, "all of 127/8 is loopback, got '%s'", w);
	free(w);
	w = warning_for("::1", NULL);
	cr_expect_str_empty(w, "::1 is loopback, got '%s'", w);
	free(w);
	w = warning_for("0.0.0.0", NULL);
	cr_expect_str_eq(w, "memwatch: warning: --listen 0.0.0.0 is open to other hosts with no TLS and no password: anyone who can connect reads the metrics and heap profiles (protect it with --web-config FILE)\n",
			 "all interfaces, nothing to protect them: one line");
	free(w);
	w = warning_for("::", NULL);
	cr_expect(strstr(w, "memwatch: warning: --listen :: is open to other hosts") == w, "IPv6 too, got '%s'", w);
	free(w);
	w = warning_for("0.0.0.0", &users);
	cr_expect_str_eq(w, "memwatch: warning: --listen 0.0.0.0: " FILE_NAME " has basic_auth_users but no tls_server_config: passwords cross the network in the clear\n",
			 "passwords without TLS: one line");
	free(w);
	w = warning_for("0.0.0.0", &tls);
	cr_expect_str_empty(w, "TLS: nothing to say, got '%s'", w);
	free(w);
	webconfig__clear(&users);
	webconfig__clear(&tls);
}
