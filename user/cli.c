// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - command-line parsing. Every value is checked whole (no trailing
 * junk, no silent wrap); the first bad one ends parsing with one usage line.
 * Structure options apply to the --struct before them.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "cli.h"
#include "probes/allocator.h"
#include "config.h"
#include "web/http.h"
#include "log.h"
#include "read/expr.h"
#include "sample/sites.h"

enum {
	OPT_STRUCT = 0x100, OPT_INSERT, OPT_REMOVE, OPT_DELTA, OPT_SIZE,
	OPT_NO_HEAP, OPT_MAX_LIVE, OPT_ALLOCATOR, OPT_PROBE_ENTRY, OPT_FLOOR,
	OPT_FOLDED, OPT_TOP, OPT_LEAK_INTERVALS, OPT_STACKS, OPT_PPROF,
	OPT_USER, OPT_EXE, OPT_COMM, OPT_CGROUP, OPT_MAX_TARGETS, OPT_MAX_OVERHEAD,
	OPT_WEB_CONFIG, OPT_HISTORY, OPT_READ, OPT_READ_LIMIT,
};

static const struct option long_opts[] = {
	{ "pid",		required_argument, NULL, 'p' },
	{ "interval",		required_argument, NULL, 'i' },
	{ "count",		required_argument, NULL, 'n' },
	{ "output",		required_argument, NULL, 'o' },
	{ "format",		required_argument, NULL, 'f' },
	{ "listen",		required_argument, NULL, 'l' },
	{ "web-config",		required_argument, NULL, OPT_WEB_CONFIG },
	{ "struct",		required_argument, NULL, OPT_STRUCT },
	{ "insert",		required_argument, NULL, OPT_INSERT },
	{ "remove",		required_argument, NULL, OPT_REMOVE },
	{ "delta",		required_argument, NULL, OPT_DELTA },
	{ "size",		required_argument, NULL, OPT_SIZE },
	{ "read",		required_argument, NULL, OPT_READ },
	{ "read-limit",		required_argument, NULL, OPT_READ_LIMIT },
	{ "no-heap",		no_argument,	   NULL, OPT_NO_HEAP },
	{ "config",		required_argument, NULL, 'c' },
	{ "max-live-blocks",	required_argument, NULL, OPT_MAX_LIVE },
	{ "allocator",		required_argument, NULL, OPT_ALLOCATOR },
	{ "probe-entry",	no_argument,	   NULL, OPT_PROBE_ENTRY },
	{ "folded",		required_argument, NULL, OPT_FOLDED },
	{ "pprof",		required_argument, NULL, OPT_PPROF },
	{ "top",		required_argument, NULL, OPT_TOP },
	{ "leak-intervals",	required_argument, NULL, OPT_LEAK_INTERVALS },
	{ "stacks",		no_argument,	   NULL, OPT_STACKS },
	{ "floor",		no_argument,	   NULL, OPT_FLOOR },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "exe",		required_argument, NULL, OPT_EXE },
	{ "comm",		required_argument, NULL, OPT_COMM },
	{ "cgroup",		required_argument, NULL, OPT_CGROUP },
	{ "max-targets",	required_argument, NULL, OPT_MAX_TARGETS },
	{ "max-overhead",	required_argument, NULL, OPT_MAX_OVERHEAD },
	{ "history",		required_argument, NULL, OPT_HISTORY },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, 'V' },
	{ 0 },
};

const struct option *cli__options(void)
{
	return long_opts;
}

/* A format: the defaults come from options.h */
static const char usage_text[] =
"Usage: memwatch -p PID [options]\n"
"       memwatch [options] -- CMD [ARGS...]\n"
"       memwatch --exe PATH | --comm NAME | --cgroup PATH [options]\n"
"Observe a process's heap from outside, with BPF uprobes: a running one,\n"
"or CMD, started by memwatch with every probe in before its first\n"
"instruction (its figures are then absolute: from birth).\n"
"\n"
"  -p, --pid PID             process to observe (repeatable)\n"
"      --user USER           run CMD as USER (launch mode)\n"
"      --exe PATH            follow every process running PATH, now and\n"
"                            later, and what they fork (repeatable)\n"
"      --comm NAME           follow every process named NAME (repeatable)\n"
"      --cgroup PATH         follow every process in the cgroup v2 PATH or\n"
"                            below it (repeatable)\n"
"      --max-targets N       processes watched at once (%u, at most %u)\n"
"  -i, --interval SECONDS    sampling period, > 0, fractional allowed (%g)\n"
"  -n, --count N             exit after N intervals (a row each per process)\n"
"  -o, --output PATH         write the feed to PATH instead of stdout\n"
"  -f, --format FORMAT       csv (default), openmetrics (one exposition per\n"
"                            interval; to a file, replaced atomically), or\n"
"                            table (a view for people, redrawn each interval)\n"
"  -l, --listen [ADDR:]PORT  serve HTTP (ADDR: 127.0.0.1): a live page at /,\n"
"                            /metrics, JSON at /api/snapshot and\n"
"                            /api/history?pid=N\n"
"      --history N           rows per process the page keeps and draws (%d)\n"
"      --web-config FILE     TLS and basic auth for --listen, from FILE in\n"
"                            Prometheus exporter-toolkit's web config format\n"
"  -c, --config FILE         structures from FILE (see memwatch(8)), with the\n"
"                            same meaning as the options below\n"
"      --max-overhead PERCENT  detach a process's allocator probes when\n"
"                            they cost it more than PERCENT of one CPU for\n"
"                            %d intervals in a row (then its costliest\n"
"                            structure's); SIGUSR1 re-attaches (no budget)\n"
"      --max-live-blocks N   live blocks the table has room for (%u)\n"
"      --allocator WHICH     auto (default: the one malloc binds to), glibc,\n"
"                            jemalloc, tcmalloc, mimalloc, or an object's PATH\n"
"\n"
"Allocation sites (tracked with any of these, or -f table):\n"
"      --top N               list the N sites holding most (%d)\n"
"      --folded PATH         live bytes by site as folded stacks, rewritten\n"
"                            each interval (for flame-graph tools)\n"
"      --pprof PATH          the heap profile (gzipped pprof profile.proto,\n"
"                            as /debug/pprof/heap serves it), rewritten\n"
"                            each interval\n"
"      --leak-intervals K    flag sites that grew in each of the last K\n"
"                            intervals as leak suspects (%d)\n"
"      --stacks              sites with their whole call stacks (frame\n"
"                            pointers): one site per distinct stack\n"
"\n"
"      --probe-entry         probe functions at their first instruction, even\n"
"                            where a later one is equivalent and cheaper\n"
"      --floor               benchmark only: empty programs at the same probes\n"
"\n"
"Structures (figures are net changes since memwatch attached):\n"
"      --struct NAME         start a structure; the options below apply to it\n"
"      --insert SYMBOL       each call adds elements (repeatable)\n"
"      --remove SYMBOL       each call removes elements (repeatable)\n"
"      --delta one|ret|argN  elements per call of the --insert/--remove\n"
"                            just before: 1, the return value, or argument N\n"
"                            (the Nth integer argument; in Go code the Nth\n"
"                            parameter by the function's DWARF, receiver\n"
"                            first)\n"
"      --size BYTES          static element size: adds NAME_estimated_bytes\n"
"      --read EXPR           read the structure from the target's memory by\n"
"                            its DWARF types every interval: a global or\n"
"                            static by name, or a parameter of its\n"
"                            functions (self), then .field ->field [N] *;\n"
"                            adds NAME_length (the integer, or a Rust or\n"
"                            C++ container's elements) and\n"
"                            NAME_retained_bytes; needs no probe\n"
"      --read-limit N        elements, nodes and blocks one walk of a --read\n"
"                            structure visits at most (%llu); past it the\n"
"                            interval's figures are empty\n"
"      --no-heap             no allocator probes: counts and estimates only\n"
"\n"
"  -h, --help                this text\n"
"  -V, --version             the version\n"
"\n"
"Feed: CSV, one header line once every probe is attached, then one row per\n"
"interval. \"Live\" counts blocks allocated after attach and not yet freed,\n"
"in requested bytes. Exit: 0 normal end, 1 runtime failure, 2 usage error.\n"
"In launch mode CMD keeps stdin, stdout and stderr (the feed needs -o or\n"
"--listen), SIGINT and SIGTERM are passed on to it, and memwatch exits\n"
"with its status: 125 memwatch failed, 126 CMD cannot be executed, 127 not\n"
"found, 128+N killed by signal N; --count N detaches after N rows.\n";

int cli__parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;	/* also rejects "-1", " 1" and "" */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A plain decimal number in [@min, @max] (no sign, no hex, no spaces). */
static int parse_decimal(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.') ||
	    strpbrk(s, "xXpP"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli__parse_seconds(const char *s, double *out)
{
	return parse_decimal(s, MW_MIN_INTERVAL_S, MW_MAX_INTERVAL_S, out);
}

int cli__parse_percent(const char *s, double *out)
{
	double v;

	if (parse_decimal(s, 0, MW_MAX_OVERHEAD_PERCENT, &v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

/* Where the option being parsed came from: NULL for the command line,
 * else "FILE:LINE" of a config file. */
static const char *source;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (source)
		mw_err("%s: %s", source, msg);
	else
		mw_err("%s (see memwatch --help)", msg);
	return -1;
}

static bool valid_struct_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	return strlen(s) < MW_STRUCT_NAME_MAX;
}

static int add_struct(struct mw_options *o, const char *name)
{
	if (!valid_struct_name(name))
		return usage_error("--struct '%s': a name is [A-Za-z_][A-Za-z0-9_]*, at most %d characters",
				   name, MW_STRUCT_NAME_MAX - 1);
	for (int i = 0; i < o->nstructs; i++)
		if (!strcmp(o->structs[i].name, name))
			return usage_error("--struct '%s' is given twice", name);
	if (o->nstructs == MW_MAX_STRUCTS)
		return usage_error("too many --struct (at most %d)", MW_MAX_STRUCTS);
	snprintf(o->structs[o->nstructs++].name, MW_STRUCT_NAME_MAX, "%s", name);
	return 0;
}

static int add_func(struct mw_options *o, const char *sym, bool remove)
{
	const char *opt = remove ? "--remove" : "--insert";
	struct mw_func_spec *f;

	if (o->nstructs == 0)
		return usage_error("%s needs a --struct NAME before it", opt);
	if (!*sym)
		return usage_error("%s needs a symbol name", opt);
	if (o->nfuncs == MW_MAX_FUNCS)
		return usage_error("too many --insert/--remove (at most %d)", MW_MAX_FUNCS);
	f = &o->funcs[o->nfuncs];
	f->symbol = strdup(sym);	/* a config file's line buffer is reused */
	if (!f->symbol)
		return usage_error("out of memory");
	o->nfuncs++;
	f->struct_id = o->nstructs - 1;
	f->remove = remove;
	f->delta = MW_DELTA_ONE;
	return 0;
}

/* --read EXPR, once per structure; its syntax checked here. */
static int set_read(struct mw_options *o, const char *arg)
{
	struct mw_struct_spec *st;
	struct mw_expr e;
	char err[256];

	if (o->nstructs == 0)
		return usage_error("--read '%s' needs a --struct NAME before it", arg);
	st = &o->structs[o->nstructs - 1];
	if (st->read)
		return usage_error("--struct %s has two --read (one EXPR a structure)", st->name);
	if (expr__parse(arg, &e, err, sizeof(err)))
		return usage_error("--read '%s': %s", arg, err);
	st->read = arg;
	return 0;
}

/* --delta: one, ret or argN (N = 1..6), for the function just before. */
static int set_delta(struct mw_options *o, const char *rule, int last_opt)
{
	struct mw_func_spec *f;

	if (last_opt != OPT_INSERT && last_opt != OPT_REMOVE)
		return usage_error("--delta '%s' must follow an --insert or --remove", rule);
	f = &o->funcs[o->nfuncs - 1];
	if (!strcmp(rule, "one"))
		f->delta = MW_DELTA_ONE;
	else if (!strcmp(rule, "ret"))
		f->delta = MW_DELTA_RET;
	else if (!strncmp(rule, "arg", 3) && rule[3] >= '1' && rule[3] <= '6' &&
		 !rule[4])
		f->delta = MW_DELTA_ARG1 + (rule[3] - '1');
	else
		return usage_error("--delta '%s': use one, ret or arg1..arg6", rule);
	return 0;
}

static int add_pid(struct mw_options *o, const char *arg)
{
	uint64_t v;

	if (cli__parse_u64(arg, 1, 4194304 /* PID_MAX_LIMIT */, &v))
		return usage_error("--pid '%s': not a process id", arg);
	for (int i = 0; i < o->npids; i++)
		if (o->pids[i] == (pid_t)v)
			return usage_error("--pid %s is given twice", arg);
	if (o->npids == MW_MAX_TARGETS)
		return usage_error("too many --pid (at most %d)", MW_MAX_TARGETS);
	o->pids[o->npids++] = (pid_t)v;
	return 0;
}

/* --exe: an executable file, matched by the path it resolves to. */
static int add_exe(struct mw_options *o, const char *arg)
{
	struct stat st;
	char *path;

	if (o->nexes == MW_MAX_MATCHES)
		return usage_error("too many --exe (at most %d)", MW_MAX_MATCHES);
	path = realpath(arg, NULL);
	if (!path || stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK)) {
		int err = !path ? errno : !S_ISREG(st.st_mode) ? EISDIR : EACCES;

		free(path);
		return usage_error("--exe '%s': not an executable file (%s)", arg, strerror(err));
	}
	o->exes[o->nexes++] = path;
	return 0;
}

/* --cgroup: a directory of a cgroup v2 hierarchy. */
static int add_cgroup(struct mw_options *o, const char *arg)
{
	struct statfs fs;
	char *path;

	if (o->ncgroups == MW_MAX_MATCHES)
		return usage_error("too many --cgroup (at most %d)", MW_MAX_MATCHES);
	path = realpath(arg, NULL);
	if (!path) {
		int err = errno;

		return usage_error("--cgroup '%s': %s", arg, strerror(err));
	}
	if (statfs(path, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		free(path);
		return usage_error("--cgroup '%s': not a cgroup v2 directory (mount -t cgroup2 shows where the hierarchy is)",
				   arg);
	}
	o->cgroups[o->ncgroups++] = path;
	return 0;
}

/* One option; returns 0, 1 (help/version printed) or -1. */
static int parse_one(struct mw_options *o, int c, const char *arg)
{
	int last = o->last_opt;
	uint64_t v;

	o->last_opt = c;

	switch (c) {
	case 'p':
		return add_pid(o, arg);
	case 'i':
		if (cli__parse_seconds(arg, &o->interval_s))
			return usage_error("--interval '%s': seconds, from %g to %g", arg,
					   MW_MIN_INTERVAL_S, MW_MAX_INTERVAL_S);
		return 0;
	case 'n':
		if (cli__parse_u64(arg, 1, UINT64_MAX, &o->count))
			return usage_error("--count '%s': a whole number of rows, 1 or more", arg);
		return 0;
	case 'o':
		if (!*arg)
			return usage_error("--output needs a path");
		o->output = arg;
		return 0;
	case 'f':
		if (!strcmp(arg, "csv"))
			o->format = MW_FORMAT_CSV;
		else if (!strcmp(arg, "openmetrics"))
			o->format = MW_FORMAT_OPENMETRICS;
		else if (!strcmp(arg, "table"))
			o->format = MW_FORMAT_TABLE;
		else
			return usage_error("--format '%s': use csv, openmetrics or table", arg);
		return 0;
	case 'l': {
		struct sockaddr_storage ss;
		socklen_t len;
		char why[300], msg[400];

		if (http__parse_listen(arg, &ss, &len, why, sizeof(why))) {
			/* @why quotes the host: data, never a format */
			snprintf(msg, sizeof(msg), "'%s': %s", arg, why);
			return usage_error("--listen %s", msg);
		}
		o->listen = arg;
		return 0;
	}
	case OPT_WEB_CONFIG:
		if (!*arg)
			return usage_error("--web-config needs a file");
		o->web_config = arg;
		return 0;
	case OPT_ALLOCATOR:
		if (!allocator__valid_choice(arg))
			return usage_error("--allocator '%s': use auto, glibc, jemalloc, tcmalloc, mimalloc or an absolute path", arg);
		o->allocator = arg;
		return 0;
	case OPT_MAX_LIVE:
		if (cli__parse_u64(arg, 1, MW_MAX_LIVE_BLOCKS, &v))
			return usage_error("--max-live-blocks '%s': from 1 to %u", arg, MW_MAX_LIVE_BLOCKS);
		o->max_live_blocks = (uint32_t)v;
		return 0;
	case OPT_STRUCT:
		return add_struct(o, arg);
	case OPT_INSERT:
	case OPT_REMOVE:
		return add_func(o, arg, c == OPT_REMOVE);
	case OPT_DELTA:
		return set_delta(o, arg, last);
	case OPT_SIZE:
		if (o->nstructs == 0)
			return usage_error("--size needs a --struct NAME before it");
		if (cli__parse_u64(arg, 1, MW_MAX_ELEMENT_SIZE, &v))
			return usage_error("--size '%s': bytes per element, 1 or more", arg);
		o->structs[o->nstructs - 1].size = v;
		return 0;
	case OPT_READ:
		return set_read(o, arg);
	case OPT_READ_LIMIT:
		if (cli__parse_u64(arg, 1, MW_MAX_READ_LIMIT, &o->read_limit))
			return usage_error("--read-limit '%s': elements a walk visits, 1 to %llu", arg,
					   (unsigned long long)MW_MAX_READ_LIMIT);
		return 0;
	case OPT_NO_HEAP:
		o->no_heap = true;
		return 0;
	case OPT_FOLDED:
		if (!*arg)
			return usage_error("--folded needs a path");
		o->folded = arg;
		return 0;
	case OPT_PPROF:
		if (!*arg)
			return usage_error("--pprof needs a path");
		o->pprof = arg;
		return 0;
	case OPT_TOP:
		if (cli__parse_u64(arg, 1, MW_MAX_TOP, &v))
			return usage_error("--top '%s': from 1 to %d sites", arg, MW_MAX_TOP);
		o->top = (int)v;
		o->top_given = true;
		return 0;
	case OPT_LEAK_INTERVALS:
		if (cli__parse_u64(arg, 1, MW_MAX_LEAK_INTERVALS, &v))
			return usage_error("--leak-intervals '%s': from 1 to %d", arg, MW_MAX_LEAK_INTERVALS);
		o->leak_intervals = (int)v;
		return 0;
	case OPT_STACKS:
		o->stacks = true;
		return 0;
	case OPT_PROBE_ENTRY:
		o->probe_entry = true;
		return 0;
	case OPT_FLOOR:
		o->floor = true;
		return 0;
	case OPT_USER:
		if (!*arg)
			return usage_error("--user needs a user name");
		o->user = arg;
		return 0;
	case OPT_EXE:
		return add_exe(o, arg);
	case OPT_COMM:
		if (!*arg || strlen(arg) > MW_COMM_LEN)
			return usage_error("--comm '%s': a process name, 1 to %d characters (as ps -o comm shows it)",
					   arg, MW_COMM_LEN);
		if (o->ncomms == MW_MAX_MATCHES)
			return usage_error("too many --comm (at most %d)", MW_MAX_MATCHES);
		o->comms[o->ncomms++] = arg;
		return 0;
	case OPT_CGROUP:
		return add_cgroup(o, arg);
	case OPT_HISTORY:
		if (cli__parse_u64(arg, 1, MW_MAX_HISTORY, &v))
			return usage_error("--history '%s': from 1 to %d rows per process", arg, MW_MAX_HISTORY);
		o->history = (uint32_t)v;
		o->history_given = true;
		return 0;
	case OPT_MAX_TARGETS:
		if (cli__parse_u64(arg, 1, MW_MAX_TARGETS, &v))
			return usage_error("--max-targets '%s': from 1 to %d processes", arg, MW_MAX_TARGETS);
		o->max_targets = (uint32_t)v;
		return 0;
	case OPT_MAX_OVERHEAD:
		if (cli__parse_percent(arg, &o->max_overhead))
			return usage_error("--max-overhead '%s': a percent of one CPU, more than 0 and at most %g",
					   arg, MW_MAX_OVERHEAD_PERCENT);
		return 0;
	case 'c':
		return config__load(o, arg);
	case 'h':
		printf(usage_text, MW_DEFAULT_TARGETS, MW_MAX_TARGETS, MW_DEFAULT_INTERVAL_S,
		       MW_DEFAULT_HISTORY, MW_OVER_BUDGET_INTERVALS, MW_DEFAULT_LIVE_BLOCKS, MW_DEFAULT_TOP,
		       MW_DEFAULT_LEAK_INTERVALS, (unsigned long long)MW_DEFAULT_READ_LIMIT);
		return 1;
	case 'V':
		printf("memwatch %s\n", MEMWATCH_VERSION);
		return 1;
	}
	return -1;
}

/* getopt's error: for a short option it names the letter (optopt), which
 * may sit inside a cluster such as -xV; for a long one, the word. */
static int bad_option(int c, const char *word)
{
	char opt[3] = { '-', (char)optopt, '\0' };

	if (optopt > 0 && optopt < 0x100 && strncmp(word, "--", 2))
		word = opt;
	return c == '?' ? usage_error("unknown option '%s'", word)
			: usage_error("option '%s' needs a value", word);
}

/* What a structure needs once all options are read; whether it is probed. */
static int check_structs(struct mw_options *o)
{
	for (int s = 0; s < o->nstructs; s++) {
		for (int f = 0; f < o->nfuncs; f++)
			o->structs[s].probed |= o->funcs[f].struct_id == s;
		if (!o->structs[s].probed && !o->structs[s].read)
			return usage_error("--struct %s has no --insert, --remove or --read", o->structs[s].name);
	}
	return 0;
}

char *cli__keep(struct mw_options *o, const char *value)
{
	char **nv = realloc(o->kept, (o->nkept + 1) * sizeof(*nv));
	char *v = strdup(value);

	if (nv)
		o->kept = nv;
	if (!nv || !v) {
		free(v);
		return NULL;
	}
	return o->kept[o->nkept++] = v;
}

void cli__free(struct mw_options *o)
{
	for (size_t i = 0; i < o->nkept; i++)
		free(o->kept[i]);
	free(o->kept);
	o->kept = NULL;
	o->nkept = 0;
	for (int i = 0; i < o->nexes; i++)
		free(o->exes[i]);
	for (int i = 0; i < o->ncgroups; i++)
		free(o->cgroups[i]);
	o->nexes = o->ncgroups = 0;
	for (int i = 0; i < o->nfuncs; i++)
		free((char *)o->funcs[i].symbol);
	o->nfuncs = 0;
}

int cli__apply(struct mw_options *o, const char *name, const char *value,
	       const char *where)
{
	const struct option *lo;
	int err = -1;

	source = where;
	for (lo = long_opts; lo->name && strcmp(lo->name, name); lo++)
		;
	if (!lo->name)
		err = usage_error("unknown key '%s': a key is a long option without its dashes (memwatch --help)",
				  name);
	else if (lo->val == 'c' || lo->val == 'h' || lo->val == 'V')
		err = usage_error("'%s' cannot be used in a config file", name);
	else if (lo->has_arg == no_argument && *value)
		err = usage_error("'%s' takes no value", name);
	else if (lo->has_arg == required_argument && !*value)
		err = usage_error("'%s' needs a value", name);
	else
		err = parse_one(o, lo->val, lo->has_arg == no_argument ? NULL : value);
	source = NULL;
	return err;
}

/* The long option whose short letter is @c; NULL if none: the short
 * options are the long ones whose value is a letter, written once. */
static const struct option *short_opt(int c)
{
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (lo->val == c && c < 0x80 && isalpha(c))
			return lo;
	return NULL;
}

/* getopt's string of the short options, from long_opts: ":p:i:...hV" */
static const char *short_opts(void)
{
	static char buf[64];
	size_t n = 0;

	if (buf[0])
		return buf;
	buf[n++] = ':';		/* a missing value is ':', not '?' */
	for (const struct option *lo = long_opts; lo->name && n + 3 < sizeof(buf); lo++) {
		if (lo->val >= 0x80 || !isalpha(lo->val))
			continue;
		buf[n++] = (char)lo->val;
		if (lo->has_arg == required_argument)
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return buf;
}

/* Whether the option word @w takes the next word as its value. */
static bool takes_value(const char *w)
{
	if (w[0] != '-' || !w[1])
		return false;
	if (w[1] != '-') {		/* a cluster: the first letter with a value */
		for (const char *p = w + 1; *p; p++) {
			const struct option *lo = short_opt((unsigned char)*p);

			if (lo && lo->has_arg == required_argument)
				return !p[1];
		}
		return false;
	}
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (lo->has_arg == required_argument && !strcmp(w + 2, lo->name))
			return true;
	return false;
}

/* The index of the "--" that ends memwatch's options and starts the
 * command (not one given as an option's value); @argc if none. */
static int command_start(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i;
		if (takes_value(argv[i]))
			i++;
	}
	return argc;
}

int cli__parse(int argc, char **argv, struct mw_options *o)
{
	int c, err, dash;

	memset(o, 0, sizeof(*o));
	o->interval_s = MW_DEFAULT_INTERVAL_S;
	o->max_live_blocks = MW_DEFAULT_LIVE_BLOCKS;
	o->allocator = "auto";
	o->top = MW_DEFAULT_TOP;
	o->leak_intervals = MW_DEFAULT_LEAK_INTERVALS;
	o->max_targets = MW_DEFAULT_TARGETS;
	o->history = MW_DEFAULT_HISTORY;
	o->read_limit = MW_DEFAULT_READ_LIMIT;
	optind = 0;	/* full reset: the parser may run more than once */
	opterr = 0;
	dash = command_start(argc, argv);
	while ((c = getopt_long(dash, argv, short_opts(), long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argv[optind - 1]);
		err = parse_one(o, c, optarg);
		if (err)
			return err;
	}
	if (optind < dash)
		return usage_error("unexpected argument '%s'; a command to run goes after --",
				   argv[optind]);
	if (dash < argc && dash + 1 == argc)
		return usage_error("-- needs a command to run: memwatch [options] -- CMD [ARGS...]");
	if (dash + 1 < argc)
		o->command = argv + dash + 1;
	if (o->web_config && !o->listen)
		return usage_error("--web-config protects the HTTP endpoint: give --listen [ADDR:]PORT too");
	if (o->user && !o->command)
		return usage_error("--user runs a command as USER: memwatch --user USER [options] -- CMD [ARGS...]");
	if (o->command && !o->output && !o->listen)
		return usage_error("in launch mode the program keeps stdout: write the feed with -o PATH or serve it with --listen");
	if (o->history_given && !o->listen)
		return usage_error("--history keeps rows for the page that --listen serves: give --listen too");
	if (o->npids == 0 && !o->command && !options__follows(o))
		return usage_error("--pid PID is required, or a command to run: memwatch [options] -- CMD [ARGS...], or --exe, --comm or --cgroup to follow");
	return check_structs(o);
}
