/* SPDX-License-Identifier: GPL-2.0 */
/*
 * http.h - the /metrics and /debug/pprof endpoints (-l [ADDR:]PORT), served by libmicrohttpd
 * from its own event thread: sampling never waits for a client, and a slow
 * client never delays another. The main loop publishes each interval's
 * exposition; requests are answered from the latest one.
 */
#ifndef MW_HTTP_H
#define MW_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct mw_http;

/* Parses "PORT", "ADDR:PORT" or "[ADDR6]:PORT"; ADDR defaults to
 * 127.0.0.1, a host name is resolved. 0, or -1 with a reason in @why. */
int http__parse_listen(const char *spec, struct sockaddr_storage *addr,
		       socklen_t *len, char *why, size_t whylen);
/* Binds @spec and starts serving. 0, or -1 after one message. */
int http__start(struct mw_http **out, const char *spec);
/* Replaces the exposition served, in both formats (copied). */
int http__publish(struct mw_http *h, const char *prom, size_t prom_len,
		  const char *om, size_t om_len);
/* Heap profiles (/debug/pprof/heap and /allocs) are served: site
 * tracking is on. Until then those paths answer 404 with the option. */
void http__enable_profiles(struct mw_http *h);
/* Replaces the profiles served, both kinds: @pids[i]'s (0: every
 * target's) heap profile in @heap[i], allocs in @allocs[i], gzipped; the
 * buffers are taken over (freed by the server). */
int http__publish_profiles(struct mw_http *h, int n, const int *pids, uint8_t **heap,
			   const size_t *heap_len, uint8_t **allocs, const size_t *allocs_len);
void http__stop(struct mw_http *h);

#endif
