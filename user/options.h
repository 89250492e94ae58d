/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h - what the user asked for, as plain data: struct mw_options
 * and its parts, with the defaults and ranges of the numeric options.
 * cli.c and config.c fill it (from the command line, from a config
 * file); every other room only reads it, so it depends on no parser.
 */
#ifndef MW_OPTIONS_H
#define MW_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "memwatch.h"

#define MW_MAX_FUNCS		256	/* --insert/--remove over all structures */

/* Defaults and ranges of the numeric options: the parser, its messages
 * and --help all read these. */
#define MW_DEFAULT_INTERVAL_S	1.0
#define MW_MIN_INTERVAL_S	0.001	/* 1 ms */
#define MW_MAX_INTERVAL_S	86400.0	/* a day */
#define MW_MAX_LIVE_BLOCKS	(1u << 28)
#define MW_DEFAULT_TOP		10
#define MW_MAX_TOP		1000
#define MW_DEFAULT_LEAK_INTERVALS 5
#define MW_MAX_ELEMENT_SIZE	(1ull << 40)	/* --size */
#define MW_STRUCT_NAME_MAX	64
#define MW_MAX_MATCHES		64	/* --exe, --comm, --cgroup, each */
#define MW_COMM_LEN		15	/* the kernel's comm, without its NUL */
#define MW_MAX_OVERHEAD_PERCENT	100.0	/* --max-overhead, of one CPU */
#define MW_OVER_BUDGET_INTERVALS 3	/* in a row over it before acting */
#define MW_DEFAULT_HISTORY	3600	/* rows per target the page draws */
#define MW_MAX_HISTORY		1000000
#define MW_DEFAULT_READ_LIMIT	10000000ull	/* things a --read walk visits */
#define MW_MAX_READ_LIMIT	1000000000000ull

enum mw_format { MW_FORMAT_CSV, MW_FORMAT_OPENMETRICS, MW_FORMAT_TABLE };

/* One --insert or --remove, as the user wrote it. */
struct mw_func_spec {
	const char *symbol;	/* raw, demangled or glob; owned */
	int struct_id;
	bool remove;
	uint32_t delta;		/* enum mw_delta */
};

struct mw_struct_spec {
	char name[MW_STRUCT_NAME_MAX];
	uint64_t size;		/* --size; 0: no estimate */
	const char *read;	/* --read EXPR (read/expr.h); NULL: none */
	bool probed;		/* it has an --insert or --remove */
};

struct mw_options {
	pid_t pids[MW_MAX_TARGETS];
	int npids;
	double interval_s;
	uint64_t count;			/* rows per target; 0: unlimited */
	const char *output;		/* NULL: stdout */
	enum mw_format format;
	const char *listen;		/* -l [ADDR:]PORT, NULL: no HTTP */
	const char *web_config;		/* --web-config FILE: TLS, basic auth */
	const char *folded;		/* --folded PATH */
	const char *pprof;		/* --pprof PATH */
	int top;			/* --top N sites listed (10) */
	bool top_given;
	int leak_intervals;		/* --leak-intervals K (5) */
	bool stacks;			/* --stacks: sites with their full stacks */
	uint32_t max_live_blocks;
	bool no_heap;
	bool probe_entry;		/* never move probes past the entry */
	bool floor;			/* empty programs: the benchmark floor */
	const char *allocator;		/* auto, a family, or a PATH */
	struct mw_struct_spec structs[MW_MAX_STRUCTS];
	int nstructs;
	struct mw_func_spec funcs[MW_MAX_FUNCS];
	int nfuncs;
	int last_opt;			/* the option parsed last, for --delta */
	char **command;			/* -- CMD [ARGS...]: launch mode; NULL: none */
	/* follow mode: every process that matches one, now and later */
	char *exes[MW_MAX_MATCHES];	/* --exe, resolved (realpath); owned */
	int nexes;
	const char *comms[MW_MAX_MATCHES];	/* --comm */
	int ncomms;
	char *cgroups[MW_MAX_MATCHES];	/* --cgroup, resolved; owned */
	int ncgroups;
	uint32_t max_targets;		/* --max-targets: processes at once */
	double max_overhead;		/* --max-overhead, percent; 0: no budget */
	char **kept;			/* config file values, owned (cli__keep) */
	size_t nkept;
	const char *user;		/* --user: run the command as USER */
	uint32_t history;		/* --history N: rows kept per target */
	bool history_given;
	uint64_t read_limit;		/* --read-limit N: a walk's visits at most */
};

/* Whether any --exe, --comm or --cgroup was given: follow mode. */
static inline bool options__follows(const struct mw_options *o)
{
	return o->nexes || o->ncomms || o->ncgroups;
}

#endif
