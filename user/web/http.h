/* SPDX-License-Identifier: GPL-2.0 */
/*
 * http.h - the /metrics, /debug/pprof, / and /api/ endpoints (-l [ADDR:]PORT), served by libmicrohttpd
 * from its own event thread: sampling never waits for a client, and a slow
 * client never delays another. The main loop publishes each interval's
 * exposition; requests are answered from the latest one.
 */
#ifndef MW_HTTP_H
#define MW_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct mw_http;

/* Parses "PORT", "ADDR:PORT" or "[ADDR6]:PORT"; ADDR defaults to
 * 127.0.0.1, a host name is resolved. 0, or -1 with a reason in @why. */
int http__parse_listen(const char *spec, struct sockaddr_storage *addr,
		       socklen_t *len, char *why, size_t whylen);
/* Binds @spec and starts serving, with TLS and basic auth as @web says
 * (NULL: plain HTTP; @web must outlive the server). 0, or -1 after one
 * message. */
struct mw_webconfig;
int http__start(struct mw_http **out, const char *spec, const struct mw_webconfig *web);
/* Replaces the exposition served, in both formats (copied). */
int http__publish(struct mw_http *h, const char *prom, size_t prom_len,
		  const char *om, size_t om_len);
/* One set of heap profiles: target @pid's (0: every target's), of the
 * blocks charged to structure @sid (-1: all), gzipped, by kind (enum
 * mw_pprof_kind). */
struct mw_http_profile {
	int pid, sid;
	bool detached;		/* no body: the heap probes went (--max-overhead) */
	uint8_t *body[2];
	size_t len[2];
};

/* Heap profiles (/debug/pprof/heap and /allocs) are served: site
 * tracking is on; ?struct= takes one of the @n names (copied). Until
 * then those paths answer 404 with the option. 0 or -ENOMEM. */
int http__enable_profiles(struct mw_http *h, const char *const *names, int n);
/* Replaces the profiles served by @n of @v, whose buffers the server
 * takes over (and @v itself, malloc'd). */
void http__publish_profiles(struct mw_http *h, struct mw_http_profile *v, int n);
struct mw_api;
/* Serves / (the live page) with /api/ answered by @api, which the caller
 * keeps until http__stop. */
void http__set_api(struct mw_http *h, struct mw_api *api);
void http__stop(struct mw_http *h);

#endif
