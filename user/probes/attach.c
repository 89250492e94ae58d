// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - uprobes, filtered to the target pid, in the best links the
 * kernel has (kernel.c found which):
 * - multi-uprobe links (Linux 6.6+): for each object and program, one
 *   link carries every offset with its cookie. Detaching a perf-event
 *   uprobe costs a kernel synchronisation each (~0.2 s here: 60 probes
 *   took 11 s to detach one by one); a multi link pays it once.
 * - else perf-event uprobes, a link an offset. The kernel destroys each
 *   event with a synchronisation under one global lock (event_mutex), so
 *   closing them in parallel gains nothing: where tracefs is there, every
 *   process joins one shared event a probe (tracefs.h), and only the
 *   event's last close pays (docs/kernels.md).
 * An allocator's entry points with a return are uprobe sessions where the
 * kernel has them (Linux 6.12+): one program runs at the entry and at the
 * return, the entry may decline the return (a throwing call must), and a
 * probe has one consumer in the kernel where an entry and a return probe
 * make two: every release of a process's link scans the consumers of all
 * (uses_session). Without sessions they are an entry program and a return
 * probe (alloc_open, alloc_return). The links are file descriptors: if
 * memwatch dies, the kernel removes every probe. In a watch of one
 * process, free's and malloc's probes go to programs of their own, which
 * read no cookie (set_of).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "probes/attach.h"
#include "probes/tracefs.h"
#include "probes/uprobelink.h"
#include "log.h"
#include "memwatch.h"
#include "memwatch.skel.h"

/* How probes attach in this process (one skeleton): attach__prepare's */
static struct mw_kernel kern;

void attach__prepare(struct memwatch_bpf *skel, const struct mw_kernel *k)
{
	struct bpf_program *progs[] = {
		skel->progs.alloc_enter, skel->progs.free_enter,
		skel->progs.alloc_open, skel->progs.malloc_open,
		skel->progs.malloc_si_open, skel->progs.alloc_return,
		skel->progs.struct_enter, skel->progs.struct_return,
		skel->progs.struct_exit, skel->progs.unwind_handler,
		skel->progs.root_drop, skel->progs.thread_exit,
		skel->progs.floor_enter, skel->progs.floor_return,
		skel->progs.loader_hook,
	};
	struct bpf_program *sessions[] = {
		skel->progs.alloc_session, skel->progs.malloc_session,
		skel->progs.malloc_si_session, skel->progs.floor_session,
	};
	struct bpf_program *opens[] = {
		skel->progs.alloc_open, skel->progs.malloc_open,
		skel->progs.malloc_si_open, skel->progs.alloc_return,
	};
	bool solo = skel->rodata->solo;

	kern = *k;
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]) && k->multi; i++)
		bpf_program__set_expected_attach_type(progs[i],
			(enum bpf_attach_type)MW_TRACE_UPROBE_MULTI);
	/* sessions or entries and returns: the other set is not loaded (nor
	 * bpf_session_is_return, where the kernel has none) */
	for (size_t i = 0; i < sizeof(sessions) / sizeof(sessions[0]); i++) {
		bpf_program__set_autoload(sessions[i], k->session);
		if (k->session)
			bpf_program__set_expected_attach_type(sessions[i],
				(enum bpf_attach_type)MW_TRACE_UPROBE_SESSION);
	}
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		bpf_program__set_autoload(opens[i], !k->session);
	/* a process's plain frees and mallocs (set_of), only there: fewer
	 * instructions to verify elsewhere */
	bpf_program__set_autoload(skel->progs.free_enter, solo);
	bpf_program__set_autoload(skel->progs.malloc_session, solo && k->session);
	bpf_program__set_autoload(skel->progs.malloc_si_session, solo && k->session);
	bpf_program__set_autoload(skel->progs.malloc_open, solo && !k->session);
	bpf_program__set_autoload(skel->progs.malloc_si_open, solo && !k->session);
}

static int keep(struct mw_links *l, int fd, int what)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		int *nv = realloc(l->fd, ncap * sizeof(*nv));
		int *nw = nv ? realloc(l->what, ncap * sizeof(*nw)) : NULL;

		if (nv)
			l->fd = nv;
		if (!nw)
			return -ENOMEM;
		l->what = nw;
		l->cap = ncap;
	}
	l->what[l->n] = what;
	l->fd[l->n++] = fd;
	return 0;
}

/* Remembers an entry link's offsets for attach__scrub (best effort: a
 * group that cannot be kept is only not scrubbed). */
static void keep_group(struct mw_links *l, const char *path, const __u64 *offsets, __u32 cnt,
		       int what)
{
	struct mw_link_group *nv = realloc(l->groups, (l->ngroups + 1) * sizeof(*nv));
	struct mw_link_group g = { strdup(path), malloc(cnt * sizeof(*offsets)), cnt, what };

	if (nv)
		l->groups = nv;
	if (!nv || !g.path || !g.offsets) {
		free(g.path);
		free(g.offsets);
		return;
	}
	memcpy(g.offsets, offsets, cnt * sizeof(*offsets));
	l->groups[l->ngroups++] = g;
}

static struct bpf_program *program(struct memwatch_bpf *skel, enum mw_prog prog,
				   bool ret, bool floor)
{
	if (prog == MW_PROG_LOADER)
		return skel->progs.loader_hook;	/* memwatch's own, even with --floor */
	if (floor)
		return ret ? skel->progs.floor_return : skel->progs.floor_enter;
	switch (prog) {
	case MW_PROG_ALLOC:
	case MW_PROG_ALLOC_SESSION:
		/* an entry with a return is SET_PAIRED's (set_of) */
		return ret ? skel->progs.alloc_return : skel->progs.alloc_enter;
	case MW_PROG_STRUCT:
		return ret ? skel->progs.struct_return : skel->progs.struct_enter;
	case MW_PROG_STRUCT_EXIT:
		return skel->progs.struct_exit;
	case MW_PROG_ROOT_DROP:
		return skel->progs.root_drop;
	case MW_PROG_HANDLER:
		return skel->progs.unwind_handler;
	case MW_PROG_THREAD_EXIT:
		return skel->progs.thread_exit;
	case MW_PROG_LOADER:
		break;
	}
	return NULL;
}

/* System V's argument registers, as a place holds them */
static const __u8 sysv_args[MW_NARGS] = {
	MW_REG_DI, MW_REG_SI, MW_REG_DX, MW_REG_CX, MW_REG_R8, MW_REG_R9,
};

static bool is_entry_state(const struct mw_place *pl)
{
	return !memcmp(pl->arg, sysv_args, sizeof(sysv_args)) && pl->sp_off == 0 &&
	       pl->fn_len == 0 && pl->guard == 0;
}

/* The places map index of @pl, added to the map if new; -1 when full. */
static int place_index(struct memwatch_bpf *skel, struct mw_places *pls,
		       const struct mw_place *pl)
{
	__u32 i;

	if (is_entry_state(pl))
		return 0;
	for (i = 1; i < pls->n; i++)
		if (!memcmp(&pls->v[i], pl, sizeof(*pl)))
			return (int)i;
	if (!pls->n)
		pls->n = 1;	/* 0: the entry */
	if (pls->n == MW_MAX_PLACES ||
	    bpf_map__update_elem(skel->maps.places, &pls->n, sizeof(pls->n), pl,
				 sizeof(*pl), BPF_ANY))
		return -1;
	pls->v[pls->n] = *pl;
	return (int)pls->n++;
}

/* The offset and cookie @p attaches with: at its placement, with the
 * index of the entry state there; at the entry if the map is full (a
 * moved probe's entry is single-stepped: counted in @l). Go code has no
 * such fallback (its entry may run twice a call, its arguments are not
 * System V's): -1 after a message. */
static int placed(struct memwatch_bpf *skel, struct mw_places *pls,
		  const struct mw_probe *p, struct mw_links *l, __u64 *offset, __u64 *cookie)
{
	struct mw_place pl = p->at.place;
	int i;

	if (p->prog == MW_PROG_STRUCT && (p->cookie & MW_SF_HEAD)) {
		/* where its code is, for the part's entry to recognise */
		pl.fn_back = (__u32)p->at.shift;
		pl.fn_len = (__u32)p->size;
	}
	i = place_index(skel, pls, &pl);

	*offset = p->offset;
	*cookie = p->cookie | (p->at.stepped ? MW_COOKIE_STEPPED : 0);
	if (i > 0) {
		*cookie = MW_COOKIE_WITH_PLACE(*cookie, (__u64)i);
	} else if (i < 0 && (pl.guard || memcmp(pl.arg, sysv_args, sizeof(sysv_args)))) {
		mw_err("more than %d distinct probe placements: %s cannot be probed",
		       MW_MAX_PLACES - 1, p->what);
		return -1;
	} else if (i < 0 && p->at.shift) {
		*offset = p->offset - p->at.shift;
		*cookie |= MW_COOKIE_STEPPED;
		l->unplaced++;
		if (!pls->warned_full)
			mw_err("more than %d distinct probe placements: the rest stay at their functions' entries, single-stepped",
			       MW_MAX_PLACES - 1);
		pls->warned_full = true;
	}
	return 0;
}

/* What the links of @prog's probes with @cookie hold (MW_LINK_*, or a
 * structure id): structures get links of their own, so that one of them
 * can be detached alone. */
static int what_of(enum mw_prog prog, __u64 cookie)
{
	switch (prog) {
	case MW_PROG_ALLOC:
	case MW_PROG_ALLOC_SESSION:
	case MW_PROG_THREAD_EXIT:
		return MW_LINK_HEAP;
	case MW_PROG_STRUCT:
	case MW_PROG_STRUCT_EXIT:
	case MW_PROG_ROOT_DROP:
		return (int)MW_SF_ID(cookie);
	case MW_PROG_HANDLER:
	case MW_PROG_LOADER:
		break;
	}
	return MW_LINK_OTHER;
}

/* Whether @p is an allocator's entry point with a return: a session
 * where the kernel has them, whose one link serves entry and return
 * (--floor's too, with an empty session program, so that the floor is
 * what memwatch's probes cost the kernel); else an entry program of
 * its own beside the return probe. */
static bool paired(const struct mw_probe *p)
{
	return p->prog == MW_PROG_ALLOC_SESSION || (p->prog == MW_PROG_ALLOC && p->retprobe);
}

static bool uses_session(const struct mw_probe *p)
{
	return kern.session && paired(p);
}

/* The links a group's probes are split in, in the order they are made
 * (attach_group) */
enum probe_set {
	SET_FREE,	/* plain frees: free_enter */
	SET_REST,	/* the group's plain entry or return program */
	SET_PAIRED,	/* an allocator's other entries with a return:
			 * alloc_session, or alloc_open */
	SET_MALLOC,	/* plain mallocs: malloc_session, or malloc_open */
	SET_MALLOC_SI,	/* plain mallocs with the size in rsi:
			 * malloc_si_session, or malloc_si_open */
	SET__COUNT,
};

/* Whether a malloc at @pl has the entry's state but for its size, which
 * is in rsi (bpf's size_in_si): malloc reads no other argument. */
static bool size_in_si(const struct mw_place *pl)
{
	return pl->arg[0] == MW_REG_SI && pl->sp_off == 0 && pl->guard == 0 &&
	       pl->fn_back == 0 && pl->fn_len == 0;
}

/*
 * Which link @p, with @cookie as placed, goes in, in slot @slot.
 * free_enter: free with no return probe; malloc_session (malloc_open): an
 * entry point whose cookie says malloc and nothing more. Both only at an instruction
 * whose state is the entry's (place 0) that the kernel emulates, in a
 * session that watches one process in slot 0 (rodata's solo): those
 * programs read no cookie, and everything it would say is known there.
 * malloc_si_session: such a malloc at a place that differs from the
 * entry only by its size being in rsi.
 */
static enum probe_set set_of(const struct memwatch_bpf *skel, const struct mw_places *pls,
			     const struct mw_probe *p, __u32 slot, bool floor, __u64 cookie)
{
	__u32 place = MW_COOKIE_PLACE(cookie);
	enum probe_set other = paired(p) ? SET_PAIRED : SET_REST;

	if (!skel->rodata->solo || slot || floor || p->prog != MW_PROG_ALLOC ||
	    (cookie & MW_COOKIE_STEPPED))
		return other;
	if (place) {
		if (other == SET_PAIRED &&
		    cookie == MW_COOKIE_WITH_PLACE(MW_ALLOC_COOKIE(MW_OP_MALLOC), place) &&
		    place < pls->n && size_in_si(&pls->v[place]))
			return SET_MALLOC_SI;
		return other;
	}
	if (other == SET_REST && MW_ALLOC_OP(cookie) == MW_OP_FREE &&
	    !(cookie & MW_ALLOC_PAIRED))
		return SET_FREE;
	if (other == SET_PAIRED && cookie == MW_ALLOC_COOKIE(MW_OP_MALLOC))
		return SET_MALLOC;
	return other;
}

/* The offsets and cookies of one link to be made. */
struct link_set {
	__u64 *offsets, *cookies;
	__u32 cnt;
};

/* Keeps link @fd, holding @what, in @l: 0, or -1 (closed) after a
 * message. */
static int keep_link(struct mw_links *l, int fd, int what)
{
	if (!keep(l, fd, what))
		return 0;
	close(fd);
	mw_err("out of memory");
	return -1;
}

/* A perf-event uprobe of @prog_fd at @path+@offset for @pid with @cookie
 * (its slot's): one of the shared tracefs events where there are, else
 * an event of its own. Its descriptor, or -errno. */
static int perf_probe(int prog_fd, bool ret, const char *path, __u64 offset, __u64 cookie,
		      pid_t pid)
{
	int fd = -ENOENT;

	if (kern.shared)
		fd = tracefs__join(prog_fd, ret, path, offset,
				   (cookie & ~MW_COOKIE_SLOT_MASK) | MW_COOKIE_SHARED, pid);
	/* a path tracefs cannot name gets an event of its own */
	if (fd == -EINVAL || fd == -ENAMETOOLONG || !kern.shared)
		fd = uprobelink__perf(prog_fd, ret, path, offset, cookie, pid);
	return fd;
}

/* Makes @set's links for @bpf_prog (its returns if @ret, a session's if
 * @session): one multi-uprobe link, or a perf-event uprobe an offset;
 * kept in @l as holding @what. 0 (none if empty), or -1 after a
 * message. */
static int link_set(const struct link_set *set, struct bpf_program *bpf_prog, pid_t pid,
		    const char *path, int what, bool ret, bool session, struct mw_links *l)
{
	int prog_fd = bpf_program__fd(bpf_prog);
	__u32 made = 0;
	int fd = 0;

	if (!set->cnt)
		return 0;
	if (kern.multi) {
		fd = uprobelink__multi(prog_fd, session, ret, path, set->offsets, set->cookies,
				       set->cnt, pid);
		if (fd >= 0 && keep_link(l, fd, what))
			return -1;
		made = fd >= 0 ? set->cnt : 0;
	}
	for (; !kern.multi && made < set->cnt; made++) {
		fd = perf_probe(prog_fd, ret, path, set->offsets[made], set->cookies[made], pid);
		if (fd < 0)
			break;
		if (keep_link(l, fd, what))
			return -1;
		l->probes++;
	}
	if (fd < 0) {
		mw_err("cannot attach %u %s probes to %s (pid %d): %s", set->cnt - made,
		       session ? "session" : ret ? "return" : "entry", path, (int)pid,
		       strerror(-fd));
		return -1;
	}
	if (kern.multi)
		l->probes += set->cnt;
	if (!ret)
		keep_group(l, path, set->offsets, set->cnt, what);
	return 0;
}

/* The entry program of paired set @set: a session's, or an entry's
 * beside its return probe. */
static struct bpf_program *paired_program(struct memwatch_bpf *skel, bool floor,
					  enum probe_set set)
{
	if (floor)
		return kern.session ? skel->progs.floor_session : skel->progs.floor_enter;
	switch (set) {
	case SET_MALLOC:
		return kern.session ? skel->progs.malloc_session : skel->progs.malloc_open;
	case SET_MALLOC_SI:
		return kern.session ? skel->progs.malloc_si_session : skel->progs.malloc_si_open;
	default:
		return kern.session ? skel->progs.alloc_session : skel->progs.alloc_open;
	}
}

/* The links of every probe of @tab in @path for @prog that holds @what
 * (their return probes if @ret, but a session's, which its entry's link
 * has): one a set_of's. 0 if there were none or all attached, -1 after a
 * message. */
static int attach_group(struct memwatch_bpf *skel, struct mw_places *pls, pid_t pid, __u32 slot,
			const struct mw_probe_table *tab, const char *path,
			enum mw_prog prog, int what, bool ret, bool floor, struct mw_links *l)
{
	struct link_set sets[SET__COUNT] = { { 0 } };
	int err = -1;

	for (int k = 0; k < SET__COUNT; k++) {
		sets[k].offsets = calloc(tab->n, sizeof(*sets[k].offsets));
		sets[k].cookies = calloc(tab->n, sizeof(*sets[k].cookies));
		if (!sets[k].offsets || !sets[k].cookies) {
			mw_err("out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < tab->n; i++) {
		const struct mw_probe *p = &tab->v[i];
		__u64 offset, cookie;
		struct link_set *set;

		if (p->prog != prog || (ret && (!p->retprobe || uses_session(p))) ||
		    strcmp(p->path, path) || what_of(p->prog, p->cookie) != what)
			continue;
		if (placed(skel, pls, p, l, &offset, &cookie))
			goto out;
		set = &sets[ret ? SET_REST : set_of(skel, pls, p, slot, floor, cookie)];
		set->offsets[set->cnt] = offset;
		set->cookies[set->cnt++] = MW_COOKIE_WITH_SLOT(cookie, slot);
	}
	/* plain frees' link first and plain mallocs' last: attach__close
	 * closes the newest first, and a free unseen while its block's
	 * malloc is still seen leaves the block in the table, found again at
	 * the next malloc of its address (unpaired); so does a realloc or a
	 * sized free, in the rest */
	if (!link_set(&sets[SET_FREE], skel->progs.free_enter, pid, path, what, false, false, l) &&
	    !link_set(&sets[SET_REST], program(skel, prog, ret, floor), pid, path, what, ret,
		      false, l) &&
	    !link_set(&sets[SET_PAIRED], paired_program(skel, floor, SET_PAIRED), pid, path,
		      what, false, kern.session, l) &&
	    !link_set(&sets[SET_MALLOC], paired_program(skel, floor, SET_MALLOC), pid, path,
		      what, false, kern.session, l) &&
	    !link_set(&sets[SET_MALLOC_SI], paired_program(skel, floor, SET_MALLOC_SI), pid,
		      path, what, false, kern.session, l))
		err = 0;
out:
	for (int k = 0; k < SET__COUNT; k++) {
		free(sets[k].offsets);
		free(sets[k].cookies);
	}
	return err;
}

int attach__table(struct memwatch_bpf *skel, struct mw_places *places, pid_t pid,
		  uint32_t slot, const struct mw_probe_table *tab,
		  struct mw_links *links, bool floor)
{
	for (size_t i = 0; i < tab->n; i++) {
		const struct mw_probe *p = &tab->v[i];
		int what = what_of(p->prog, p->cookie);
		bool first = true;

		/* each (object, program, what) once: at its first probe */
		for (size_t j = 0; j < i && first; j++)
			first = tab->v[j].prog != p->prog || strcmp(tab->v[j].path, p->path) ||
				what_of(tab->v[j].prog, tab->v[j].cookie) != what;
		if (!first)
			continue;
		/* return probes first: an entry seen without its return would
		 * leave a call open on the thread */
		if (attach_group(skel, places, pid, slot, tab, p->path, p->prog, what, true, floor,
				 links) ||
		    attach_group(skel, places, pid, slot, tab, p->path, p->prog, what, false, floor,
				 links))
			return -1;
	}
	return 0;
}

static void free_group(struct mw_link_group *g)
{
	free(g->path);
	free(g->offsets);
}

/* Frees @l's memory; its links are closed already. */
static void forget(struct mw_links *l)
{
	free(l->fd);
	free(l->what);
	for (size_t i = 0; i < l->ngroups; i++)
		free_group(&l->groups[i]);
	free(l->groups);
	memset(l, 0, sizeof(*l));
}

void attach__destroy(struct mw_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		close(l->fd[i]);
	forget(l);
}

/*
 * Releasing a link waits for one kernel synchronisation (up to ~70 ms
 * here), one link after another: 256 processes' ~500 links took 37 s.
 * Waiters of one grace period share it, so links whose process is gone
 * are closed by a pool of threads, in the background: the main loop goes
 * on, and many closes pay a few rounds instead of one each.
 */
#define MW_CLOSERS	32

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	int *fd;		/* links waiting to be closed */
	size_t n, cap;
	pthread_t th[MW_CLOSERS];
	size_t threads, idle;
	bool done;		/* attach__release_wait: exit when empty */
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER };

static void *closer(void *unused)
{
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		int fd;

		while (!pool.n && !pool.done) {
			pool.idle++;
			pthread_cond_wait(&pool.more, &pool.lock);
			pool.idle--;
		}
		if (!pool.n)
			break;
		fd = pool.fd[--pool.n];
		pthread_mutex_unlock(&pool.lock);
		close(fd);
		pthread_mutex_lock(&pool.lock);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Room for one more queued link. */
static bool room(void)
{
	int *nv;

	if (pool.n < pool.cap)
		return true;
	nv = realloc(pool.fd, (pool.cap ? pool.cap * 2 : 64) * sizeof(*nv));
	if (!nv)
		return false;
	pool.fd = nv;
	pool.cap = pool.cap ? pool.cap * 2 : 64;
	return true;
}

/* Queues @fd for a closer, started if none is idle; closes it here if it
 * cannot be queued. */
static void release_fd(int fd)
{
	bool queued = false;

	pthread_mutex_lock(&pool.lock);
	if (!pool.idle && pool.threads < MW_CLOSERS &&
	    !pthread_create(&pool.th[pool.threads], NULL, closer, NULL))
		pool.threads++;
	if (pool.threads && room()) {
		pool.fd[pool.n++] = fd;
		pthread_cond_signal(&pool.more);
		queued = true;
	}
	pthread_mutex_unlock(&pool.lock);
	if (!queued)
		close(fd);
}

void attach__release(struct mw_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		release_fd(l->fd[i]);
	forget(l);
}

void attach__release_wait(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.done = true;
	pthread_cond_broadcast(&pool.more);
	pthread_mutex_unlock(&pool.lock);
	for (size_t i = 0; i < pool.threads; i++)
		pthread_join(pool.th[i], NULL);
	free(pool.fd);
	pool.fd = NULL;
	pool.n = pool.cap = pool.threads = 0;
	pool.done = false;
	if (kern.shared)
		tracefs__close();	/* no process's perf event of them is left */
}

size_t attach__close(struct mw_links *l, int what)
{
	size_t kept = 0, gone = 0;

	/* newest first: each entry link goes before the return link made
	 * just before it, so no call is entered whose return goes unseen */
	for (size_t i = l->n; i-- > 0;)
		if (l->what[i] == what)
			close(l->fd[i]);
	for (size_t i = 0; i < l->n; i++) {
		if (l->what[i] == what)
			continue;
		l->fd[kept] = l->fd[i];
		l->what[kept++] = l->what[i];
	}
	l->n = kept;
	kept = 0;
	for (size_t i = 0; i < l->ngroups; i++) {
		if (l->groups[i].what == what) {
			gone += l->groups[i].cnt;
			free_group(&l->groups[i]);
			continue;
		}
		l->groups[kept++] = l->groups[i];
	}
	l->ngroups = kept;
	l->probes -= gone <= l->probes ? gone : l->probes;
	return gone;
}

static int cmp_offset(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Every kept offset of the groups in @path at @l (from group @first on),
 * sorted and each once, into @out (room for all): how many. */
static __u32 path_offsets(const struct mw_links *l, size_t first, const char *path, __u64 *out)
{
	__u32 n = 0, k = 0;

	for (size_t i = first; i < l->ngroups; i++)
		if (!strcmp(l->groups[i].path, path)) {
			memcpy(out + n, l->groups[i].offsets, l->groups[i].cnt * sizeof(*out));
			n += l->groups[i].cnt;
		}
	qsort(out, n, sizeof(*out), cmp_offset);
	for (__u32 i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return k;
}

void attach__scrub(struct memwatch_bpf *skel, const struct mw_links *l, pid_t pid)
{
	size_t total = 0;
	__u64 *offsets;

	for (size_t i = 0; i < l->ngroups; i++)
		total += l->groups[i].cnt;
	offsets = malloc((total ? total : 1) * sizeof(*offsets));
	if (!offsets)
		return;
	for (size_t i = 0; i < l->ngroups; i++) {
		const char *path = l->groups[i].path;
		bool seen = false;
		__u32 n;
		int fd;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(l->groups[j].path, path);
		if (seen)
			continue;	/* the object's link is made at its first group */
		n = path_offsets(l, i, path, offsets);
		if (kern.multi) {
			fd = uprobelink__multi(bpf_program__fd(skel->progs.floor_enter), false, false,
					       path, offsets, NULL, n, pid);
			if (fd >= 0)
				release_fd(fd);	/* the unregistering is what scrubs */
			continue;
		}
		/* a perf event an offset, with no program: its breakpoint */
		for (__u32 k = 0; k < n; k++) {
			fd = kern.shared ? tracefs__scrub(path, offsets[k], pid) : -ENOENT;
			if (fd < 0)
				fd = uprobelink__perf(-1, false, path, offsets[k], 0, pid);
			if (fd >= 0)
				release_fd(fd);
		}
	}
	free(offsets);
}
