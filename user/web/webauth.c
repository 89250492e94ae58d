// SPDX-License-Identifier: GPL-2.0
/*
 * webauth.c - the web config enforced. TLS is libmicrohttpd's own (GnuTLS
 * underneath); the client-certificate policy is set on each GnuTLS
 * session as its connection starts, so a refused client fails the
 * handshake, and is checked again before every request. Basic auth runs
 * before the path is looked at, so every path needs it. Passwords are
 * checked with libcrypt's crypt_rn (bcrypt), never by hand.
 *
 * bcrypt costs tens of milliseconds on the server's one thread (53 ms at
 * cost 10 here), so a success is remembered for a while, as exporter-
 * toolkit does: Prometheus, scraping every 15 s, pays it once per
 * MW_AUTH_CACHE_S. A wrong password always pays it.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include "log.h"
#include "web/webauth.h"

#define MW_MAC_BYTES 32		/* HMAC-SHA-256 */

struct mw_webauth {
	const struct mw_webconfig *wc;
	uint8_t key[MW_MAC_BYTES];	/* HMAC key, random per process */
	uint8_t (*names)[MW_MAC_BYTES];	/* HMAC of each user name */
	int standin;			/* a costliest user: bcrypt for unknown names */
	pthread_mutex_t lock;		/* what follows */
	struct {
		uint8_t mac[MW_MAC_BYTES];	/* of user, NUL, password */
		double until;
	} cache[MW_AUTH_CACHE];
	int next;			/* the slot taken next */
	unsigned long bcrypt_runs;
	struct crypt_data scratch;	/* crypt_rn's, 32 KiB */
};

/* ------------------------------------------------ constant-time helpers */

/* 1 when the @n bytes at @a and @b are equal, else 0; the time taken
 * does not depend on where they differ. */
static unsigned ct_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned d = 0;

	for (size_t i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return 1 & ((d - 1) >> 8);
}

/* HMAC of @user, or of @user, a NUL and @pass. 0 or -1. */
static int mac(const struct mw_webauth *a, const char *user, const char *pass,
	       uint8_t out[MW_MAC_BYTES])
{
	gnutls_hmac_hd_t h;

	if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, a->key, sizeof(a->key)) < 0)
		return -1;
	gnutls_hmac(h, user, strlen(user));
	if (pass) {
		gnutls_hmac(h, "", 1);
		gnutls_hmac(h, pass, strlen(pass));
	}
	gnutls_hmac_deinit(h, out);
	return 0;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ basic auth */

/* A remembered success for @cred; every slot is compared. */
static unsigned cached(const struct mw_webauth *a, const uint8_t *cred, double now)
{
	unsigned hit = 0;

	for (int i = 0; i < MW_AUTH_CACHE; i++)
		hit |= ct_equal(cred, a->cache[i].mac, MW_MAC_BYTES) & (a->cache[i].until > now);
	return hit;
}

static void remember(struct mw_webauth *a, const uint8_t *cred, double now)
{
	memcpy(a->cache[a->next].mac, cred, MW_MAC_BYTES);
	a->cache[a->next].until = now + MW_AUTH_CACHE_S;
	a->next = (a->next + 1) % MW_AUTH_CACHE;
}

/* Under the lock: bcrypt of @pass against user @pick's hash. */
static unsigned bcrypt_matches(struct mw_webauth *a, int pick, const char *pass)
{
	const char *hash = a->wc->users[pick].hash;
	const char *out = crypt_rn(pass, hash, &a->scratch, sizeof(a->scratch));
	unsigned ok = out && strlen(out) == MW_BCRYPT_LEN &&
		      ct_equal(out, hash, MW_BCRYPT_LEN);

	a->bcrypt_runs++;
	explicit_bzero(&a->scratch, sizeof(a->scratch));
	return ok;
}

bool webauth__password_ok(struct mw_webauth *a, const char *user, const char *pass)
{
	uint8_t name[MW_MAC_BYTES], cred[MW_MAC_BYTES];
	size_t pick = (size_t)a->standin;
	unsigned found = 0, ok;
	double now = mono_s();

	if (!a->wc->nusers || mac(a, user, NULL, name) || mac(a, user, pass, cred))
		return false;
	/* every name is compared; the match, if any, is picked without a branch */
	for (size_t i = 0; i < (size_t)a->wc->nusers; i++) {
		unsigned eq = ct_equal(name, a->names[i], MW_MAC_BYTES);

		pick ^= (pick ^ i) & (0 - (size_t)eq);
		found |= eq;
	}
	pthread_mutex_lock(&a->lock);
	ok = cached(a, cred, now);
	if (!ok) {
		ok = bcrypt_matches(a, (int)pick, pass) & found;
		if (ok)
			remember(a, cred, now);
	}
	pthread_mutex_unlock(&a->lock);
	explicit_bzero(cred, sizeof(cred));
	return ok;
}

unsigned long webauth__bcrypt_runs(const struct mw_webauth *a)
{
	return a->bcrypt_runs;
}

static int refuse(struct MHD_Connection *c)
{
	static const char text[] = "memwatch: this endpoint needs a user name and password (basic auth)\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return -1;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	ret = MHD_queue_basic_auth_fail_response(c, "memwatch", r);
	MHD_destroy_response(r);
	return ret == MHD_YES ? 0 : -1;
}

/* ---------------------------------------------------- client certificates */

static bool verifies(enum mw_client_auth a)
{
	return a == MW_CLIENT_VERIFY_IF_GIVEN || a == MW_CLIENT_REQUIRE_VERIFY;
}

static bool requires(enum mw_client_auth a)
{
	return a == MW_CLIENT_REQUIRE_ANY || a == MW_CLIENT_REQUIRE_VERIFY;
}

/* GnuTLS's verify callback: a certificate the client sent must chain to
 * client_ca and be meant for TLS clients (its extended key usage, when
 * it has one). None sent: the request policy decides. 0 or -1 (the
 * handshake fails). */
static int verify_client(gnutls_session_t s)
{
	gnutls_typed_vdata_st purpose = {
		GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0
	};
	unsigned n = 0, status = 1;

	if (!gnutls_certificate_get_peers(s, &n) || !n)
		return 0;
	if (gnutls_certificate_verify_peers(s, &purpose, 1, &status) < 0)
		return -1;
	return status ? -1 : 0;
}

/* As each connection starts, before its handshake: ask for the client's
 * certificate as the policy says, and have GnuTLS check it. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	const struct mw_webauth *a = cls;
	const union MHD_ConnectionInfo *ci;
	enum mw_client_auth policy = a->wc->client_auth;

	if (code != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return;		/* webauth__admit refuses what needed it */
	gnutls_certificate_server_set_request(ci->tls_session,
					      requires(policy) ? GNUTLS_CERT_REQUIRE :
					      policy == MW_CLIENT_NO_CERT ? GNUTLS_CERT_IGNORE :
					      GNUTLS_CERT_REQUEST);
	if (verifies(policy))
		gnutls_session_set_verify_function(ci->tls_session, verify_client);
}

/* The policy once more, per request: what the handshake let through. */
static bool client_cert_ok(const struct mw_webauth *a, struct MHD_Connection *c)
{
	enum mw_client_auth policy = a->wc->client_auth;
	const union MHD_ConnectionInfo *ci;
	unsigned n = 0;

	if (policy == MW_CLIENT_NO_CERT || policy == MW_CLIENT_REQUEST)
		return true;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	if (!gnutls_certificate_get_peers(ci->tls_session, &n) || !n)
		return !requires(policy);
	return !verifies(policy) || !verify_client(ci->tls_session);
}

char *webauth__basic_credentials(const char *header, const char **pass)
{
	static const char scheme[] = "Basic";
	gnutls_datum_t in, out = { 0 };
	const char *p = header;
	char *s = NULL, *colon;

	*pass = NULL;
	if (!p || strncasecmp(p, scheme, sizeof(scheme) - 1) || p[sizeof(scheme) - 1] != ' ')
		return NULL;
	for (p += sizeof(scheme); *p == ' '; p++)
		;
	in.data = (unsigned char *)p;
	in.size = (unsigned)strcspn(p, " \t");
	if (!in.size || p[in.size] || gnutls_base64_decode2(&in, &out) < 0)
		return NULL;
	colon = out.size ? memchr(out.data, ':', out.size) : NULL;
	/* a NUL inside would cut the name or the password short */
	if (colon && !memchr(out.data, '\0', out.size) && (s = malloc(out.size + 1))) {
		size_t at = (size_t)(colon - (char *)out.data);

		memcpy(s, out.data, out.size);
		s[out.size] = '\0';
		s[at] = '\0';
		*pass = s + at + 1;
	}
	explicit_bzero(out.data, out.size);
	gnutls_free(out.data);
	return s;
}

int webauth__admit(struct mw_webauth *a, struct MHD_Connection *c)
{
	const char *pass;
	char *user;
	bool ok;

	if (!a)
		return 1;
	if (a->wc->tls && !client_cert_ok(a, c))
		return -1;
	if (!a->wc->nusers)
		return 1;
	/* not MHD_basic_auth_get_username_password: it takes only "Basic",
	 * and the scheme is case-insensitive (RFC 7235), as Go's is */
	user = webauth__basic_credentials(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								      MHD_HTTP_HEADER_AUTHORIZATION),
					  &pass);
	ok = user && webauth__password_ok(a, user, pass);
	if (user) {
		explicit_bzero(user, strlen(user) + 1 + strlen(pass));
		free(user);
	}
	return ok ? 1 : refuse(c);
}

/* ------------------------------------------------------------ the daemon */

unsigned webauth__mhd_flags(const struct mw_webauth *a)
{
	return a && a->wc->tls ? MHD_USE_TLS : 0;
}

void webauth__mhd_options(struct mw_webauth *a,
			  struct MHD_OptionItem items[MW_WEBAUTH_MHD_OPTIONS])
{
	int n = 0;

	if (a && a->wc->tls) {
		const struct mw_webconfig *wc = a->wc;

		items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key.text };
		items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert.text };
		if (wc->client_ca.text)
			items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
							      wc->client_ca.text };
		items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						      (void *)wc->priorities };
		items[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
						      (intptr_t)on_connection, a };
	}
	items[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
}

int webauth__new(struct mw_webauth **out, const struct mw_webconfig *wc)
{
	struct mw_webauth *a;

	*out = NULL;
	if (!wc)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->names = calloc(wc->nusers ? (size_t)wc->nusers : 1, MW_MAC_BYTES))) {
		free(a);
		mw_err("out of memory");
		return -1;
	}
	a->wc = wc;
	pthread_mutex_init(&a->lock, NULL);
	if (gnutls_rnd(GNUTLS_RND_KEY, a->key, sizeof(a->key)) < 0) {
		mw_err("cannot draw a random key for the login cache");
		webauth__free(a);
		return -1;
	}
	for (int i = 0; i < wc->nusers; i++) {
		if (mac(a, wc->users[i].name, NULL, a->names[i])) {
			mw_err("cannot compute HMAC-SHA-256 with GnuTLS");
			webauth__free(a);
			return -1;
		}
		if (wc->users[i].cost > wc->users[a->standin].cost)
			a->standin = i;
	}
	*out = a;
	return 0;
}

void webauth__free(struct mw_webauth *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a->cache, sizeof(a->cache));
	free(a->names);
	free(a);
}

/* ------------------------------------------------------------- exposure */

static bool loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24 == 127;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

void webauth__warn_exposure(const struct mw_webconfig *wc, int fd, const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) || loopback(&ss))
		return;
	if (!wc)
		mw_err("warning: --listen %s is open to other hosts with no TLS and no password: anyone who can connect reads the metrics and heap profiles (protect it with --web-config FILE)",
		       spec);
	else if (!wc->tls)
		mw_err("warning: --listen %s: %s has basic_auth_users but no tls_server_config: passwords cross the network in the clear",
		       spec, wc->file);
}
