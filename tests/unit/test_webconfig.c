// SPDX-License-Identifier: GPL-2.0
/*
 * test_webconfig.c - --web-config: the exporter-toolkit YAML parsed from
 * fixture text (what it gives, and a table of bad files, each with its
 * one line), then files and certificates loaded through GnuTLS (made here
 * with openssl).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "web/webconfig.h"

#include "webtest.h"

/* What went to stderr (mw_err writes through the stderr stream) while
 * @wc was parsed from @text; malloc'd. */
static char *parse_quietly(struct mw_webconfig *wc, const char *text, const char *file, int *rc)
{
	FILE *saved = stderr;
	char *out = NULL;
	size_t len = 0;

	stderr = open_memstream(&out, &len);
	cr_assert_not_null(stderr, "open_memstream works");
	*rc = webconfig__parse(wc, text, strlen(text), file);
	fclose(stderr);
	stderr = saved;
	return out;
}

static int parse(struct mw_webconfig *wc, const char *text)
{
	int rc;
	char *err = parse_quietly(wc, text, FILE_NAME, &rc);

	cr_expect(rc || !*err, "a good file says nothing, got '%s'", err);
	free(err);
	return rc;
}

Test(webconfig, full_file__every_key_read)
{
	struct mw_webconfig wc;

	cr_assert_eq(parse(&wc, "# as node_exporter reads it\n"
			       "tls_server_config:\n"
			       "  cert_file: tls/memwatch.crt\n"
			       "  key_file: /etc/ssl/private/memwatch.key\n"
			       "  client_ca_file: ../ca.pem\n"
			       "  client_auth_type: \"RequireAndVerifyClientCert\"\n"
			       "http_server_config:\n"
			       "  http2: false\n"
			       "basic_auth_users:\n"
			       "  alice: " HASH_SECRET "\n"
			       "  'bob smith': '" HASH_OTHER "'\n"), 0, "the file parses");
	cr_expect(wc.tls, "TLS asked for");
	cr_expect_str_eq(wc.cert.path, "/etc/memwatch/tls/memwatch.crt",
			 "a relative path is relative to the config's folder");
	cr_expect_str_eq(wc.key.path, "/etc/ssl/private/memwatch.key", "an absolute path is kept");
	cr_expect_str_eq(wc.client_ca.path, "/etc/memwatch/../ca.pem", "client_ca_file resolved");
	cr_expect_null(wc.cert.text, "PEM text is read by load, not by parse");
	cr_expect_eq(wc.client_auth, MW_CLIENT_REQUIRE_VERIFY, "client_auth_type");
	cr_expect_eq(wc.min_version, 12, "min_version defaults to TLS12, as in the toolkit");
	cr_expect_eq(wc.max_version, 13, "max_version defaults to TLS13");
	cr_expect_str_eq(wc.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE",
			 "GnuTLS priorities: TLS 1.2 and 1.3, the server's order");
	cr_expect_not(wc.http2, "http2: false read");
	cr_assert_eq(wc.nusers, 2, "two users");
	cr_expect_str_eq(wc.users[0].name, "alice", "first user");
	cr_expect_str_eq(wc.users[0].hash, HASH_SECRET, "her hash");
	cr_expect_eq(wc.users[0].cost, 4, "its cost");
	cr_expect_str_eq(wc.users[1].name, "bob smith", "a quoted name with a space");
	cr_expect_eq(wc.users[1].cost, 6, "cost 6");
	cr_expect_str_eq(wc.cert.key, "tls_server_config.cert_file", "messages name the key");
	cr_expect_eq(wc.cert.line, 3, "and its line");
	webconfig__clear(&wc);
}

Test(webconfig, versions_names_inline__read)
{
	struct mw_webconfig wc;

	cr_assert_eq(parse(&wc, "tls_server_config:\n"
			       "  cert: |\n"
			       "    -----BEGIN CERTIFICATE-----\n"
			       "    AAAA\n"
			       "    -----END CERTIFICATE-----\n"
			       "  key_file: k.pem\n"
			       "  client_auth_type: RequireClientCert\n"
			       "  min_version: TLS13\n"
			       "  prefer_server_cipher_suites: false\n"), 0, "parses");
	cr_expect_str_eq(wc.cert.text, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
			 "an inline certificate is the text itself");
	cr_expect_null(wc.cert.path, "and no path");
	cr_expect_eq(wc.client_auth, MW_CLIENT_REQUIRE_ANY, "the toolkit's old RequireClientCert");
	cr_expect_str_eq(wc.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3", "TLS 1.3 only, the client's order");
	webconfig__clear(&wc);
	cr_assert_eq(parse(&wc, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
			       "  min_version: TLS10\n  max_version: TLS11\n"), 0, "old versions, if asked");
	cr_expect_str_eq(wc.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0:%SERVER_PRECEDENCE",
			 "1.0 and 1.1");
	webconfig__clear(&wc);
	cr_assert_eq(webconfig__parse(&wc, TLS_OK, strlen(TLS_OK), "web.yml"), 0,
		     "a file in the working folder");
	cr_expect_str_eq(wc.cert.path, "c.pem", "its paths stay relative to it");
	webconfig__clear(&wc);
}

Test(webconfig, users_only_and_empty_sections__read)
{
	struct mw_webconfig wc;

	cr_assert_eq(parse(&wc, "tls_server_config:\nhttp_server_config: ~\n"
			       "basic_auth_users:\n  alice: " HASH_SECRET "\n"), 0, "parses");
	cr_expect_not(wc.tls, "an empty tls_server_config: no TLS (basic auth alone)");
	cr_expect_eq(wc.nusers, 1, "one user");
	webconfig__clear(&wc);
}

struct bad_case {
	const char *text;
	const char *line;	/* the whole line on stderr, after "memwatch: FILE" */
};

static const struct bad_case bad_cases[] = {
	{ "", ": top level: the file is empty: it would protect nothing" },
	{ "# nothing\n", ": top level: the file is empty: it would protect nothing" },
	{ "tls_server_config:\nbasic_auth_users:\n",
	  ": top level: neither tls_server_config nor basic_auth_users: the file would protect nothing" },
	{ "- a\n- b\n", ":1: top level: expected a mapping of tls_server_config, http_server_config and basic_auth_users, not a list" },
	{ "foo: 1\n", ":1: foo: unknown key: the file holds tls_server_config, http_server_config and basic_auth_users" },
	{ USERS "rate_limit:\n  burst: 1\n", ":3: rate_limit: not supported by memwatch; remove it" },
	{ USERS USERS, ":4: basic_auth_users: given twice" },
	{ USERS "---\nfoo: 1\n", ": top level: a second YAML document (---): give one" },
	/* tls_server_config */
	{ TLS_OK "  bogus: 1\n", ":4: tls_server_config: unknown key 'bogus'" },
	{ TLS_OK "  cert_file: d.pem\n", ":4: tls_server_config.cert_file: given twice" },
	{ "tls_server_config:\n  key_file: k.pem\n",
	  ": tls_server_config.cert_file: missing: TLS needs the server's certificate (cert_file, or cert inline)" },
	{ "tls_server_config:\n  cert_file: c.pem\n",
	  ": tls_server_config.key_file: missing: TLS needs the certificate's private key (key_file, or key inline)" },
	{ "tls_server_config: {}\n" USERS,
	  ": tls_server_config.cert_file: missing: TLS needs the server's certificate (cert_file, or cert inline)" },
	{ "tls_server_config:\n  cert_file: ''\n  key_file: k.pem\n",
	  ": tls_server_config.cert_file: missing: TLS needs the server's certificate (cert_file, or cert inline)" },
	{ "tls_server_config: yes\n", ":1: tls_server_config: expected a mapping of keys, not a value" },
	{ "tls_server_config:\n  cert_file: [a, b]\n",
	  ":2: tls_server_config.cert_file: expected a single value, not a list" },
	{ TLS_OK "  cert: |\n    x\n",
	  ":4: tls_server_config.cert: tls_server_config.cert_file is given too: give the file or the text, not both" },
	{ TLS_OK "  client_auth_type: Maybe\n",
	  ":4: tls_server_config.client_auth_type: 'Maybe': use NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert" },
	{ TLS_OK "  client_auth_type: RequireAndVerifyClientCert\n",
	  ": tls_server_config.client_auth_type: RequireAndVerifyClientCert needs client_ca_file: the authority that signs the clients' certificates" },
	{ TLS_OK "  client_auth_type: VerifyClientCertIfGiven\n",
	  ": tls_server_config.client_auth_type: VerifyClientCertIfGiven needs client_ca_file: the authority that signs the clients' certificates" },
	{ TLS_OK "  client_ca_file: ca.pem\n",
	  ": tls_server_config.client_ca_file: given while client_auth_type is NoClientCert; set client_auth_type: RequireAndVerifyClientCert" },
	{ TLS_OK "  min_version: TLS14\n",
	  ":4: tls_server_config.min_version: 'TLS14': use TLS10, TLS11, TLS12 or TLS13" },
	{ TLS_OK "  max_version: 1.2\n",
	  ":4: tls_server_config.max_version: '1.2': use TLS10, TLS11, TLS12 or TLS13" },
	{ TLS_OK "  min_version: TLS13\n  max_version: TLS12\n",
	  ": tls_server_config.min_version: TLS13 is above max_version TLS12" },
	{ TLS_OK "  prefer_server_cipher_suites: maybe\n",
	  ":4: tls_server_config.prefer_server_cipher_suites: 'maybe': use true or false" },
	{ TLS_OK "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
	  ":4: tls_server_config.cipher_suites: not supported by memwatch (GnuTLS's default suites for the TLS versions allowed apply); remove it" },
	{ TLS_OK "  curve_preferences: [X25519]\n",
	  ":4: tls_server_config.curve_preferences: not supported by memwatch (GnuTLS's default groups apply); remove it" },
	{ TLS_OK "  client_allowed_sans: [a]\n",
	  ":4: tls_server_config.client_allowed_sans: not supported by memwatch; remove it and let client_ca_file sign only the clients allowed" },
	/* http_server_config */
	{ TLS_OK "http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
	  ":6: http_server_config.headers: not supported by memwatch; remove it" },
	{ TLS_OK "http_server_config:\n  http2: sometimes\n",
	  ":5: http_server_config.http2: 'sometimes': use true or false" },
	/* basic_auth_users: never the value itself in the message */
	{ "basic_auth_users:\n  bob: plaintext\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  bob: $1$abcdefgh$SdCBjv4dSWyxLjBh1/UmA.\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  bob: $2x$04$JcdHGLPpmRvzKoBJGrzss.NtLuDQDQKEQejy.9I7Ptp/kHVotMQJm\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  bob: $2y$03$JcdHGLPpmRvzKoBJGrzss.NtLuDQDQKEQejy.9I7Ptp/kHVotMQJm\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  bob: $2y$04$JcdHGLPpmRvzKoBJGrzss.NtLuDQDQKEQejy.9I7Ptp/kHVotMQJ\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  bob:\n",
	  ":2: basic_auth_users.bob: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'" },
	{ "basic_auth_users:\n  'a:b': " HASH_SECRET "\n",
	  ":2: basic_auth_users.a:b: a user name cannot hold ':' (basic auth ends the name there)" },
	{ USERS "  alice: " HASH_OTHER "\n", ":3: basic_auth_users.alice: given twice" },
	{ "basic_auth_users: [alice]\n",
	  ":1: basic_auth_users: expected a mapping of user names to bcrypt hashes, not a list" },
	{ "basic_auth_users:\n  \"a\\0b\": " HASH_SECRET "\n", ":2: basic_auth_users: a NUL byte in the value" },
	{ "basic_auth_users:\n  [a]: " HASH_SECRET "\n",
	  ":2: basic_auth_users: expected a single value, not a list" },
	{ "basic_auth_users:\n  '': " HASH_SECRET "\n", ":2: basic_auth_users: an empty key" },
};

Test(webconfig, bad_files__one_line_each)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct mw_webconfig wc;
		char want[1024];
		int rc;
		char *got = parse_quietly(&wc, c->text, FILE_NAME, &rc);

		snprintf(want, sizeof(want), "memwatch: " FILE_NAME "%s\n", c->line);
		cr_expect_eq(rc, -1, "case %zu is refused:\n%s", i, c->text);
		cr_expect_str_eq(got, want, "case %zu says one line:\n%s", i, c->text);
		webconfig__clear(&wc);
		free(got);
	}
}

Test(webconfig, not_yaml__line_of_the_problem)
{
	static const char want[] = "memwatch: " FILE_NAME ":3: not YAML: ";
	struct mw_webconfig wc;
	int rc;
	char *got = parse_quietly(&wc, "basic_auth_users:\n  alice: [1\n", FILE_NAME, &rc);

	cr_expect_eq(rc, -1, "refused");
	cr_expect(!strncmp(got, want, strlen(want)),
		  "names the file, the line and libyaml's problem, got '%s'", got);
	cr_expect_eq(strchr(got, '\n') - got + 1, (long)strlen(got), "one line, got '%s'", got);
	webconfig__clear(&wc);
	free(got);
}

/* ------------------------------------------------ files and certificates */

static char dir[] = "/tmp/mw-webconfig-XXXXXX";

static void make_certs(void)
{
	char cmd[2048];

	cr_assert(mkdtemp(dir), "temp dir");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && for n in a b; do openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
		 "-nodes -keyout $n.key -out $n.crt -days 2 -subj /CN=$n >/dev/null 2>&1 || exit 1; done; "
		 "echo junk > junk.pem", dir);
	cr_assert_eq(system(cmd), 0, "openssl makes two certificates and keys");
}

static void remove_certs(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0, "clean up");
}

/* Writes @yaml as DIR/web.yml and loads it (DIR/none.yml, absent, when
 * @yaml is NULL); what it said in @err. */
static int load(const char *yaml, struct mw_webconfig **wc, char *err, size_t errlen)
{
	char path[256];
	FILE *f, *saved = stderr;
	char *out = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, yaml ? "web.yml" : "none.yml");
	if (yaml) {
		f = fopen(path, "w");
		cr_assert_not_null(f, "write %s", path);
		fputs(yaml, f);
		fclose(f);
	}
	stderr = open_memstream(&out, &len);
	rc = webconfig__load(wc, path);
	fclose(stderr);
	stderr = saved;
	snprintf(err, errlen, "%s", out);
	free(out);
	return rc;
}

Test(webconfig, load__pem_files_checked_by_gnutls, .init = make_certs, .fini = remove_certs)
{
	static const struct {
		const char *yaml, *err;	/* err: after "memwatch: DIR/web.yml" */
	} cases[] = {
		{ "tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\n",
		  ":3: tls_server_config.key_file: %s/b.key: does not go with the certificate: " },
		{ "tls_server_config:\n  cert_file: gone.crt\n  key_file: a.key\n",
		  ":2: tls_server_config.cert_file: %s/gone.crt: cannot read: No such file or directory" },
		{ "tls_server_config:\n  cert_file: junk.pem\n  key_file: a.key\n",
		  ":2: tls_server_config.cert_file: %s/junk.pem: no certificate GnuTLS can load (PEM expected): " },
		{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.crt\n",
		  ":3: tls_server_config.key_file: %s/a.crt: no private key GnuTLS can load (an unencrypted PEM key expected): " },
		{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"
		  "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: a.key\n",
		  ":5: tls_server_config.client_ca_file: %s/a.key: no certificate GnuTLS can load (PEM expected): " },
		{ "tls_server_config:\n  cert_file: a.crt\n  key_file: .\n",
		  ":3: tls_server_config.key_file: %s/.: cannot read: Is a directory" },
	};
	struct mw_webconfig *wc = NULL;
	char err[1024], want[1024], fmt[512];

	cr_assert_eq(load("tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"
			  "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: b.crt\n"
			  USERS, &wc, err, sizeof(err)), 0, "a good file loads, said '%s'", err);
	cr_expect(wc->cert.text && strstr(wc->cert.text, "BEGIN CERTIFICATE"), "the certificate read");
	cr_expect(wc->key.text && strstr(wc->key.text, "PRIVATE KEY"), "the key read");
	cr_expect(wc->client_ca.text && strstr(wc->client_ca.text, "BEGIN CERTIFICATE"), "the authority read");
	webconfig__free(wc);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wc = NULL;
		snprintf(fmt, sizeof(fmt), "memwatch: %%s/web.yml%s", cases[i].err);
		snprintf(want, sizeof(want), fmt, dir, dir);
		cr_expect_eq(load(cases[i].yaml, &wc, err, sizeof(err)), -1, "case %zu refused", i);
		cr_expect(!strncmp(err, want, strlen(want)) && strchr(err, '\n') == err + strlen(err) - 1,
			  "case %zu: one line starting '%s', got '%s'", i, want, err);
		cr_expect_null(wc, "nothing handed out");
	}
	cr_expect_eq(load(NULL, &wc, err, sizeof(err)), -1, "a missing file is refused");
	snprintf(want, sizeof(want), "memwatch: %s/none.yml: cannot read the web config: No such file or directory\n", dir);
	cr_expect_str_eq(err, want, "one line");
}
