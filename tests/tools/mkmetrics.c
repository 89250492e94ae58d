// SPDX-License-Identifier: GPL-2.0
/*
 * mkmetrics.c - writes docs/metrics.md to stdout from the tables of
 * user/export/fields.c (make docs). tests/unit/test_docs.c fails when the
 * committed file differs from what this writes.
 */
#include <stdio.h>
#include "export/fields.h"

int main(void)
{
	fields__document(stdout);
	return fflush(stdout) ? 1 : 0;
}
