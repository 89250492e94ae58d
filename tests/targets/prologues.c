// SPDX-License-Identifier: GPL-2.0
/*
 * prologues.c - integration target for probe placement: functions whose
 * first instructions are those release builds start with, written in
 * assembly so that no compiler changes them. Each returns a + b and
 * clobbers what its prologue clobbers; all but the last reach an emulated
 * instruction (a jcc) a few instructions in:
 *   p_push      push %rbx (emulated at the entry)
 *   p_sub       sub $0x28,%rsp (gcc -O2's frame)
 *   p_mov       mov ...(%rip),%rdx: a load into an argument register
 *   p_redzone   mov %dil,-0x38(%rsp): a store in the red zone
 *   p_endbr     endbr64; sub $0x18,%rsp (a CET build)
 *   p_copy      mov %rdi,%rax; xor %edi,%edi: its first argument only in rax
 * And one instruction then ret, for timing the kernel's uprobe paths:
 *   t_push, t_jcc, t_nop (emulated), t_mov, t_endbr, t_ret (single-stepped).
 * Commands: "run N" calls each p_ function N times (b = 1..N) and replies
 * with each one's sum, the sum of its b, and how many calls came back
 * with a callee-saved register or the caller's stack changed; "where NAME" replies with
 * the file offset of t_NAME (from /proc/self/maps); "spin NAME N" calls
 * t_NAME N times and replies with the nanoseconds per call; "calls NAME
 * N" the same for p_NAME (the benchmark's per-call cost); quit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "say.h"

long p_push(long a, long b);
long p_sub(long a, long b);
long p_mov(long a, long b);
long p_redzone(long a, long b);
long p_endbr(long a, long b);
long p_copy(long a, long b);
void t_push(void), t_jcc(void), t_nop(void), t_mov(void), t_endbr(void), t_ret(void);

long p_word = 1;	/* read by p_mov */

#define FUNC(name, body)						\
	__asm__(".text\n.globl " #name "\n.type " #name ",@function\n"	\
		".p2align 4\n" #name ":\n" body "\n.size " #name ",.-" #name "\n")

/* each: a + b, with the jcc that makes the probe's landing place */
FUNC(p_push,	"push %rbx\n test %rsi,%rsi\n js 1f\n1: lea (%rdi,%rsi),%rax\n pop %rbx\n ret");
FUNC(p_sub,	"sub $0x28,%rsp\n test %rsi,%rsi\n js 1f\n1: lea (%rdi,%rsi),%rax\n"
		" add $0x28,%rsp\n ret");
FUNC(p_mov,	"mov p_word(%rip),%rdx\n test %rsi,%rsi\n js 1f\n1: lea (%rdi,%rsi),%rax\n ret");
FUNC(p_redzone,	"mov %dil,-0x38(%rsp)\n test %rsi,%rsi\n js 1f\n1: lea (%rdi,%rsi),%rax\n ret");
FUNC(p_endbr,	"endbr64\n sub $0x18,%rsp\n test %rsi,%rsi\n js 1f\n1: lea (%rdi,%rsi),%rax\n"
		" add $0x18,%rsp\n ret");
FUNC(p_copy,	"mov %rdi,%rax\n xor %edi,%edi\n test %rsi,%rsi\n js 1f\n1: add %rsi,%rax\n ret");

FUNC(t_push,	"push %rbx\n pop %rbx\n ret");
FUNC(t_jcc,	"jz 1f\n1: ret");	/* either way to the ret */
FUNC(t_nop,	".byte 0x0f,0x1f,0x40,0x00\n ret");
FUNC(t_mov,	"mov %rdi,%rax\n ret");
FUNC(t_endbr,	"endbr64\n ret");
FUNC(t_ret,	"ret");

static const struct { const char *name; long (*f)(long, long); } funcs[] = {
	{ "p_push", p_push }, { "p_sub", p_sub }, { "p_mov", p_mov },
	{ "p_redzone", p_redzone }, { "p_endbr", p_endbr }, { "p_copy", p_copy },
};

static const struct { const char *name; void (*f)(void); } timed[] = {
	{ "push", t_push }, { "jcc", t_jcc }, { "nop", t_nop },
	{ "mov", t_mov }, { "endbr", t_endbr }, { "ret", t_ret },
};

/*
 * A call of @f(a, b) with every callee-saved register holding a known
 * value and the caller's stack below it marked, checked after the call:
 * a probe that corrupted the target's registers or stack shows here.
 * Through statics (rip-relative), with the red zone stepped over.
 */
static long (*volatile c_f)(long, long);
static volatile long c_a, c_b, c_ret, c_saved[6], c_mark;

static long call_checked(long (*f)(long, long), long a, long b, int *bad)
{
	static const long magic[6] = { 0x1b1b1b1b, 0x1bb1bb1b, 0x12121212,
				       0x13131313, 0x14141414, 0x15151515 };

	c_f = f;
	c_a = a;
	c_b = b;
	__asm__ volatile(
		"sub $128, %%rsp\n\t"
		"push %%rbp\n\t"			/* the compiler's, kept */
		"pushq $0x5a5a5a5a\n\t"		/* the caller's stack, marked */
		"mov $0x1b1b1b1b, %%rbx\n\t"
		"mov $0x1bb1bb1b, %%rbp\n\t"
		"mov $0x12121212, %%r12\n\t"
		"mov $0x13131313, %%r13\n\t"
		"mov $0x14141414, %%r14\n\t"
		"mov $0x15151515, %%r15\n\t"
		"mov c_a(%%rip), %%rdi\n\t"
		"mov c_b(%%rip), %%rsi\n\t"
		"call *c_f(%%rip)\n\t"
		"mov %%rax, c_ret(%%rip)\n\t"
		"mov %%rbx, c_saved(%%rip)\n\t"
		"mov %%rbp, c_saved+8(%%rip)\n\t"
		"mov %%r12, c_saved+16(%%rip)\n\t"
		"mov %%r13, c_saved+24(%%rip)\n\t"
		"mov %%r14, c_saved+32(%%rip)\n\t"
		"mov %%r15, c_saved+40(%%rip)\n\t"
		"pop %%rax\n\t"
		"mov %%rax, c_mark(%%rip)\n\t"
		"pop %%rbp\n\t"
		"add $128, %%rsp"
		::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		    "r12", "r13", "r14", "r15", "memory", "cc");
	for (int i = 0; i < 6; i++)
		*bad += c_saved[i] != magic[i];
	*bad += c_mark != 0x5a5a5a5a;
	return c_ret;
}

static void run(long n)
{
	char line[1024];
	int used = snprintf(line, sizeof(line), "ran");
	int bad = 0;

	for (size_t k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++) {
		long sum = 0, bs = 0;

		for (long b = 1; b <= n; b++) {
			sum += call_checked(funcs[k].f, 1000 * b, b, &bad);
			bs += b;
		}
		used += snprintf(line + used, sizeof(line) - (size_t)used, " %s=%ld %s_b=%ld",
				 funcs[k].name, sum, funcs[k].name, bs);
	}
	say("%s expect=%ld corrupted=%d\n", line, 1001 * n * (n + 1) / 2, bad);
}

/* The file offset of the code at @addr, from our own mappings. */
static unsigned long long file_offset(const void *addr)
{
	unsigned long long start, end, off, a = (unsigned long long)(unsigned long)addr;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) == 3 &&
		    a >= start && a < end) {
			fclose(f);
			return a - start + off;
		}
	if (f)
		fclose(f);
	return 0;
}

static void where(const char *name)
{
	for (size_t k = 0; k < sizeof(timed) / sizeof(timed[0]); k++)
		if (!strcmp(timed[k].name, name)) {
			say("at off=%llu\n", file_offset((const void *)timed[k].f));
			return;
		}
	say("error no t_%s\n", name);
}

static long long elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000ll + (b->tv_nsec - a->tv_nsec);
}

static void calls(const char *name, long n)
{
	struct timespec a, b;
	long sum = 0;

	for (size_t k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++) {
		if (strcmp(funcs[k].name + 2, name))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++)
			sum += funcs[k].f(i, 1);
		clock_gettime(CLOCK_MONOTONIC, &b);
		say("called ns_per_call=%lld sum=%ld\n", elapsed_ns(&a, &b) / n, sum);
		return;
	}
	say("error no p_%s\n", name);
}

static void spin(const char *name, long n)
{
	struct timespec a, b;

	for (size_t k = 0; k < sizeof(timed) / sizeof(timed[0]); k++) {
		if (strcmp(timed[k].name, name))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++)
			timed[k].f();
		clock_gettime(CLOCK_MONOTONIC, &b);
		say("spun ns_per_call=%lld\n", elapsed_ns(&a, &b) / n);
		return;
	}
	say("error no t_%s\n", name);
}

int main(void)
{
	char line[128], name[32];
	long n;

	say("ready pid=%d malloc=%p\n", (int)getpid(), dlsym(RTLD_DEFAULT, "malloc"));
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "run %ld", &n) == 1)
			run(n);
		else if (sscanf(line, "where %31s", name) == 1)
			where(name);
		else if (sscanf(line, "spin %31s %ld", name, &n) == 2)
			spin(name, n);
		else if (sscanf(line, "calls %31s %ld", name, &n) == 2)
			calls(name, n);
		else if (!strncmp(line, "quit", 4))
			break;
		else
			say("error unknown command\n");
	}
	return 0;
}
