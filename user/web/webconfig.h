/* SPDX-License-Identifier: GPL-2.0 */
/*
 * webconfig.h - --web-config FILE: Prometheus exporter-toolkit's web
 * configuration (the file node_exporter's --web.config.file reads), parsed
 * with libyaml and checked whole before memwatch touches the kernel: TLS
 * (tls_server_config) and basic auth (basic_auth_users, bcrypt hashes).
 * webauth.h enforces it on every request.
 */
#ifndef MW_WEBCONFIG_H
#define MW_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define MW_WEB_MAX_USERS	1000
#define MW_WEB_FILE_BYTES	(1 << 20)	/* the config and each PEM file */
#define MW_BCRYPT_LEN		60		/* "$2y$10$" + 22 salt + 31 hash */

/* tls_server_config.client_auth_type: Go's crypto/tls names, as the
 * toolkit spells them. */
enum mw_client_auth {
	MW_CLIENT_NO_CERT,		/* NoClientCert (the default) */
	MW_CLIENT_REQUEST,		/* RequestClientCert: asked, not checked */
	MW_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert: any, not checked */
	MW_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	MW_CLIENT_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
};

/* A PEM text from a file (KEY_file) or given inline (KEY). */
struct mw_pem {
	char *path;	/* resolved against the config file's folder */
	char *text;	/* NUL-terminated; inline, or read by webconfig__load */
	const char *key;	/* "tls_server_config.cert_file", for messages */
	int line;	/* of that key in the config */
};

struct mw_webuser {
	char *name;
	char hash[MW_BCRYPT_LEN + 1];
	int cost;	/* bcrypt's log2 rounds */
};

struct mw_webconfig {
	char *file;			/* the config's path, for messages */
	bool tls;			/* tls_server_config given */
	struct mw_pem cert, key, client_ca;
	enum mw_client_auth client_auth;
	int min_version, max_version;	/* TLS 1.x as 10..13 */
	bool server_order;		/* prefer_server_cipher_suites */
	bool http2;			/* accepted; memwatch speaks HTTP/1.1 */
	char priorities[128];		/* GnuTLS's, from the three above */
	struct mw_webuser *users;	/* basic_auth_users */
	int nusers;
};

/*
 * Parses @len bytes of YAML @text, the content of @file (named in
 * messages; relative paths in it are resolved against its folder), into
 * @wc (zeroed by the call). Reads no other file. 0, or -1 after one line
 * "memwatch: FILE:LINE: KEY: problem"; either way webconfig__clear(@wc)
 * releases what it holds.
 */
int webconfig__parse(struct mw_webconfig *wc, const char *text, size_t len,
		     const char *file);

/*
 * Reads @path, parses it, reads the PEM files it names and checks that
 * GnuTLS takes them (the key matches the certificate, the authority file
 * holds certificates). 0 with *@out set, or -1 after one message.
 */
int webconfig__load(struct mw_webconfig **out, const char *path);

/* Releases what @wc holds; __free also @wc itself (from load). */
void webconfig__clear(struct mw_webconfig *wc);
void webconfig__free(struct mw_webconfig *wc);

#endif
