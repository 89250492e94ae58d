// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_http.c - libFuzzer harness for the /metrics, /debug/pprof, / and
 * /api/ endpoints (their ?pid= and ?struct= queries included). One server
 * (http__start on a free loopback port) runs for the whole session; each
 * input is sent as the raw bytes of one client connection, and the reply
 * read to EOF (2 s at most). The input is also parsed as a --listen spec,
 * alone and through the command line ("memwatch -p 1 -l SPEC"), and as
 * the ?pid= of /api/history, straight to the API (api__answer).
 * Host names in specs are not resolved: getaddrinfo is wrapped (link with
 * -Wl,--wrap=getaddrinfo) to numeric hosts only, so fuzzing sends no DNS
 * queries and stays fast and repeatable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "web/api.h"
#include "cli.h"
#include "sample/history.h"
#include "web/http.h"

#define REPLY_TIMEOUT_MS 2000
#define FIN_PAUSE_MS	 2

static struct mw_http *server;
static struct sockaddr_in server_addr;
static struct mw_api *api;

/* The JSON API of one target, pid 1, with a structure and three rows. */
static const struct mw_struct_spec api_structs[] = { { .name = "table", .size = 48 } };
static const struct mw_layout api_layout = {
	.structs = api_structs, .nstructs = 1, .heap = true, .sites = true, .top = 10,
};

static void start_api(void)
{
	static struct mw_snapshot snap;
	const struct mw_snapshot *all[1] = { &snap };
	struct mw_json_meta meta = { .interval_s = 1, .history = 3 };
	struct mw_hist *hist = history__new(&api_layout, 3, 1 << 20, 2);
	struct mw_row row;

	api = hist ? api__new(&api_layout, &meta, hist) : NULL;
	if (!api)
		abort();
	snap.pid = 1;
	snap.nstructs = 1;
	for (int i = 0; i < 4; i++) {
		snap.when.tv_sec = 1764700000 + i;
		snap.s[0].elements = i;
		row__fill(&api_layout, &snap, &row);
		if (history__add(hist, 0, 1, &row))
			abort();
	}
	if (api__publish(api, all, 1))
		abort();
	http__set_api(server, api);
}

int __real_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res);

int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo h = { 0 };

	if (hints)
		h = *hints;
	h.ai_flags |= AI_NUMERICHOST;
	return __real_getaddrinfo(node, service, &h, res);
}

/* A loopback port that was free a moment ago. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char prom[] =
		"# TYPE memwatch_heap_live_bytes gauge\n"
		"memwatch_heap_live_bytes{pid=\"1\"} 4096\n";
	static const char om[] =
		"# TYPE memwatch_heap_live_bytes gauge\n"
		"memwatch_heap_live_bytes{pid=\"1\"} 4096\n# EOF\n";
	static const char *const structs[] = { "table", "index" };
	struct mw_http_profile *profs;
	char spec[32];
	FILE *quiet;
	int port;

	for (int tries = 0; tries < 10; tries++) {
		port = free_port();
		if (port < 0)
			continue;
		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		if (!http__start(&server, spec, NULL))
			break;
		server = NULL;
	}
	if (!server) {
		fprintf(stderr, "fuzz_http: cannot start the server\n");
		abort();
	}
	server_addr.sin_family = AF_INET;
	server_addr.sin_port = htons(port);
	server_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (http__publish(server, prom, sizeof(prom) - 1, om, sizeof(om) - 1))
		abort();
	/* heap profiles too, so that ?pid= and ?struct= queries are parsed:
	 * the whole one and pid 1's, of all blocks and of structure "table" */
	if (http__enable_profiles(server, structs, 2))
		abort();
	profs = calloc(4, sizeof(*profs));
	if (!profs)
		abort();
	for (int i = 0; i < 4; i++) {
		profs[i] = (struct mw_http_profile){ .pid = i & 1, .sid = i < 2 ? -1 : 0 };
		for (int k = 0; k < 2; k++) {
			profs[i].body[k] = (uint8_t *)strdup("\x1f\x8b profile");
			profs[i].len[k] = 10;
		}
	}
	http__publish_profiles(server, profs, 4);
	start_api();
	/* from here on, mw_err's lines (stdio stderr) go nowhere; fd 2 stays,
	 * for sanitizer reports and libFuzzer's own output */
	quiet = fopen("/dev/null", "we");
	if (quiet)
		stderr = quiet;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits until @fd is ready for @events, or @deadline_ms (now_ms) passes. */
static int wait_for(int fd, short events, int64_t deadline_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left = deadline_ms - now_ms();

	return poll(&p, 1, left > 0 ? (int)left : 0) > 0 ? 0 : -1;
}

/* One client connection: the input, then the reply until EOF or timeout. */
static void exchange(const uint8_t *data, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int64_t deadline = now_ms() + REPLY_TIMEOUT_MS;
	size_t sent = 0;
	char buf[4096];

	if (fd < 0)
		abort();
	if (connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) &&
	    (errno != EINPROGRESS || wait_for(fd, POLLOUT, deadline)))
		goto out;
	while (sent < size) {
		ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);

		if (n > 0)
			sent += (size_t)n;
		else if (n < 0 && errno == EAGAIN && !wait_for(fd, POLLOUT, deadline))
			continue;
		else
			break;	/* the server closed early: read what it said */
	}
	/* libmicrohttpd (0.9.75, epoll) misses a FIN that arrives with the
	 * last data and holds the connection to its idle timeout: let it read
	 * the data first (or answer, when the request is complete). */
	wait_for(fd, POLLIN, now_ms() + FIN_PAUSE_MS);
	shutdown(fd, SHUT_WR);
	while (!wait_for(fd, POLLIN, deadline)) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0 && !(n < 0 && errno == EAGAIN))
			break;
	}
out:
	close(fd);
}

/* The spec as the user gives it; its messages go to the silenced stderr. */
static void parse_command_line(char *spec)
{
	char *argv[] = { "memwatch", "-p", "1", "-l", spec, NULL };
	struct mw_options o;

	cli__parse(5, argv, &o);
	cli__free(&o);
}

static void parse_listen(const uint8_t *data, size_t size)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char why[256];
	char *spec = strndup((const char *)data, size);

	if (!spec)
		abort();
	http__parse_listen(spec, &addr, &len, why, sizeof(why));
	parse_command_line(spec);
	free(spec);
}

/* The input as the ?pid= of /api/history, as libmicrohttpd hands it over
 * (up to the first NUL): 400, 404 or a history, never a crash. */
static void api_query(const uint8_t *data, size_t size)
{
	char *arg = strndup((const char *)data, size);
	struct mw_api_reply r;
	pid_t pid;

	if (!arg)
		abort();
	if (api__answer(api, "/api/history", arg, &r))
		abort();
	if (r.status != (api__parse_pid(arg, &pid) ? 400 : pid == 1 ? 200 : 404))
		abort();	/* the answer disagrees with the parser */
	free(r.body);
	free(arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	exchange(data, size);
	parse_listen(data, size);
	api_query(data, size);
	return 0;
}
