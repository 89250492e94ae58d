// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the running kernel's features, tried once at start as
 * libbpf's own feature probes do: a helper is there if a program calling
 * it loads, a kind of link if a test link of it fails the way only a
 * kernel that has it fails (a path that is not a regular file: EBADF).
 * Versions are only named in messages: distributions backport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "log.h"
#include "probes/kernel.h"
#include "probes/tracefs.h"
#include "probes/uprobelink.h"

/* What memwatch's programs cannot do without: Linux 5.17 has it all
 * (bpf_loop is the newest). */
#define MW_OLDEST	"5.17"

static const struct {
	enum bpf_func_id id;
	const char *name;
} helpers[] = {
	{ BPF_FUNC_get_attach_cookie, "bpf_get_attach_cookie" },
	{ BPF_FUNC_task_storage_get, "bpf_task_storage_get" },
	{ BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf" },
	{ BPF_FUNC_loop, "bpf_loop" },
};

static const struct {
	enum bpf_map_type type;
	const char *name;
} maps[] = {
	{ BPF_MAP_TYPE_RINGBUF, "BPF ring buffers" },
	{ BPF_MAP_TYPE_TASK_STORAGE, "BPF task storage" },
};

/* Whether a test link of @attach_type on "/" fails as only a kernel with
 * such links fails it. */
static bool has_link(__u32 attach_type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach_type);
	__u64 offset = 0;
	int prog, fd;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "memwatch_probe", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog < 0)
		return false;
	fd = uprobelink__multi(prog, attach_type == MW_TRACE_UPROBE_SESSION, false, "/", &offset,
			       NULL, 1, 0);
	if (fd >= 0)
		close(fd);
	close(prog);
	return fd == -EBADF;
}

int kernel__probe(struct mw_kernel *k)
{
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		mw_err("Linux %s has no BTF (/sys/kernel/btf/vmlinux): memwatch needs a kernel built with CONFIG_DEBUG_INFO_BTF, " MW_OLDEST " or later (Debian 12 and RHEL 9 ship one)",
		       k->release);
		return -1;
	}
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK)) {
		mw_err("Linux %s has no uprobes (no /sys/bus/event_source/devices/uprobe): memwatch needs a kernel built with CONFIG_UPROBE_EVENTS, " MW_OLDEST " or later",
		       k->release);
		return -1;
	}
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		/* < 0: not known (no privilege): the load will say */
		if (!libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, helpers[i].id, NULL)) {
			mw_err("Linux %s lacks the BPF helper %s() in uprobe programs: memwatch needs Linux " MW_OLDEST " or later",
			       k->release, helpers[i].name);
			return -1;
		}
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (!libbpf_probe_bpf_map_type(maps[i].type, NULL)) {
			mw_err("Linux %s lacks %s: memwatch needs Linux " MW_OLDEST " or later",
			       k->release, maps[i].name);
			return -1;
		}
	/* MEMWATCH_NO_MULTI, MEMWATCH_NO_SESSIONS: an older kernel's way on
	 * this one, for the tests and the benchmark */
	k->multi = !getenv("MEMWATCH_NO_MULTI") && has_link(MW_TRACE_UPROBE_MULTI);
	k->session = k->multi && !getenv("MEMWATCH_NO_SESSIONS") &&
		     has_link(MW_TRACE_UPROBE_SESSION);
	/* MEMWATCH_NO_SHARED: a perf event of its own for every probe */
	k->shared = !k->multi && !getenv("MEMWATCH_NO_SHARED") && !tracefs__open();
	mw_debug("Linux %s: %s", k->release, kernel__mechanism(k));
	return 0;
}

const char *kernel__mechanism(const struct mw_kernel *k)
{
	if (k->session)
		return "multi-uprobe links, uprobe sessions";
	if (k->multi)
		return "multi-uprobe links, entry and return probes";
	if (k->shared)
		return "perf-event uprobes in shared tracefs events, entry and return probes";
	return "perf-event uprobes, entry and return probes";
}
