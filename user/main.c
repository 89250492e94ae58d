// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - memwatch's steps: parse options, check privileges, open the
 * targets, load the BPF object, resolve the probe table, attach, then
 * sample every interval and write the feed until the count is reached, a
 * signal arrives, or every target has exited. One cleanup path. What each
 * step does to the session is in session/ (session.h lists the files).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "exitcodes.h"
#include "log.h"
#include "memwatch.skel.h"
#include "privs.h"
#include "session/budget.h"
#include "session/events.h"
#include "session/image.h"
#include "session/interval.h"
#include "session/load.h"
#include "session/publish.h"
#include "session/session.h"
#include "session/watchlist.h"

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's own lines are for debugging; memwatch reports failures */
	if (mw_debugging())
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int setup_signals(struct mw_session *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);	/* re-attach detached heap probes */
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is a write error */
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		mw_err("cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * SIGINT or SIGTERM: ends the run, or in launch mode is passed on to the
 * program (whose exit ends it). A signal the kernel sent to the whole
 * foreground process group (^C at a terminal) reached the program too.
 * Returns true when the run ends now.
 */
static bool on_signal(struct mw_session *s)
{
	struct signalfd_siginfo si;
	bool ends = false;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		pid_t pid = s->launch.pid;

		if (si.ssi_signo == SIGUSR1) {
			s->reattach = true;	/* memwatch's own: not passed on */
			continue;
		}
		if (!s->child || s->child->target.exited) {
			ends = true;
			continue;
		}
		if (si.ssi_code != SI_KERNEL || getpgid(pid) != getpgrp())
			kill(pid, (int)si.ssi_signo);
	}
	return ends;
}

/* Polls memwatch's signals, the targets' exits and the BPF events for
 * up to @wait seconds. Returns 1 on SIGINT/SIGTERM that ends the run,
 * 0 otherwise, -1 on failure. */
static int wait_events(struct mw_session *s, double wait)
{
	struct pollfd pfd[MW_MAX_TARGETS + 2];
	struct timespec ts;
	int n = 0, r;

	if (wait < 0)
		wait = 0;
	ts.tv_sec = (time_t)wait;
	ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
	pfd[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->events), .events = POLLIN };
	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]) && !s->watched[i].target.exited)
			pfd[n++] = (struct pollfd){ .fd = s->watched[i].target.pidfd, .events = POLLIN };
	r = ppoll(pfd, (nfds_t)n, &ts, NULL);
	if (r < 0 && errno != EINTR) {
		mw_err("poll failed: %s", strerror(errno));
		return -1;
	}
	if (r > 0 && (pfd[1].revents & POLLIN) && events__take(s))
		return -1;
	if (r > 0 && (pfd[0].revents & POLLIN) && on_signal(s))
		return 1;
	if (s->reattach && budget__reattach_all(s))
		return -1;
	return 0;
}

/* Samples every interval until the count, a signal, or no target left
 * (or the launched program's exit). 0 for a normal end, -1 on failure. */
static int run(struct mw_session *s)
{
	double interval = s->opts.interval_s, next = session__now() + interval;

	for (;;) {
		int r = wait_events(s, next - session__now());

		if (r)
			return r < 0 ? -1 : interval__write(s);	/* SIGINT/SIGTERM */
		r = interval__reap(s);
		if (r)
			return r < 0 ? -1 : 0;
		if (session__now() < next)
			continue;
		if (interval__write(s))
			return -1;
		if (s->opts.count && s->rows >= s->opts.count)
			return 0;
		next += interval;
		if (next < session__now())	/* fell behind (stopped, swapped): skip */
			next = session__now() + interval;
	}
}

/* Launch mode, before the feed starts: lets the program execute the
 * command and waits until its image is probed (it is held meanwhile).
 * 0, or the exit code after a message. */
static int start_program(struct mw_session *s)
{
	int code = launch__exec(&s->launch, s->opts.command[0]);

	if (code) {
		s->child->target.exited = true;
		return code;
	}
	while (!watched__probed(s->child)) {
		int r = wait_events(s, 1.0);

		if (r < 0)
			return MW_EXIT_LAUNCH_FAIL;
		/* attached and let go in that call, it may have ended already:
		 * its final row comes from the run */
		if (!watched__probed(s->child) && target__has_exited(&s->child->target)) {
			launch__reap(&s->launch, true);
			mw_err("'%s' exited before memwatch could attach", s->opts.command[0]);
			return launch__exit_code(s->launch.status);
		}
	}
	return 0;
}

/* Every target's links closed, from the closers' threads at once. */
static void destroy_links(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched; i++)
		attach__release(&s->watched[i].links);
	attach__release_wait();
}

/* No more probes in any target, and the launched program is let go. */
static void detach_all(struct mw_session *s)
{
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (!watched__in_use(w))
			continue;
		w->held = false;
		if (s->skel)
			watchlist__write_loader(s, w);
	}
	destroy_links(s);
	for (int i = 0; i < s->nwatched; i++) {
		struct mw_watched *w = &s->watched[i];

		if (watched__in_use(w) && w->launched && !w->target.exited)
			kill(w->target.pid, SIGCONT);	/* if it was held */
	}
}

/* Launch mode, once memwatch is done observing: waits for the program,
 * passing SIGINT and SIGTERM on, and returns the exit code it calls for. */
static int wait_program(struct mw_session *s)
{
	while (!launch__reap(&s->launch, false)) {
		struct pollfd pfd[2] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = s->child->target.pidfd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			on_signal(s);
	}
	if (!launch__reap(&s->launch, true))
		return MW_EXIT_LAUNCH_FAIL;
	return launch__exit_code(s->launch.status);
}

static void cleanup(struct mw_session *s)
{
	destroy_links(s);
	ring_buffer__free(s->events);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->move_link);
	sampler__free(&s->sampler);
	calls__unmap(&s->calls);
	tables__free(&s->unwind);
	memwatch_bpf__destroy(s->skel);
	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]))
			watched__free(&s->watched[i]);
	free(s->watched);
	follow__free(&s->follow);
	http__stop(s->http);
	webconfig__free(s->web);
	api__free(s->api);
	history__free(s->hist);
	feed__close(&s->feed);
	cli__free(&s->opts);
	if (s->sigfd >= 0)
		close(s->sigfd);
}

/* Each watched process holds a pidfd and a link per object and program,
 * or without multi-uprobe links one per probe: the soft limit on open
 * files goes up to what its processes need, --max-targets of them in
 * follow mode (the launched program was forked before, with the limit
 * it had). */
static void raise_nofile(struct mw_session *s)
{
	/* and each structure its own links (entry, return probes, returns) */
	rlim_t links = s->kernel.multi ? 24 + 4 * (rlim_t)s->opts.nstructs :
					  512 + 16 * (rlim_t)s->opts.nstructs;
	/* only follow mode watches processes it was not named: --pid and
	 * launch mode watch theirs, and their images after an exec */
	rlim_t targets = options__follows(&s->opts) ? s->opts.max_targets :
			 s->opts.command ? 1 : (rlim_t)s->opts.npids;
	rlim_t want = targets * links + 256;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= want)
		return;
	if (r.rlim_max < want) {
		struct rlimit up = { want, want };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
		mw_err("can open only %llu files (RLIMIT_NOFILE), not the %llu that %llu processes may need; raise the hard limit (ulimit -Hn)%s",
		       (unsigned long long)r.rlim_max, (unsigned long long)want,
		       (unsigned long long)targets,
		       options__follows(&s->opts) ? " or lower --max-targets" : "");
	}
	r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &r);
}

/* Steps 2 and 3 of main: probes in, privileges down, then the exporter
 * and the header. 0, or -1 after a message. */
static int start(struct mw_session *s)
{
	/* 2. load the programs and attach every probe */
	if (load__bpf(s))
		return -1;
	for (int i = 0; i < s->nwatched; i++)
		if (watched__in_use(&s->watched[i]) && !s->watched[i].launched &&
		    image__attach(s, &s->watched[i], MW_MISSING_FAILS))
			return -1;
	/* then every process that matches (execs from now on are events) */
	if (s->follows && follow__scan(&s->follow, events__follow_found, s) < 0)
		return -1;
	/* 3. no more privileges than the loop needs; then the exporter's
	 * thread (capabilities are per thread), then the header: it says
	 * everything is ready */
	if (privs__drop(s->opts.listen != NULL, !s->kernel.multi))
		return -1;
	if (s->opts.listen && (http__start(&s->http, s->opts.listen, s->web) || publish__start_api(s)))
		return -1;
	if (s->http && s->layout.sites && publish__enable_profiles(s))
		return -1;
	return 0;
}

/* The feed's output; a launched program keeps stdout, so with --listen
 * alone there is none. 0, or -1 after one message. */
static int open_feed(struct mw_session *s)
{
	if (s->child && !s->opts.output) {
		feed__open_none(&s->feed, &s->layout);
		return 0;
	}
	return feed__open(&s->feed, s->opts.format, s->opts.output, &s->layout);
}

int main(int argc, char **argv)
{
	static struct mw_session s = { .sigfd = -1 };
	int err, code = MW_EXIT_FAIL;

	err = cli__parse(argc, argv, &s.opts);
	if (err)
		return err > 0 ? MW_EXIT_OK : MW_EXIT_USAGE;
	/* a bad web config is a usage error, found before anything starts */
	if (s.opts.web_config && webconfig__load(&s.web, s.opts.web_config))
		return MW_EXIT_USAGE;
	s.layout = (struct mw_layout){
		.structs = s.opts.structs, .nstructs = s.opts.nstructs,
		.heap = !s.opts.no_heap, .top = s.opts.top,
		/* sites cost a stack read per call: only when asked for */
		.sites = !s.opts.no_heap && (s.opts.top_given || s.opts.folded ||
					     s.opts.pprof || s.opts.stacks ||
					     s.opts.format == MW_FORMAT_TABLE),
	};
	libbpf_set_print(libbpf_quiet);

	/* 1. privileges, the program to launch (forked while memwatch has
	 * them all), targets and output, before touching the kernel */
	if (privs__check())
		goto cleanup;
	if (kernel__probe(&s.kernel) || (!s.kernel.multi && privs__check_perf_events())) {
		code = s.opts.command ? MW_EXIT_LAUNCH_FAIL : MW_EXIT_FAIL;
		goto cleanup;
	}
	if (s.opts.command) {
		code = MW_EXIT_LAUNCH_FAIL;
		err = launch__spawn(&s.launch, s.opts.command, s.opts.user);
		if (err) {
			code = err == -2 ? MW_EXIT_USAGE : MW_EXIT_LAUNCH_FAIL;
			goto cleanup;
		}
	}
	s.follows = options__follows(&s.opts);
	if (s.follows && follow__init(&s.follow, &s.opts)) {
		code = MW_EXIT_USAGE;
		goto cleanup;
	}
	raise_nofile(&s);
	if (setup_signals(&s) || watchlist__open_all(&s) || open_feed(&s) || start(&s))
		goto cleanup;
	if (s.child && (err = start_program(&s))) {
		code = err;
		goto cleanup;
	}
	/* from here a launched program runs its own code: a failure
	 * detaches and waits for it, it never kills it */
	err = (s.http && interval__http_first(&s)) || feed__start(&s.feed) ? -1 : 0;
	if (!err) {
		s.started = session__now();
		err = run(&s);
	}
	if (!s.child) {
		code = err ? MW_EXIT_FAIL : MW_EXIT_OK;
		goto cleanup;
	}
	/* launch mode: the program goes on without memwatch's probes (count
	 * reached, or memwatch failed), and its exit is memwatch's */
	detach_all(&s);
	feed__close(&s.feed);
	http__stop(s.http);
	s.http = NULL;
	code = wait_program(&s);
	if (err)
		code = MW_EXIT_LAUNCH_FAIL;
	goto out;
cleanup:
	/* a failure before the program ran any of its own code ends it */
	if (s.launch.pid && !s.launch.reaped)
		launch__abort(&s.launch);
out:
	cleanup(&s);
	return code;
}
