/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expo.h - the metrics exposition writer: the same snapshots as the CSV
 * feed, as Prometheus text format 0.0.4 or OpenMetrics 1.0. Metric names
 * are the contract (see README).
 */
#ifndef MW_EXPO_H
#define MW_EXPO_H

#include <stdio.h>
#include "sample/snapshot.h"

enum mw_expo {
	MW_EXPO_PROMETHEUS,	/* text/plain; version=0.0.4 */
	MW_EXPO_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

#define MW_CT_PROMETHEUS  "text/plain; version=0.0.4; charset=utf-8"
#define MW_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* One whole exposition of @n snapshots (one per target): every family
 * once, with HELP and TYPE (and UNIT in OpenMetrics), each sample
 * labelled with its pid; OpenMetrics ends with "# EOF". 0 or -errno. */
int expo__write(FILE *f, enum mw_expo fmt, const struct mw_layout *l,
		const struct mw_snapshot *const *snaps, int n);

#endif
