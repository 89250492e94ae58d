/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - helpers for the integration tests: spawn real processes
 * (memwatch and the targets under tests/targets) with pipes, wait for
 * their lines, exits and files, and look up CSV fields by column name.
 *
 * Every wait is for a state (a line, an exit, a row, a condition), never
 * for a time: a slower machine only makes a test take longer. One limit
 * bounds all of a test's waits together, MW_PATIENCE_S seconds from its
 * first wait; when it runs out, the wait under way says on stderr what it
 * waited for and gives up (NULL, false, -1), and the caller's assertion
 * fails. Criterion's .timeout (MW_TIMEOUT, in every test) stays above it,
 * for a call that blocks outside the harness.
 */
#ifndef MW_HARNESS_H
#define MW_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define MEMWATCH "build/memwatch"
#define TARGET(name) "build/targets/" name

/* make test-slow builds its own binary with a longer limit: there
 * everything, chromium included, runs several times slower */
#ifndef MW_PATIENCE_S
#define MW_PATIENCE_S	420
#endif
#define MW_TIMEOUT	(MW_PATIENCE_S + 60)

/* Milliseconds left of the test's limit (0 once it ran out). */
int patience_ms(void);
/* Sleeps a moment while waiting for @what (printf-style): false, after
 * saying what was waited for, once the test's limit ran out. */
bool patience_wait(const char *what, ...) __attribute__((format(printf, 1, 2)));
/* Waits until @cond holds or the limit runs out (then false, said with
 * the printf-style rest): wait_until(x > 0, "x above 0 (%d)", x). */
#define wait_until(cond, ...) ({			\
	bool ok_;					\
	while (!(ok_ = (cond)) && patience_wait(__VA_ARGS__))	\
		;					\
	ok_;						\
})

struct proc {
	pid_t pid;
	char name[64];		/* argv[0]'s last part, for messages */
	int in, out, err;	/* -1 when closed */
	char buf[1 << 16];	/* stdout bytes not yet returned as lines */
	size_t len;
	int status;		/* exit code once reaped, or 128 + signal */
	bool reaped;
};

/* Starts argv[0] with stdin, stdout and stderr on pipes. */
void proc_spawn(struct proc *p, const char *const argv[]);
/* The next stdout line (without newline) in a static buffer, waited for;
 * NULL once stdout is closed (or the limit ran out). */
char *proc_line(struct proc *p);
/* The next line if one is there already, else NULL: no waiting. */
char *proc_line_now(struct proc *p);
/* Reads every complete stdout line there is already, without waiting;
 * the last one copied into @last (if any). Returns how many. */
int proc_skip(struct proc *p, char *last, size_t len);
/* Waits for @n more stdout lines, the last one copied into @last (if
 * any): false when stdout closed first (or the limit ran out). */
bool proc_lines(struct proc *p, int n, char *last, size_t len);
void proc_send(struct proc *p, const char *text);
/* Waits for the exit: the exit code, 128 + signal, or -1 when the limit
 * ran out (the process is then killed). */
int proc_wait(struct proc *p);
/* Whether it has exited, without waiting (reaped if so). */
bool proc_exited(struct proc *p);
/* All of stderr so far (reads until EOF if the process has exited). */
const char *proc_stderr(struct proc *p);
void proc_kill(struct proc *p, int sig);

/* CSV: the column index of @name in @header, or -1. */
int csv_col(const char *header, const char *name);
/* Field @col of @row, copied into @out. Returns false if absent. */
bool csv_field(const char *row, int col, char *out, size_t len);
/* Integer field by column name; fails the test if absent or not a number. */
long long csv_int(const char *header, const char *row, const char *name);
int csv_nfields(const char *line);

/* "key=value" out of a target's reply line; fails the test if absent. */
long long reply_int(const char *line, const char *key);
/* Byte at @addr in process @pid's memory (for probe breakpoints). */
int peek_byte(pid_t pid, uint64_t addr);
/* Bytes of process @pid's executable mappings that differ from their
 * files (a breakpoint left in its code, say): their count, and the first
 * few as "object+0xOFFSET" in @where. -1 if its memory is unreadable. */
long text_changes(pid_t pid, char *where, size_t len);
/* Whether @path is another file than @was records (its inode, or its
 * change time: an inode number may be used again); @was becomes it. */
bool file_changed(const char *path, struct stat *was);
/* Waits until the file at @path has been written anew @n times from now
 * (memwatch replaces its files whole, each interval: the second time's
 * figures were sampled after now). False when the limit ran out. */
bool file_replaced(const char *path, int n);
/* How many pidfds process @holder has open (memwatch holds one for each
 * process it watches, until it has let the process go; a pidfd's fdinfo
 * no longer names a process once it is reaped, so they are counted). */
int pidfds_held(pid_t holder);
/* The pids @holder's pidfds name ("N N ..."; -1 for a reaped one): how
 * many, or -1 if @holder is gone. */
int pidfd_pids(pid_t holder, char *out, size_t len);
/* Whether @holder holds a pidfd of @pid (a process of that pid, even a
 * zombie). */
bool holds_pidfd(pid_t holder, pid_t pid);
double now_s(void);


/* HTTP/1.0 request to 127.0.0.1:@port; the whole response (headers and
 * body) into @buf. Returns the status code, or -1 (no connection, timeout). */
int http_request(int port, const char *method, const char *path,
		 const char *accept, char *buf, size_t len);
/* The body of a response read by http_request (after the blank line). */
const char *http_body(const char *response);
/* A port number unlikely to be in use, different for each caller. */
int free_port(void);
/* Runs the shell command @cmd, its stdout into @out; returns its exit
 * status. */
int run_capture(const char *cmd, char *out, size_t len);
/* How memwatch attaches on this kernel, as it says with MEMWATCH_DEBUG
 * ("perf-event uprobes, entry and return probes", ...; kernel.c), from
 * a short launch of true(1): "" if it said nothing. */
const char *kernel_mechanism(void);
/* Whether memwatch found that this kernel emulates the multi-byte nops
 * (calibrate__nops): 6.18 does, 6.1 does not. */
bool kernel_emulates_nopl(void);
/* Entries of the BPF map @name created last (the newest memwatch's) whose
 * first 8 bytes, as an integer k, make the Python expression @expr true
 * (read with bpftool): a count, or -1. */
long long newest_map_count(const char *name, const char *expr);
/* Runs @cmd with @input on its stdin; returns its exit status. */
int pipe_to(const char *cmd, const char *input);

/* Removes the temporary directory @dir (from mkdtemp) and all in it. */
void temp_dir_remove(const char *dir);
/* Runs memwatch (or anything) with @argv to its end: its exit code, its
 * stderr in @err (valid until the next call). */
int run_memwatch(const char *const argv[], const char **err);
/* GET @path from 127.0.0.1:@port into the file @file (binary bodies, as
 * curl writes them); the response's headers into @hdr if not NULL.
 * Returns the status. */
int http_fetch(int port, const char *path, const char *file, char *hdr, size_t len);
/* Skips the test when the target at @path was not built (no rustc); under
 * make test (MEMWATCH_ALL_TARGETS set) that is a failure instead. */
void skip_unless_built(const char *path);

/* A CSV feed written to a file: its header and last complete row, and
 * the number of rows (0 with only a header; -1 if unreadable). */
int file_rows(const char *path, char *header, size_t hlen, char *last, size_t llen);
/* The same, waited for until at least @rows rows are there (the number
 * found, fewer when the limit ran out). */
int file_wait_rows(const char *path, int rows, char *header, size_t hlen,
		   char *last, size_t llen);

#endif
