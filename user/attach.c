// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - one perf-event uprobe per probe (and a return probe where the
 * table asks for one), filtered to the target pid, each carrying its
 * cookie. The links are file descriptors: if memwatch dies, the kernel
 * removes every probe.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "log.h"
#include "memwatch.skel.h"

static int keep(struct mw_links *l, struct bpf_link *link)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct bpf_link **nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = link;
	return 0;
}

static int attach_one(struct bpf_program *prog, pid_t pid,
		      const struct mw_probe *p, bool ret, struct mw_links *l)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = p->cookie,
		    .retprobe = ret);
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_uprobe_opts(prog, pid, p->path, p->offset, &opts);
	if (!link) {
		err = -errno;
		mw_err("cannot attach %s probe to %s in %s (pid %d): %s",
		       ret ? "a return" : "an entry", p->what, p->path, (int)pid,
		       strerror(-err));
		return -1;
	}
	if (keep(l, link)) {
		bpf_link__destroy(link);
		mw_err("out of memory");
		return -1;
	}
	return 0;
}

int attach__table(struct memwatch_bpf *skel, pid_t pid,
		  const struct mw_probe_table *tab, struct mw_links *links)
{
	for (size_t i = 0; i < tab->n; i++) {
		const struct mw_probe *p = &tab->v[i];
		struct bpf_program *enter, *ret;

		if (p->prog == MW_PROG_ALLOC) {
			enter = skel->progs.alloc_enter;
			ret = skel->progs.alloc_return;
		} else {
			enter = skel->progs.struct_enter;
			ret = skel->progs.struct_return;
		}
		/* the return probe first: an entry without its return
		 * would leave a call open on the thread */
		if (p->retprobe && attach_one(ret, pid, p, true, links))
			return -1;
		if (attach_one(enter, pid, p, false, links))
			return -1;
	}
	return 0;
}

void attach__destroy(struct mw_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		bpf_link__destroy(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
