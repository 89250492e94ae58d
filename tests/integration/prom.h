/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom.h - a real Prometheus server (Debian's prometheus package) for the
 * integration tests: it scrapes memwatch on loopback every 2 s, and its
 * HTTP API answers what it stored.
 */
#ifndef MW_PROM_H
#define MW_PROM_H

#include "harness.h"

struct prom {
	struct proc proc;
	int port;			/* its API, on 127.0.0.1 */
	char answer[1 << 16];		/* the last query's whole response */
};

/* Starts Prometheus with its config and data under the folder @dir and
 * @scrape_configs, the YAML list that follows "scrape_configs:". */
void prom_start(struct prom *p, const char *dir, const char *scrape_configs);
/* The value of the first result of the URL-encoded @query, or -1e18 when
 * there is none yet; the response stays in p->answer. Reads the server's
 * log as it goes, so that a full pipe never blocks it. */
double prom_query(struct prom *p, const char *query);
/* What the server logged so far. */
const char *prom_log(struct prom *p);
void prom_stop(struct prom *p);

#endif
