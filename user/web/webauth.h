/* SPDX-License-Identifier: GPL-2.0 */
/*
 * webauth.h - what --web-config asks for, applied to the HTTP server: the
 * TLS options libmicrohttpd starts with, the client certificate checked
 * in the handshake, and basic auth on every request before any path is
 * looked at. http.c holds one; without a web config it is NULL and every
 * call lets everything through.
 */
#ifndef MW_WEBAUTH_H
#define MW_WEBAUTH_H

#include <stdbool.h>
#include <microhttpd.h>
#include "web/webconfig.h"

#define MW_WEBAUTH_MHD_OPTIONS	8	/* items webauth__mhd_options fills */
#define MW_AUTH_CACHE		16	/* successful logins remembered */
#define MW_AUTH_CACHE_S		300	/* for 5 minutes each */

struct mw_webauth;

/* The state for @wc (which must outlive it), or NULL with @wc NULL.
 * 0, or -1 after a message. */
int webauth__new(struct mw_webauth **out, const struct mw_webconfig *wc);
void webauth__free(struct mw_webauth *a);

/* MHD_USE_TLS with a TLS config, else 0. */
unsigned webauth__mhd_flags(const struct mw_webauth *a);
/* The TLS options (key, certificate, client authority, priorities, the
 * handshake's client-certificate policy) as an MHD_OPTION_ARRAY, ended
 * by MHD_OPTION_END; only the end without TLS. @items lives as long as
 * the daemon. */
void webauth__mhd_options(struct mw_webauth *a,
			  struct MHD_OptionItem items[MW_WEBAUTH_MHD_OPTIONS]);

/*
 * At the top of the request handler, before the path: 1 to serve the
 * request; 0 when it was answered 401 (WWW-Authenticate: Basic
 * realm="memwatch"), the handler then returns MHD_YES; -1 to close the
 * connection without an answer (MHD_NO): a client certificate the policy
 * refuses, or no memory.
 */
int webauth__admit(struct mw_webauth *a, struct MHD_Connection *c);

/* The user name of an Authorization header's basic credentials, in a
 * malloc'd string that also holds the password, which @pass points to
 * (free the name only, after explicit_bzero); NULL when @header is not
 * "Basic" (any case), spaces, and base64 of "user:password". */
char *webauth__basic_credentials(const char *header, const char **pass);

/* Whether @user's password is @pass: every user name compared, bcrypt run
 * once whether the user exists or not (a costliest user's hash stands in),
 * both compared in constant time; a success is remembered MW_AUTH_CACHE_S
 * seconds as an HMAC under a key of this process. */
bool webauth__password_ok(struct mw_webauth *a, const char *user, const char *pass);
/* bcrypt computations so far (for tests: a cache hit makes none). */
unsigned long webauth__bcrypt_runs(const struct mw_webauth *a);

/* One warning line when the socket @fd (bound to --listen @spec) can be
 * reached from other hosts with nothing to protect it: no web config at
 * all, or passwords without TLS. */
void webauth__warn_exposure(const struct mw_webconfig *wc, int fd, const char *spec);

#endif
