// SPDX-License-Identifier: GPL-2.0
/*
 * http.c - the exporter. libmicrohttpd (Debian's libmicrohttpd-dev) does
 * the HTTP: it is small, maintained, event-driven with epoll, and bounds
 * what a client may cost (request memory, connection count, idle
 * timeout); a hand-written server would have to get all of that right
 * again. memwatch binds the socket itself, so a failure says why.
 *
 * GET or HEAD /metrics: OpenMetrics 1.0 when Accept asks for it, else
 * Prometheus text 0.0.4. /: the live page (page.c), and /api/: its JSON
 * (api.c). Other paths 404, other methods 405. With --web-config, TLS
 * and basic auth (webauth.c) come before all of that.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "web/api.h"
#include "export/expo.h"
#include "web/http.h"
#include "log.h"
#include "web/page.h"
#include "export/pprof.h"
#include "web/webauth.h"

#define MW_HTTP_CONNECTIONS	256	/* at once; more wait in the backlog */
#define MW_HTTP_TIMEOUT_S	10	/* idle or stalled client */
#define MW_HTTP_REQUEST_BYTES	16384	/* request line and headers */

struct mw_http {
	struct MHD_Daemon *daemon;
	int fd;
	struct mw_webauth *auth;	/* --web-config; NULL: open */
	pthread_mutex_t lock;
	char *body[2];		/* enum mw_expo: the latest exposition */
	size_t len[2];
	bool profiles_on;
	char **structs;		/* ?struct= names, by structure id */
	int nstructs;
	struct mw_http_profile *prof;	/* the latest, by pid and structure */
	int nprof;
	struct mw_api *api;		/* /api/: NULL until set */
};

int http__parse_listen(const char *spec, struct sockaddr_storage *addr,
		       socklen_t *len, char *why, size_t whylen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char host[256] = "127.0.0.1", *end;
	const char *colon = strrchr(spec, ':'), *port = spec;
	unsigned long p;
	int err;

	if (colon) {
		size_t n = (size_t)(colon - spec);

		if (spec[0] == '[' && n >= 2 && spec[n - 1] == ']') {
			spec++;		/* [::1]:9100 */
			n -= 2;
		}
		if (n == 0 || n >= sizeof(host)) {
			snprintf(why, whylen, "bad address");
			return -1;
		}
		memcpy(host, spec, n);
		host[n] = '\0';
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (port[0] < '0' || port[0] > '9' || *end || errno || p < 1 || p > 65535) {
		snprintf(why, whylen, "the port is a number from 1 to 65535");
		return -1;
	}
	hints.ai_flags = AI_NUMERICSERV;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		snprintf(why, whylen, "address %s: %s", host, gai_strerror(err));
		return -1;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status,
			       const char *type, const char *body, size_t len,
			       const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve_metrics(struct mw_http *h, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	enum mw_expo fmt = accept && strstr(accept, "application/openmetrics-text") ?
			   MW_EXPO_OPENMETRICS : MW_EXPO_PROMETHEUS;
	enum MHD_Result ret;
	static const char none[] = "memwatch: no sample yet\n";

	pthread_mutex_lock(&h->lock);
	if (h->body[fmt])
		ret = respond(c, MHD_HTTP_OK, fmt == MW_EXPO_OPENMETRICS ?
			      MW_CT_OPENMETRICS : MW_CT_PROMETHEUS,
			      h->body[fmt], h->len[fmt], NULL);
	else
		ret = respond(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			      none, sizeof(none) - 1, NULL);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *line)
{
	return respond(c, status, "text/plain", line, strlen(line), NULL);
}

struct arg_count {
	const char *key;
	int n;
};

static enum MHD_Result count_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct arg_count *ac = cls;

	(void)kind;
	(void)value;
	ac->n += !strcasecmp(key, ac->key);	/* as the lookup matches them */
	return MHD_YES;
}

/* The query's @key into *@val (NULL when absent); false when it is given
 * more than once, which no answer could honour: the request is malformed. */
static bool query_arg(struct MHD_Connection *c, const char *key, const char **val)
{
	struct arg_count ac = { key, 0 };

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, count_arg, &ac);
	*val = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
	return ac.n <= 1;
}

/* GET /debug/pprof/heap or /allocs [?pid=N][&struct=NAME]: as Go's
 * handlers serve them, gzipped already, application/octet-stream, no
 * Content-Encoding. */
static enum MHD_Result serve_profile(struct mw_http *h, struct MHD_Connection *c,
				     enum mw_pprof_kind kind)
{
	const char *q, *st;
	enum MHD_Result ret;
	pid_t pid = 0;
	int sid = -1;

	if (!h->profiles_on)
		return text(c, MHD_HTTP_NOT_FOUND,
			    "memwatch: heap profiles need allocation-site tracking: start memwatch with --top N, --stacks, --folded PATH or --pprof PATH\n");
	if (!query_arg(c, "pid", &q) || !query_arg(c, "struct", &st))
		return text(c, MHD_HTTP_BAD_REQUEST, "memwatch: ?pid= and ?struct= are given once each\n");
	if (q && api__parse_pid(q, &pid))
		return text(c, MHD_HTTP_BAD_REQUEST, "memwatch: ?pid= takes a process id\n");
	if (st) {
		if (!*st)
			return text(c, MHD_HTTP_BAD_REQUEST, "memwatch: ?struct= takes a structure's name\n");
		for (int i = 0; i < h->nstructs && sid < 0; i++)
			if (!strcmp(h->structs[i], st))
				sid = i;
		if (sid < 0)
			return text(c, MHD_HTTP_NOT_FOUND, "memwatch: no such structure (see --struct)\n");
	}
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->nprof; i++) {
		const struct mw_http_profile *p = &h->prof[i];

		if (p->pid != pid || p->sid != sid)
			continue;
		if (p->detached) {
			pthread_mutex_unlock(&h->lock);
			return text(c, MHD_HTTP_NOT_FOUND, pid ?
				    "memwatch: this process's allocator probes are detached (over --max-overhead): no heap profile until SIGUSR1 puts them back\n" :
				    "memwatch: every process's allocator probes are detached (over --max-overhead): no heap profile until SIGUSR1 puts them back\n");
		}
		ret = respond(c, MHD_HTTP_OK, "application/octet-stream",
			      (const char *)p->body[kind], p->len[kind], NULL);
		pthread_mutex_unlock(&h->lock);
		return ret;
	}
	pthread_mutex_unlock(&h->lock);
	if (pid)
		return text(c, MHD_HTTP_NOT_FOUND, "memwatch: no such pid among the targets\n");
	return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "memwatch: no sample yet\n");
}

/* GET /api/...: api.c's answer, or 503 before the API is set. */
static enum MHD_Result serve_api(struct mw_http *h, struct MHD_Connection *c, const char *url)
{
	struct mw_api_reply r;
	enum MHD_Result ret;
	struct mw_api *api;
	const char *q;

	if (!query_arg(c, "pid", &q))
		return text(c, MHD_HTTP_BAD_REQUEST, "memwatch: ?pid= is given once\n");
	pthread_mutex_lock(&h->lock);
	api = h->api;
	pthread_mutex_unlock(&h->lock);
	if (!api)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "memwatch: no sample yet\n");
	if (api__answer(api, url, q, &r))
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "memwatch: out of memory\n");
	ret = respond(c, r.status, r.type, r.body, r.len, NULL);
	free(r.body);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_size, void **state)
{
	static const char not_found[] = "not found: try /, /metrics or /debug/pprof/heap\n";
	static const char not_allowed[] = "method not allowed\n";
	struct mw_http *h = cls;
	int admit = webauth__admit(h->auth, c);	/* every path, first */
	struct mw_page_file page;

	if (admit <= 0)
		return admit ? MHD_NO : MHD_YES;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			       not_allowed, sizeof(not_allowed) - 1, "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(cls, c);
	if (!strcmp(url, "/debug/pprof/heap"))
		return serve_profile(cls, c, MW_PPROF_HEAP);
	if (!strcmp(url, "/debug/pprof/allocs"))
		return serve_profile(cls, c, MW_PPROF_ALLOCS);
	if (!strncmp(url, "/api/", 5))
		return serve_api(cls, c, url);
	if (!page__find(url, &page))
		return respond(c, MHD_HTTP_OK, page.type, (const char *)page.body, page.len, NULL);
	return respond(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
		       sizeof(not_found) - 1, NULL);
}

static int bind_socket(const char *spec)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char why[256];
	int fd, one = 1;

	if (http__parse_listen(spec, &addr, &len, why, sizeof(why))) {
		mw_err("--listen %s: %s", spec, why);
		return -1;
	}
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		mw_err("cannot open a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, len) || listen(fd, 128)) {
		mw_err("cannot listen on %s: %s%s", spec, strerror(errno),
		       errno == EADDRINUSE ? " (choose another port)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

int http__start(struct mw_http **out, const char *spec, const struct mw_webconfig *web)
{
	struct mw_http *h = calloc(1, sizeof(*h));
	struct MHD_OptionItem tls[MW_WEBAUTH_MHD_OPTIONS];

	if (!h) {
		mw_err("out of memory");
		return -1;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->fd = bind_socket(spec);
	if (h->fd < 0 || webauth__new(&h->auth, web)) {
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return -1;
	}
	webauth__warn_exposure(web, h->fd, spec);
	webauth__mhd_options(h->auth, tls);
	h->daemon = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | webauth__mhd_flags(h->auth), 0, NULL, NULL,
		handle, h,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)MW_HTTP_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MW_HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MW_HTTP_REQUEST_BYTES,
		MHD_OPTION_ARRAY, tls,
		MHD_OPTION_END);
	if (!h->daemon) {
		mw_err("cannot start the HTTP server on %s", spec);
		webauth__free(h->auth);
		close(h->fd);
		free(h);
		return -1;
	}
	*out = h;
	return 0;
}

int http__publish(struct mw_http *h, const char *prom, size_t prom_len,
		  const char *om, size_t om_len)
{
	char *p = malloc(prom_len ? prom_len : 1), *o = malloc(om_len ? om_len : 1);

	if (!p || !o) {
		free(p);
		free(o);
		return -ENOMEM;
	}
	memcpy(p, prom, prom_len);
	memcpy(o, om, om_len);
	pthread_mutex_lock(&h->lock);
	free(h->body[MW_EXPO_PROMETHEUS]);
	free(h->body[MW_EXPO_OPENMETRICS]);
	h->body[MW_EXPO_PROMETHEUS] = p;
	h->len[MW_EXPO_PROMETHEUS] = prom_len;
	h->body[MW_EXPO_OPENMETRICS] = o;
	h->len[MW_EXPO_OPENMETRICS] = om_len;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

int http__enable_profiles(struct mw_http *h, const char *const *names, int n)
{
	char **v = calloc(n ? (size_t)n : 1, sizeof(*v));

	for (int i = 0; v && i < n; i++)
		if (!(v[i] = strdup(names[i]))) {
			while (i--)
				free(v[i]);
			free(v);
			v = NULL;
		}
	if (!v)
		return -ENOMEM;
	pthread_mutex_lock(&h->lock);
	h->structs = v;
	h->nstructs = n;
	h->profiles_on = true;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static void free_profiles(struct mw_http_profile *p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i].body[0]);
		free(p[i].body[1]);
	}
	free(p);
}

void http__publish_profiles(struct mw_http *h, struct mw_http_profile *v, int n)
{
	struct mw_http_profile *old;
	int nold;

	pthread_mutex_lock(&h->lock);
	old = h->prof;
	nold = h->nprof;
	h->prof = v;
	h->nprof = n;
	pthread_mutex_unlock(&h->lock);
	free_profiles(old, nold);
}

void http__set_api(struct mw_http *h, struct mw_api *api)
{
	pthread_mutex_lock(&h->lock);
	h->api = api;
	pthread_mutex_unlock(&h->lock);
}

void http__stop(struct mw_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	webauth__free(h->auth);
	close(h->fd);
	free(h->body[0]);
	free(h->body[1]);
	free_profiles(h->prof, h->nprof);
	for (int i = 0; i < h->nstructs; i++)
		free(h->structs[i]);
	free(h->structs);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
