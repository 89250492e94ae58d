// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - memwatch's steps: parse options, check privileges, open the
 * targets, load the BPF object, resolve the probe table, attach, then
 * sample every interval and write the feed until the count is reached, a
 * signal arrives, or every target has exited. One cleanup path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "allocator.h"
#include "attach.h"
#include "cli.h"
#include "csv.h"
#include "log.h"
#include "memwatch.skel.h"
#include "privs.h"
#include "probes.h"
#include "procmaps.h"
#include "sampler.h"
#include "structs.h"
#include "target.h"

struct mw_session {
	struct mw_options opts;
	struct memwatch_bpf *skel;
	struct mw_target targets[MW_MAX_TARGETS];
	int ntargets;
	struct mw_links links;
	struct mw_sampler sampler;
	struct mw_layout layout;
	FILE *out;
	int sigfd;
	uint64_t rows;			/* intervals written */
	bool warned_inexact[MW_MAX_TARGETS];
	bool warned_silent[MW_MAX_TARGETS][MW_MAX_STRUCTS];
	double started;			/* monotonic seconds at attach */
};

/* A structure whose functions never fire while the heap keeps moving is
 * most likely probed on a function the compiler inlined. */
#define MW_SILENT_AFTER_S	10.0
#define MW_SILENT_HEAP_CALLS	1000

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's own lines are for debugging; memwatch reports failures */
	if (getenv("MEMWATCH_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int open_output(struct mw_session *s)
{
	int fd;

	if (!s->opts.output) {
		s->out = stdout;
		return 0;
	}
	/* never follow a link planted at the path: memwatch runs as root */
	fd = open(s->opts.output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_CLOEXEC, 0644);
	if (fd < 0 || !(s->out = fdopen(fd, "w"))) {
		mw_err("cannot write %s: %s", s->opts.output, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

static int open_targets(struct mw_session *s)
{
	for (int i = 0; i < s->opts.npids; i++) {
		if (target__open(&s->targets[i], s->opts.pids[i], (uint32_t)i))
			return -1;
		s->ntargets++;
	}
	return 0;
}

static int load_bpf(struct mw_session *s)
{
	int err;

	s->skel = memwatch_bpf__open();
	if (!s->skel) {
		mw_err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(s->skel->maps.live, s->opts.max_live_blocks);
	err = memwatch_bpf__load(s->skel);
	if (err) {
		mw_err("cannot load the BPF programs: %s; this needs Linux 5.15 or later with BTF (/sys/kernel/btf/vmlinux)",
		       strerror(-err));
		return -1;
	}
	for (int i = 0; i < s->ntargets; i++) {
		__u32 tgid = (__u32)s->targets[i].pid, slot = s->targets[i].slot;

		err = bpf_map__update_elem(s->skel->maps.slots, &tgid, sizeof(tgid),
					   &slot, sizeof(slot), BPF_ANY);
		if (err) {
			mw_err("cannot register pid %d: %s", (int)tgid, strerror(-err));
			return -1;
		}
	}
	return sampler__init(&s->sampler, s->skel) ? (mw_err("out of memory"), -1) : 0;
}

/* Resolves and attaches every probe for one target. */
static int attach_target(struct mw_session *s, const struct mw_target *t)
{
	struct mw_probe_table tab = { 0 };
	struct mw_maps maps;
	int err = -1, n;

	if (procmaps__load(t->pid, &maps)) {
		mw_err("cannot read /proc/%d/maps: %s; the process may have exited", (int)t->pid, strerror(errno));
		return -1;
	}
	if (!s->opts.no_heap && allocator__resolve(t, &maps, &tab) < 0)
		goto out;
	n = (int)tab.n;
	if (structs__resolve(t, &maps, &s->opts, &tab) < 0)
		goto out;
	err = attach__table(s->skel, t->pid, &tab, &s->links);
	if (!err && getenv("MEMWATCH_DEBUG"))
		mw_err("pid %d: %d allocator and %zu structure probes attached",
		       (int)t->pid, n, tab.n - (size_t)n);
out:
	probes__free(&tab);
	procmaps__free(&maps);
	return err;
}

static int setup_signals(struct mw_session *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is a write error */
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		mw_err("cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void warn_inexact(struct mw_session *s, int i, const struct mw_snapshot *snap)
{
	uint64_t full = snap->c[MW_C_LOST_TABLE_FULL];
	uint64_t other = snap->c[MW_C_LOST_UNPAIRED] + snap->c[MW_C_LOST_SCOPES] +
			 snap->lost_missed;

	if (s->warned_inexact[i] || (!full && !other))
		return;
	s->warned_inexact[i] = true;
	if (full)
		mw_err("pid %d: the live-block table is full, %llu blocks not recorded; figures are no longer exact (raise --max-live-blocks)",
		       (int)snap->pid, (unsigned long long)full);
	else
		mw_err("pid %d: %llu probe events could not be paired or were skipped; figures are no longer exact (see the lost_* columns)",
		       (int)snap->pid, (unsigned long long)other);
}

static double now_s(void);

static void warn_silent(struct mw_session *s, int i, const struct mw_snapshot *snap)
{
	if (!s->layout.heap || now_s() - s->started < MW_SILENT_AFTER_S ||
	    snap->c[MW_C_ALLOC_CALLS] < MW_SILENT_HEAP_CALLS)
		return;
	for (int k = 0; k < snap->nstructs; k++) {
		if (s->warned_silent[i][k] || snap->s[k].insert_calls ||
		    snap->s[k].remove_calls)
			continue;
		s->warned_silent[i][k] = true;
		mw_err("pid %d: no function of structure %s has run in %.0f s while the heap made %llu allocations; if they were inlined, name a function that exists out of line",
		       (int)snap->pid, s->layout.structs[k].name, now_s() - s->started,
		       (unsigned long long)snap->c[MW_C_ALLOC_CALLS]);
	}
}

static int write_row(struct mw_session *s, int i)
{
	struct mw_snapshot snap;
	int err;

	err = sampler__read(&s->sampler, &s->targets[i], &s->layout, &snap);
	if (err) {
		mw_err("cannot read the BPF maps: %s", strerror(-err));
		return -1;
	}
	warn_inexact(s, i, &snap);
	warn_silent(s, i, &snap);
	err = csv__write_row(s->out, &s->layout, &snap);
	if (err) {
		mw_err("cannot write the feed: %s", strerror(-err));
		return -1;
	}
	return 0;
}

/* One row for every target still running. */
static int write_interval(struct mw_session *s)
{
	for (int i = 0; i < s->ntargets; i++)
		if (!s->targets[i].exited && write_row(s, i))
			return -1;
	s->rows++;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Writes a final row for each target that exited since the last poll.
 * Returns 1 once no target is left. */
static int reap_targets(struct mw_session *s, struct pollfd *pfd)
{
	int left = 0;

	for (int i = 0; i < s->ntargets; i++) {
		struct mw_target *t = &s->targets[i];

		if (!t->exited && target__has_exited(t)) {
			if (write_row(s, i))
				return -1;
			mw_err("pid %d exited", (int)t->pid);
		}
		left += !t->exited;
	}
	return left == 0;
}

/* Samples every interval until the count, a signal, or no target left.
 * Returns 0 for a normal end, -1 on failure. */
static int run(struct mw_session *s)
{
	double interval = s->opts.interval_s, next = now_s() + interval;
	struct pollfd pfd[MW_MAX_TARGETS + 1];

	for (;;) {
		double wait = next - now_s();
		struct timespec ts;
		int n = 0, r;

		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		pfd[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
		for (int i = 0; i < s->ntargets; i++)
			if (!s->targets[i].exited)
				pfd[n++] = (struct pollfd){ .fd = s->targets[i].pidfd, .events = POLLIN };
		r = ppoll(pfd, (nfds_t)n, &ts, NULL);
		if (r < 0 && errno != EINTR) {
			mw_err("poll failed: %s", strerror(errno));
			return -1;
		}
		if (r > 0 && (pfd[0].revents & POLLIN))
			return write_interval(s);	/* SIGINT/SIGTERM */
		r = reap_targets(s, pfd);
		if (r)
			return r < 0 ? -1 : 0;
		if (now_s() < next)
			continue;
		if (write_interval(s))
			return -1;
		if (s->opts.count && s->rows >= s->opts.count)
			return 0;
		next += interval;
		if (next < now_s())	/* fell behind (stopped, swapped): skip */
			next = now_s() + interval;
	}
}

static void cleanup(struct mw_session *s)
{
	attach__destroy(&s->links);
	sampler__free(&s->sampler);
	memwatch_bpf__destroy(s->skel);
	for (int i = 0; i < s->ntargets; i++)
		target__close(&s->targets[i]);
	if (s->out && s->out != stdout)
		fclose(s->out);
	if (s->sigfd >= 0)
		close(s->sigfd);
}

int main(int argc, char **argv)
{
	static struct mw_session s = { .sigfd = -1 };
	int err, code = MW_EXIT_FAIL;

	err = cli__parse(argc, argv, &s.opts);
	if (err)
		return err > 0 ? MW_EXIT_OK : MW_EXIT_USAGE;
	s.layout = (struct mw_layout){ s.opts.structs, s.opts.nstructs, !s.opts.no_heap };
	libbpf_set_print(libbpf_quiet);

	/* 1. privileges, targets and output, before touching the kernel */
	if (privs__check() || setup_signals(&s) || open_targets(&s) ||
	    open_output(&s))
		goto cleanup;
	/* 2. load the programs and attach every probe */
	if (load_bpf(&s))
		goto cleanup;
	for (int i = 0; i < s.ntargets; i++)
		if (attach_target(&s, &s.targets[i]))
			goto cleanup;
	/* 3. the header says every probe is in place; then sample */
	if ((err = csv__write_header(s.out, &s.layout))) {
		mw_err("cannot write the feed: %s", strerror(-err));
		goto cleanup;
	}
	s.started = now_s();
	if (run(&s) == 0)
		code = MW_EXIT_OK;
cleanup:
	cleanup(&s);
	return code;
}
