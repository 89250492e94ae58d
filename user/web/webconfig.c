// SPDX-License-Identifier: GPL-2.0
/*
 * webconfig.c - reads --web-config FILE, the exporter-toolkit's web
 * configuration, so that one file serves node_exporter and memwatch.
 * libyaml (Debian's libyaml-dev) builds the document; each section is
 * read through a table of its keys. What memwatch cannot honour is
 * refused by name, never ignored: a file that asks for a restriction gets
 * it or memwatch does not start. Certificates and keys are checked with
 * GnuTLS here, at start, so a bad one exits 2 instead of failing later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <yaml.h>
#include "log.h"
#include "web/webconfig.h"

#define MW_TLS_DEFAULT_MIN	12	/* the toolkit's defaults */
#define MW_TLS_DEFAULT_MAX	13

/* One parse: where messages point, and the document walked. */
struct parse {
	struct mw_webconfig *wc;
	const char *file;
	size_t dirlen;		/* of the file's folder, with its '/'; 0: none */
	yaml_document_t *doc;
};

static int bad(const struct parse *p, const yaml_node_t *n, const char *key,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad(const struct parse *p, const yaml_node_t *n, const char *key,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		mw_err("%s:%zu: %s: %s", p->file, n->start_mark.line + 1, key, msg);
	else
		mw_err("%s: %s: %s", p->file, key, msg);
	return -1;
}

/* ------------------------------------------------------------ scalars */

/* YAML's null: `key:` with nothing, ~ or null (plain, not quoted). */
static bool is_null(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		!strcmp(v, "NULL"));
}

static const char *node_kind(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" :
	       n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

/* The text of scalar @n in *@out, NULL for null. 0, or -1 after a
 * message when @n is a mapping or a list, or holds a NUL byte. */
static int scalar(const struct parse *p, const yaml_node_t *n, const char *key,
		  const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(p, n, key, "expected a single value, not %s", node_kind(n));
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return bad(p, n, key, "a NUL byte in the value");
	*out = is_null(n) ? NULL : (const char *)n->data.scalar.value;
	return 0;
}

static int dup_text(const struct parse *p, const yaml_node_t *n, const char *key,
		    const char *v, char **out)
{
	*out = strdup(v);
	return *out ? 0 : bad(p, n, key, "out of memory");
}

/* ------------------------------------------------------ keys by table */

enum kind { K_PATH, K_PEM, K_CLIENT_AUTH, K_VERSION, K_BOOL, K_REFUSED };

struct field {
	const char *name;	/* as the toolkit spells it */
	const char *path;	/* section.name, for messages */
	enum kind kind;
	size_t off;		/* into struct mw_webconfig */
	const char *why;	/* K_REFUSED: what to do instead */
};

#define WC(member) offsetof(struct mw_webconfig, member)

static const struct field tls_fields[] = {
	{ "cert_file", "tls_server_config.cert_file", K_PATH, WC(cert), NULL },
	{ "key_file", "tls_server_config.key_file", K_PATH, WC(key), NULL },
	{ "client_ca_file", "tls_server_config.client_ca_file", K_PATH, WC(client_ca), NULL },
	{ "cert", "tls_server_config.cert", K_PEM, WC(cert), NULL },
	{ "key", "tls_server_config.key", K_PEM, WC(key), NULL },
	{ "client_ca", "tls_server_config.client_ca", K_PEM, WC(client_ca), NULL },
	{ "client_auth_type", "tls_server_config.client_auth_type", K_CLIENT_AUTH, WC(client_auth), NULL },
	{ "min_version", "tls_server_config.min_version", K_VERSION, WC(min_version), NULL },
	{ "max_version", "tls_server_config.max_version", K_VERSION, WC(max_version), NULL },
	{ "prefer_server_cipher_suites", "tls_server_config.prefer_server_cipher_suites", K_BOOL, WC(server_order), NULL },
	{ "cipher_suites", "tls_server_config.cipher_suites", K_REFUSED, 0,
	  "not supported by memwatch (GnuTLS's default suites for the TLS versions allowed apply); remove it" },
	{ "curve_preferences", "tls_server_config.curve_preferences", K_REFUSED, 0,
	  "not supported by memwatch (GnuTLS's default groups apply); remove it" },
	{ "client_allowed_sans", "tls_server_config.client_allowed_sans", K_REFUSED, 0,
	  "not supported by memwatch; remove it and let client_ca_file sign only the clients allowed" },
};

static const struct field http_fields[] = {
	{ "http2", "http_server_config.http2", K_BOOL, WC(http2), NULL },
	{ "headers", "http_server_config.headers", K_REFUSED, 0,
	  "not supported by memwatch; remove it" },
};

static const struct {
	const char *name;
	enum mw_client_auth v;
} client_auths[] = {
	{ "NoClientCert", MW_CLIENT_NO_CERT },
	{ "RequestClientCert", MW_CLIENT_REQUEST },
	{ "RequireAnyClientCert", MW_CLIENT_REQUIRE_ANY },
	{ "RequireClientCert", MW_CLIENT_REQUIRE_ANY },	/* the toolkit's old name */
	{ "VerifyClientCertIfGiven", MW_CLIENT_VERIFY_IF_GIVEN },
	{ "RequireAndVerifyClientCert", MW_CLIENT_REQUIRE_VERIFY },
};

static int set_pem(const struct parse *p, const yaml_node_t *n, const struct field *f,
		   const char *v)
{
	struct mw_pem *pem = (struct mw_pem *)((char *)p->wc + f->off);
	const char *dir = v[0] == '/' ? "" : p->file;
	size_t dirlen = v[0] == '/' ? 0 : p->dirlen;

	if (pem->path || pem->text)
		return bad(p, n, f->path, "%s is given too: give the file or the text, not both",
			   pem->key);
	pem->key = f->path;
	pem->line = (int)n->start_mark.line + 1;
	if (f->kind == K_PEM)
		return dup_text(p, n, f->path, v, &pem->text);
	/* a relative path is relative to the config's folder, as in the toolkit */
	if (asprintf(&pem->path, "%.*s%s", (int)dirlen, dir, v) < 0) {
		pem->path = NULL;
		return bad(p, n, f->path, "out of memory");
	}
	return 0;
}

static int set_field(const struct parse *p, const yaml_node_t *n, const struct field *f)
{
	void *at = (char *)p->wc + f->off;
	const char *v;

	if (f->kind == K_REFUSED)
		return bad(p, n, f->path, "%s", f->why);
	if (scalar(p, n, f->path, &v))
		return -1;
	if (!v || !*v)
		return 0;	/* null or "": the default, as in the toolkit */
	switch (f->kind) {
	case K_PATH:
	case K_PEM:
		return set_pem(p, n, f, v);
	case K_CLIENT_AUTH:
		for (size_t i = 0; i < sizeof(client_auths) / sizeof(client_auths[0]); i++)
			if (!strcmp(v, client_auths[i].name)) {
				*(enum mw_client_auth *)at = client_auths[i].v;
				return 0;
			}
		return bad(p, n, f->path, "'%s': use NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert",
			   v);
	case K_VERSION:
		if (strncmp(v, "TLS1", 4) || v[4] < '0' || v[4] > '3' || v[5])
			return bad(p, n, f->path, "'%s': use TLS10, TLS11, TLS12 or TLS13", v);
		*(int *)at = 10 + (v[4] - '0');
		return 0;
	case K_BOOL:
		if (strcasecmp(v, "true") && strcasecmp(v, "false"))
			return bad(p, n, f->path, "'%s': use true or false", v);
		*(bool *)at = !strcasecmp(v, "true");
		return 0;
	default:
		return -1;
	}
}

/* The key of a mapping pair, or NULL after a message. */
static const char *pair_key(const struct parse *p, const yaml_node_pair_t *pr,
			    const char *section, yaml_node_t **value)
{
	yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
	const char *name;

	*value = yaml_document_get_node(p->doc, pr->value);
	if (!k || !*value)
		return bad(p, NULL, section, "a broken mapping"), NULL;
	if (scalar(p, k, section, &name))
		return NULL;
	if (!name || !*name)
		return bad(p, k, section, "an empty key"), NULL;
	return name;
}

/* A section read through its table: each key once, unknown keys refused. */
static int parse_fields(const struct parse *p, const yaml_node_t *map, const char *section,
			const struct field *fields, size_t nfields)
{
	bool seen[16] = { false };

	if (map->type != YAML_MAPPING_NODE)
		return bad(p, map, section, "expected a mapping of keys, not %s", node_kind(map));
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *v;
		const char *name = pair_key(p, pr, section, &v);
		size_t i;

		if (!name)
			return -1;
		for (i = 0; i < nfields && strcmp(fields[i].name, name); i++)
			;
		if (i == nfields)
			return bad(p, yaml_document_get_node(p->doc, pr->key), section,
				   "unknown key '%s'", name);
		if (seen[i])
			return bad(p, v, fields[i].path, "given twice");
		seen[i] = true;
		if (set_field(p, v, &fields[i]))
			return -1;
	}
	return 0;
}

/* -------------------------------------------------------------- users */

/* "$2a$", "$2b$" or "$2y$", two digits of cost (4..31), '$', then 53
 * characters of bcrypt's base64 (22 of salt, 31 of hash). */
static int bcrypt_cost(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != MW_BCRYPT_LEN || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' ||
	    h[6] != '$' || strspn(h + 7, b64) != MW_BCRYPT_LEN - 7)
		return -1;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 ? cost : -1;
}

static int add_user(const struct parse *p, const yaml_node_t *kn, const char *name,
		    const yaml_node_t *vn)
{
	struct mw_webconfig *wc = p->wc;
	struct mw_webuser *u;
	char key[160];
	const char *hash;

	snprintf(key, sizeof(key), "basic_auth_users.%.120s", name);
	if (strchr(name, ':'))
		return bad(p, kn, key, "a user name cannot hold ':' (basic auth ends the name there)");
	for (int i = 0; i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, name))
			return bad(p, kn, key, "given twice");
	if (wc->nusers == MW_WEB_MAX_USERS)
		return bad(p, kn, "basic_auth_users", "more than %d users", MW_WEB_MAX_USERS);
	if (scalar(p, vn, key, &hash))
		return -1;
	/* the value is never quoted back: it may be a password by mistake */
	if (!hash || bcrypt_cost(hash) < 0)
		return bad(p, vn, key, "not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'");
	u = &wc->users[wc->nusers];
	if (dup_text(p, kn, key, name, &u->name))
		return -1;
	memcpy(u->hash, hash, MW_BCRYPT_LEN + 1);
	u->cost = bcrypt_cost(hash);
	wc->nusers++;
	return 0;
}

static int parse_users(const struct parse *p, const yaml_node_t *map)
{
	size_t n;

	if (map->type != YAML_MAPPING_NODE)
		return bad(p, map, "basic_auth_users", "expected a mapping of user names to bcrypt hashes, not %s",
			   node_kind(map));
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	p->wc->users = calloc(n ? (n < MW_WEB_MAX_USERS ? n : MW_WEB_MAX_USERS) + 1 : 1,
			      sizeof(*p->wc->users));
	if (!p->wc->users)
		return bad(p, map, "basic_auth_users", "out of memory");
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *v;
		const char *name = pair_key(p, pr, "basic_auth_users", &v);

		if (!name || add_user(p, yaml_document_get_node(p->doc, pr->key), name, v))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------- the file */

static int parse_top(const struct parse *p, const yaml_node_t *root)
{
	bool seen[3] = { false };

	if (root->type != YAML_MAPPING_NODE)
		return bad(p, root, "top level", "expected a mapping of tls_server_config, http_server_config and basic_auth_users, not %s",
			   node_kind(root));
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		static const char *const sections[] = {
			"tls_server_config", "http_server_config", "basic_auth_users",
		};
		yaml_node_t *v;
		const char *name = pair_key(p, pr, "top level", &v);
		int s;

		if (!name)
			return -1;
		for (s = 0; s < 3 && strcmp(sections[s], name); s++)
			;
		if (s == 3)
			return bad(p, yaml_document_get_node(p->doc, pr->key), name, "%s",
				   !strcmp(name, "rate_limit") ? "not supported by memwatch; remove it" :
				   "unknown key: the file holds tls_server_config, http_server_config and basic_auth_users");
		if (seen[s])
			return bad(p, v, name, "given twice");
		seen[s] = true;
		if (v->type == YAML_SCALAR_NODE && is_null(v))
			continue;	/* an empty section: as if absent */
		if (s == 0)
			p->wc->tls = true;
		if (s == 0 && parse_fields(p, v, name, tls_fields,
					   sizeof(tls_fields) / sizeof(tls_fields[0])))
			return -1;
		if (s == 1 && parse_fields(p, v, name, http_fields,
					   sizeof(http_fields) / sizeof(http_fields[0])))
			return -1;
		if (s == 2 && parse_users(p, v))
			return -1;
	}
	return 0;
}

static bool verifies(enum mw_client_auth a)
{
	return a == MW_CLIENT_VERIFY_IF_GIVEN || a == MW_CLIENT_REQUIRE_VERIFY;
}

/* What the keys mean together; then GnuTLS's priority string. */
static int check(const struct parse *p)
{
	struct mw_webconfig *wc = p->wc;
	const char *auth = "tls_server_config.client_auth_type";
	int n;

	if (!wc->tls && !wc->nusers)
		return bad(p, NULL, "top level", "neither tls_server_config nor basic_auth_users: the file would protect nothing");
	if (!wc->tls)
		return 0;
	if (!wc->cert.path && !wc->cert.text)
		return bad(p, NULL, "tls_server_config.cert_file", "missing: TLS needs the server's certificate (cert_file, or cert inline)");
	if (!wc->key.path && !wc->key.text)
		return bad(p, NULL, "tls_server_config.key_file", "missing: TLS needs the certificate's private key (key_file, or key inline)");
	if (verifies(wc->client_auth) && !wc->client_ca.path && !wc->client_ca.text)
		return bad(p, NULL, auth, "%s needs client_ca_file: the authority that signs the clients' certificates",
			   wc->client_auth == MW_CLIENT_REQUIRE_VERIFY ? "RequireAndVerifyClientCert" :
			   "VerifyClientCertIfGiven");
	if (wc->client_auth == MW_CLIENT_NO_CERT && (wc->client_ca.path || wc->client_ca.text))
		return bad(p, NULL, wc->client_ca.key, "given while client_auth_type is NoClientCert; set client_auth_type: RequireAndVerifyClientCert");
	if (wc->min_version > wc->max_version)
		return bad(p, NULL, "tls_server_config.min_version", "TLS1%d is above max_version TLS1%d",
			   wc->min_version - 10, wc->max_version - 10);
	n = snprintf(wc->priorities, sizeof(wc->priorities), "NORMAL:-VERS-ALL");
	for (int v = wc->max_version; v >= wc->min_version; v--)
		n += snprintf(wc->priorities + n, sizeof(wc->priorities) - n, ":+VERS-TLS1.%d", v - 10);
	if (wc->server_order)
		snprintf(wc->priorities + n, sizeof(wc->priorities) - n, ":%%SERVER_PRECEDENCE");
	return 0;
}

int webconfig__parse(struct mw_webconfig *wc, const char *text, size_t len, const char *file)
{
	const char *slash = strrchr(file, '/');
	struct parse p = { .wc = wc, .file = file, .dirlen = slash ? (size_t)(slash - file + 1) : 0 };
	yaml_parser_t parser;
	yaml_document_t doc, more;
	yaml_node_t *root;
	int err = -1;

	memset(wc, 0, sizeof(*wc));
	wc->min_version = MW_TLS_DEFAULT_MIN;
	wc->max_version = MW_TLS_DEFAULT_MAX;
	wc->server_order = true;	/* the toolkit's defaults */
	wc->http2 = true;
	wc->file = strdup(file);
	if (!wc->file || !yaml_parser_initialize(&parser)) {
		mw_err("out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		mw_err("%s:%zu: not YAML: %s", file, parser.problem_mark.line + 1,
		       parser.problem ? parser.problem : "unreadable");
		yaml_parser_delete(&parser);
		return -1;
	}
	p.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		bad(&p, NULL, "top level", "the file is empty: it would protect nothing");
	else if (!parse_top(&p, root) && !check(&p))
		err = 0;
	/* the toolkit reads one document; a second one is a mistake */
	if (!err && yaml_parser_load(&parser, &more)) {
		if (yaml_document_get_root_node(&more))
			err = bad(&p, NULL, "top level", "a second YAML document (---): give one");
		yaml_document_delete(&more);
	} else if (!err) {
		err = bad(&p, NULL, "top level", "not YAML after the first document: %s",
			  parser.problem ? parser.problem : "unreadable");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return err;
}

/* ---------------------------------------------------- files and GnuTLS */

/* The whole of @path, NUL-terminated, in *@out (at most
 * MW_WEB_FILE_BYTES). 0 or -errno (-EFBIG when larger). */
static int read_text(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t n = 0;
	ssize_t r = 1;

	if (fd < 0)
		return -errno;
	buf = malloc(MW_WEB_FILE_BYTES + 1);
	while (buf && n <= MW_WEB_FILE_BYTES && (r = read(fd, buf + n, MW_WEB_FILE_BYTES + 1 - n)) > 0)
		n += (size_t)r;
	r = !buf ? -ENOMEM : r < 0 ? -errno : n > MW_WEB_FILE_BYTES ? -EFBIG : 0;
	close(fd);
	if (r) {
		free(buf);
		return (int)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static const char *read_error(int err)
{
	return err == -EFBIG ? "larger than 1 MiB" : strerror(-err);
}

/* Bad PEM text at @pem's key: "FILE:LINE: KEY: PATH: problem". */
static int bad_pem(const struct mw_webconfig *wc, const struct mw_pem *pem,
		   const char *problem, int gnutls_err)
{
	mw_err("%s:%d: %s: %s%s%s%s%s", wc->file, pem->line, pem->key,
	       pem->path ? pem->path : "", pem->path ? ": " : "", problem,
	       gnutls_err ? ": " : "", gnutls_err ? gnutls_strerror(gnutls_err) : "");
	return -1;
}

static int read_pem(const struct mw_webconfig *wc, struct mw_pem *pem)
{
	size_t len;
	int err;

	if (!pem->path)
		return 0;	/* inline, or absent */
	err = read_text(pem->path, &pem->text, &len);
	if (err) {
		char why[96];

		snprintf(why, sizeof(why), "cannot read: %s", read_error(err));
		return bad_pem(wc, pem, why, 0);
	}
	if (strlen(pem->text) != len)
		return bad_pem(wc, pem, "a NUL byte in the file: not PEM", 0);
	return 0;
}

static gnutls_datum_t datum(const struct mw_pem *pem)
{
	return (gnutls_datum_t){ (unsigned char *)pem->text, (unsigned)strlen(pem->text) };
}

/* Certificates in @pem, or -1 after a message. */
static int check_certs(const struct mw_webconfig *wc, const struct mw_pem *pem)
{
	gnutls_datum_t d = datum(pem);
	gnutls_x509_crt_t *list;
	unsigned n = 0;
	int err = gnutls_x509_crt_list_import2(&list, &n, &d, GNUTLS_X509_FMT_PEM, 0);

	if (err < 0)
		return bad_pem(wc, pem, "no certificate GnuTLS can load (PEM expected)", err);
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(list[i]);
	gnutls_free(list);
	return n ? 0 : bad_pem(wc, pem, "no certificate in it (PEM expected)", 0);
}

static int check_key(const struct mw_webconfig *wc)
{
	gnutls_datum_t k = datum(&wc->key), c = datum(&wc->cert);
	gnutls_certificate_credentials_t cred;
	gnutls_x509_privkey_t key;
	int err;

	if (gnutls_x509_privkey_init(&key) < 0)
		return bad_pem(wc, &wc->key, "out of memory", 0);
	err = gnutls_x509_privkey_import2(key, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_x509_privkey_deinit(key);
	if (err < 0)
		return bad_pem(wc, &wc->key, "no private key GnuTLS can load (an unencrypted PEM key expected)", err);
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return bad_pem(wc, &wc->key, "out of memory", 0);
	err = gnutls_certificate_set_x509_key_mem2(cred, &c, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (err < 0)
		return bad_pem(wc, &wc->key, "does not go with the certificate", err);
	return 0;
}

static int check_tls(const struct mw_webconfig *wc)
{
	gnutls_priority_t prio;
	const char *at;

	if (!wc->tls)
		return 0;
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		mw_err("%s: tls_server_config: this libmicrohttpd was built without TLS", wc->file);
		return -1;
	}
	if (check_certs(wc, &wc->cert) || check_key(wc) ||
	    (wc->client_ca.text && check_certs(wc, &wc->client_ca)))
		return -1;
	if (gnutls_priority_init(&prio, wc->priorities, &at) < 0) {
		mw_err("%s: tls_server_config.min_version: GnuTLS cannot use \"%s\"", wc->file,
		       wc->priorities);
		return -1;
	}
	gnutls_priority_deinit(prio);
	return 0;
}

int webconfig__load(struct mw_webconfig **out, const char *path)
{
	struct mw_webconfig *wc = calloc(1, sizeof(*wc));
	char *text = NULL;
	size_t len;
	int err;

	if (!wc) {
		mw_err("out of memory");
		return -1;
	}
	err = read_text(path, &text, &len);
	if (err)
		mw_err("%s: cannot read the web config: %s", path, read_error(err));
	err = err || webconfig__parse(wc, text, len, path) || read_pem(wc, &wc->cert) ||
	      read_pem(wc, &wc->key) || read_pem(wc, &wc->client_ca) || check_tls(wc);
	free(text);
	if (err) {
		webconfig__free(wc);
		return -1;
	}
	*out = wc;
	return 0;
}

static void clear_pem(struct mw_pem *pem)
{
	free(pem->path);
	if (pem->text)	/* the key's text: no copy left behind in the heap */
		explicit_bzero(pem->text, strlen(pem->text));
	free(pem->text);
}

void webconfig__clear(struct mw_webconfig *wc)
{
	if (!wc)
		return;
	free(wc->file);
	clear_pem(&wc->cert);
	clear_pem(&wc->key);
	clear_pem(&wc->client_ca);
	for (int i = 0; wc->users && i < wc->nusers; i++)
		free(wc->users[i].name);
	free(wc->users);
	memset(wc, 0, sizeof(*wc));
}

void webconfig__free(struct mw_webconfig *wc)
{
	webconfig__clear(wc);
	free(wc);
}
