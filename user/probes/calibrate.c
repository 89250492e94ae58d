// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate.c - the cost of one probe hit, measured on a helper process
 * memwatch forks at start. The helper calls functions of memwatch's own
 * code, written here in assembly so that their first instructions are
 * known: one the kernel emulates (push), one it single-steps (mov), and a
 * fake allocator pair (push) that memwatch's allocator programs see as
 * malloc and free. The same programs as on a target run on them, through
 * the same probe table and links; the helper times its loops with and
 * without the probes. Nothing depends on the target's code, so this runs
 * once, before any target is attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "probes/attach.h"
#include "probes/calibrate.h"
#include "memwatch.skel.h"
#include "log.h"
#include "probes/probes.h"

/* uintptr_t f(uintptr_t): each returns its argument. */
__asm__(
	".text\n"
	".globl mw_calib_emulated\n"
	".type mw_calib_emulated, @function\n"
	"mw_calib_emulated:\n"		/* push: emulated */
	"	push %rbp\n"
	"	mov %rdi, %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size mw_calib_emulated, .-mw_calib_emulated\n"
	".globl mw_calib_stepped\n"
	".type mw_calib_stepped, @function\n"
	"mw_calib_stepped:\n"		/* mov then ret: single-stepped */
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size mw_calib_stepped, .-mw_calib_stepped\n"
	".globl mw_calib_alloc\n"
	".type mw_calib_alloc, @function\n"
	"mw_calib_alloc:\n"		/* "malloc": the block is its size */
	"	push %rbp\n"
	"	mov %rdi, %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size mw_calib_alloc, .-mw_calib_alloc\n"
	".globl mw_calib_free\n"
	".type mw_calib_free, @function\n"
	"mw_calib_free:\n"		/* "free" */
	"	push %rbp\n"
	"	mov %rdi, %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size mw_calib_free, .-mw_calib_free\n"
	".globl mw_calib_nop\n"
	".type mw_calib_nop, @function\n"
	"mw_calib_nop:\n"		/* nopl 0(%rax): 6.18 emulates it, 6.1 steps it */
	"	.byte 0x0f, 0x1f, 0x40, 0x00\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size mw_calib_nop, .-mw_calib_nop\n");

uintptr_t mw_calib_emulated(uintptr_t);
uintptr_t mw_calib_stepped(uintptr_t);
uintptr_t mw_calib_alloc(uintptr_t);
uintptr_t mw_calib_free(uintptr_t);
uintptr_t mw_calib_nop(uintptr_t);

#define MW_CALIB_SELF	"/proc/self/exe"
#define MW_CALIB_ROUNDS	5
#define MW_CALIB_CALLS	400	/* per loop: ~2 ms at 5 us a hit */
#define MW_CALIB_BLOCKS	0x10000000ul	/* fake blocks, never dereferenced */
#define MW_CALIB_WAIT_MS 10000	/* for one loop's answer */

enum loop { LOOP_EMULATED, LOOP_STEPPED, LOOP_PAIR, LOOP__COUNT, LOOP_NOP = LOOP__COUNT };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Nanoseconds per call of loop @l, as the helper sees them. */
static double run_loop(enum loop l, uint32_t n)
{
	uintptr_t (*volatile emulated)(uintptr_t) = mw_calib_emulated;
	uintptr_t (*volatile stepped)(uintptr_t) = mw_calib_stepped;
	uintptr_t (*volatile alloc)(uintptr_t) = mw_calib_alloc;
	uintptr_t (*volatile release)(uintptr_t) = mw_calib_free;
	uintptr_t (*volatile nop)(uintptr_t) = mw_calib_nop;
	double t0 = now_ns();

	for (uint32_t i = 0; i < n; i++) {
		if (l == LOOP_NOP)
			nop(i);
		else if (l == LOOP_EMULATED)
			emulated(i);
		else if (l == LOOP_STEPPED)
			stepped(i);
		else
			release(alloc(MW_CALIB_BLOCKS + i * 16ul));
	}
	return (now_ns() - t0) / n;
}

/* The helper: runs the loop asked on @in, answers on @out, until EOF. */
static void helper(int in, int out)
{
	struct { uint32_t loop, n; } cmd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (read(in, &cmd, sizeof(cmd)) == sizeof(cmd)) {
		double ns = run_loop((enum loop)cmd.loop, cmd.n);

		if (write(out, &ns, sizeof(ns)) != sizeof(ns))
			break;
	}
	_exit(0);
}

struct helper {
	pid_t pid;
	int to, from;
};

static int helper_start(struct helper *h)
{
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC))
		return -errno;
	if (pipe2(up, O_CLOEXEC)) {
		close(down[0]);
		close(down[1]);
		return -errno;
	}
	h->pid = fork();
	if (h->pid == 0) {
		close(down[1]);
		close(up[0]);
		helper(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	h->to = down[1];
	h->from = up[0];
	if (h->pid < 0) {
		close(h->to);
		close(h->from);
		return -errno;
	}
	return 0;
}

static void helper_stop(struct helper *h)
{
	close(h->to);
	close(h->from);
	kill(h->pid, SIGKILL);
	waitpid(h->pid, NULL, 0);
}

/* ns per call of loop @l (@n calls) in the helper; < 0 if it did not
 * answer in time (stopped, killed). */
static double ask_n(const struct helper *h, enum loop l, uint32_t n)
{
	struct { uint32_t loop, n; } cmd = { l, n };
	struct pollfd pfd = { .fd = h->from, .events = POLLIN };
	double ns;

	if (write(h->to, &cmd, sizeof(cmd)) != sizeof(cmd) ||
	    poll(&pfd, 1, MW_CALIB_WAIT_MS) != 1 ||
	    read(h->from, &ns, sizeof(ns)) != sizeof(ns))
		return -1;
	return ns;
}

static double ask(const struct helper *h, enum loop l)
{
	return ask_n(h, l, MW_CALIB_CALLS);
}

/* Whether the probes of slot @slot fired: every loop's, counted by kind
 * (a cost measured on probes that never ran would be a silent 0). */
static bool probes_fired(struct memwatch_bpf *skel, uint32_t slot)
{
	int ncpus = libbpf_num_possible_cpus();
	struct mw_stats *v = ncpus > 0 ? calloc((size_t)ncpus, sizeof(*v)) : NULL;
	struct mw_struct_stats *sv = ncpus > 0 ? calloc((size_t)ncpus, sizeof(*sv)) : NULL;
	uint64_t heap = 0, emulated = 0, stepped = 0;
	uint32_t key = slot * MW_MAX_STRUCTS;

	if (v && sv &&
	    !bpf_map__lookup_elem(skel->maps.stats, &slot, sizeof(slot), v,
				  sizeof(*v) * (size_t)ncpus, 0) &&
	    !bpf_map__lookup_elem(skel->maps.struct_stats, &key, sizeof(key), sv,
				  sizeof(*sv) * (size_t)ncpus, 0))
		for (int c = 0; c < ncpus; c++) {
			heap += v[c].c[MW_C_HITS_RETURN];
			emulated += sv[c].hits[MW_HIT_EMULATED];
			stepped += sv[c].hits[MW_HIT_STEPPED];
		}
	free(v);
	free(sv);
	return heap && emulated && stepped;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median over rounds of each loop, alternated; -1 if the helper
 * stopped answering. */
static int measure(const struct helper *h, double med[LOOP__COUNT])
{
	double v[LOOP__COUNT][MW_CALIB_ROUNDS];

	for (int r = 0; r < MW_CALIB_ROUNDS; r++)
		for (int l = 0; l < LOOP__COUNT; l++)
			if ((v[l][r] = ask(h, (enum loop)l)) < 0)
				return -1;
	for (int l = 0; l < LOOP__COUNT; l++) {
		qsort(v[l], MW_CALIB_ROUNDS, sizeof(double), cmp_double);
		med[l] = v[l][MW_CALIB_ROUNDS / 2];
	}
	return 0;
}

/* The file offset of @fn in memwatch's own executable. */
struct find_fn {
	uintptr_t addr;
	uint64_t offset;
	bool found;
};

static int find_in_exe(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_fn *f = data;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz) {
			f->offset = f->addr - lo + ph->p_offset;
			f->found = true;
		}
	}
	return 1;	/* the first object is the executable */
}

static int add_probe(struct mw_probe_table *tab, uintptr_t (*fn)(uintptr_t), uint64_t cookie,
		     enum mw_prog prog, bool ret, const char *what)
{
	struct find_fn f = { .addr = (uintptr_t)fn };

	dl_iterate_phdr(find_in_exe, &f);
	if (!f.found)
		return -ENOENT;
	return probes__add(tab, MW_CALIB_SELF, f.offset, 16, cookie, prog, ret, NULL, what) < 0 ?
	       -ENOMEM : 0;
}

static int probe_table(struct mw_probe_table *tab)
{
	int err = add_probe(tab, mw_calib_emulated, MW_SF_COOKIE(0, MW_DELTA_ONE),
			    MW_PROG_STRUCT, false, "mw_calib_emulated");

	if (!err)
		err = add_probe(tab, mw_calib_stepped, MW_SF_COOKIE(0, MW_DELTA_ONE),
				MW_PROG_STRUCT, false, "mw_calib_stepped");
	if (!err)
		err = add_probe(tab, mw_calib_alloc, MW_ALLOC_COOKIE(MW_OP_MALLOC),
				MW_PROG_ALLOC, true, "mw_calib_alloc");
	if (!err)
		err = add_probe(tab, mw_calib_free, MW_ALLOC_COOKIE(MW_OP_FREE),
				MW_PROG_ALLOC, false, "mw_calib_free");
	return err;
}

/* Enters the helper in the slots map at @slot (@on), or takes it out:
 * a shared event's programs find the slot there (tracefs.h). 0, or
 * -errno. */
static int enlist(struct memwatch_bpf *skel, pid_t pid, uint32_t slot, bool on)
{
	__u32 tgid = (__u32)pid;

	if (!on)
		return bpf_map__delete_elem(skel->maps.slots, &tgid, sizeof(tgid), 0);
	return bpf_map__update_elem(skel->maps.slots, &tgid, sizeof(tgid), &slot, sizeof(slot),
				    BPF_ANY);
}

static double at_least_zero(double v)
{
	return v > 0 ? v : 0;
}

int calibrate__run(struct memwatch_bpf *skel, struct mw_places *places, uint32_t slot,
		   struct mw_hit_costs *out)
{
	struct mw_probe_table tab = { 0 };
	struct mw_links links = { 0 };
	double bare[LOOP__COUNT], probed[LOOP__COUNT], e;
	struct helper h;
	int err;

	err = probe_table(&tab);
	if (err) {
		mw_err("cannot measure what a probe costs: %s", strerror(-err));
		probes__free(&tab);
		return -1;
	}
	err = helper_start(&h);
	if (err) {
		mw_err("cannot start a helper process to measure what a probe costs: %s",
		       strerror(-err));
		probes__free(&tab);
		return -1;
	}
	err = measure(&h, bare);
	if (!err)
		err = enlist(skel, h.pid, slot, true);
	if (!err)
		err = attach__table(skel, places, h.pid, slot, &tab, &links, false) ? -2 : 0;
	if (!err)
		err = measure(&h, probed);
	if (!err && !probes_fired(skel, slot))
		err = -3;
	attach__destroy(&links);	/* not attach__release: see calibrate__nops */
	enlist(skel, h.pid, slot, false);
	helper_stop(&h);
	probes__free(&tab);
	if (err) {
		if (err == -1)
			mw_err("the helper process that measures what a probe costs stopped answering");
		else if (err == -3)
			mw_err("the probes on the helper process that measures what a probe costs did not fire: check that uprobes work here (/sys/bus/event_source/devices/uprobe)");
		return -1;
	}
	e = at_least_zero(probed[LOOP_EMULATED] - bare[LOOP_EMULATED]);
	out->ns[MW_HIT_EMULATED] = e;
	out->ns[MW_HIT_STEPPED] = at_least_zero(probed[LOOP_STEPPED] - bare[LOOP_STEPPED]);
	/* a pair is two emulated entries and a return: the rest is the return's */
	out->ns[MW_HIT_RETURN] = at_least_zero(probed[LOOP_PAIR] - bare[LOOP_PAIR] - 2 * e);
	return 0;
}

/* Whether @pid has the kernel's single-step area ("[uprobes]"), which
 * the kernel maps at a process's first single-stepped probe hit (or
 * first return probe): 1, 0, or -1 if its maps cannot be read. */
static int has_xol_area(pid_t pid)
{
	char path[64], line[512];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[uprobes]") != NULL;
	fclose(f);
	return found;
}

int calibrate__nops(struct memwatch_bpf *skel, struct mw_places *places, uint32_t slot,
		    bool *emulated)
{
	struct mw_probe_table tab = { .at_entry = true };
	struct mw_links links = { 0 };
	int nop = -1, mov = -1, err;
	struct helper h;

	err = add_probe(&tab, mw_calib_nop, MW_SF_COOKIE(0, MW_DELTA_ONE), MW_PROG_STRUCT, false,
			"mw_calib_nop");
	if (!err)
		err = add_probe(&tab, mw_calib_stepped, MW_SF_COOKIE(0, MW_DELTA_ONE),
				MW_PROG_STRUCT, false, "mw_calib_stepped");
	if (!err)
		err = helper_start(&h);
	if (err) {
		probes__free(&tab);
		return -1;
	}
	/* a nop's hit, then a mov's, which is stepped everywhere: the area
	 * must be there after it, or what the nop's said is not known */
	if (!enlist(skel, h.pid, slot, true) &&
	    !attach__table(skel, places, h.pid, slot, &tab, &links, true) &&
	    ask_n(&h, LOOP_NOP, 1) >= 0 && (nop = has_xol_area(h.pid)) == 0 &&
	    ask_n(&h, LOOP_STEPPED, 1) >= 0)
		mov = has_xol_area(h.pid);
	/* closed here, not by the closers' threads: no thread may start
	 * before privs__drop (capabilities are per thread) */
	attach__destroy(&links);
	enlist(skel, h.pid, slot, false);
	helper_stop(&h);
	probes__free(&tab);
	if (nop == 1 || (nop == 0 && mov == 1)) {
		*emulated = nop == 0;
		return 0;
	}
	return -1;
}
