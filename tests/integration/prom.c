// SPDX-License-Identifier: GPL-2.0
/* prom.c - a real Prometheus server for the integration tests. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"

void prom_start(struct prom *p, const char *dir, const char *scrape_configs)
{
	char conf[256], flag[3][300];
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->port = free_port();
	snprintf(conf, sizeof(conf), "%s/prometheus.yml", dir);
	f = fopen(conf, "w");
	cr_assert(f, "write %s", conf);
	fprintf(f, "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\nscrape_configs:\n%s",
		scrape_configs);
	fclose(f);
	snprintf(flag[0], sizeof(flag[0]), "--config.file=%s", conf);
	snprintf(flag[1], sizeof(flag[1]), "--storage.tsdb.path=%s/data", dir);
	snprintf(flag[2], sizeof(flag[2]), "--web.listen-address=127.0.0.1:%d", p->port);
	const char *argv[] = { "/usr/bin/prometheus", flag[0], flag[1], flag[2], NULL };
	proc_spawn(&p->proc, argv);
}

double prom_query(struct prom *p, const char *query)
{
	char path[512];
	const char *v;
	int status;

	proc_stderr(&p->proc);
	snprintf(path, sizeof(path), "/api/v1/query?query=%s", query);
	status = http_request(p->port, "GET", path, NULL, p->answer, sizeof(p->answer));
	if (getenv("MW_TEST_DEBUG"))
		fprintf(stderr, "query %d -> %d: %.400s\n", p->port, status, http_body(p->answer));
	if (status != 200)
		return -1e18;
	v = strstr(p->answer, "\"value\":[");
	if (!v || !(v = strstr(v, ",\"")))
		return -1e18;
	return atof(v + 2);
}

const char *prom_log(struct prom *p)
{
	return proc_stderr(&p->proc);
}

void prom_stop(struct prom *p)
{
	proc_kill(&p->proc, SIGTERM);
	proc_wait(&p->proc);
}
